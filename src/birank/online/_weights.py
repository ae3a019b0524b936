"""The weight vector of the gradient-type online learners (OPAUC, OnlineUniExp, SPAM, PGD),
and the one error of every online learner whose weights diverged."""

from __future__ import annotations

import numpy as np

__all__ = ["WeightVectorMixin", "diverged_error"]


class WeightVectorMixin:
    """``_coef()`` for a learner whose weights are ``self._state["w"]``, checked finite.

    A learning rate that is too large makes the weights overflow; that is
    reported as a ValueError naming ``eta0`` instead of NaN scores.
    """

    def _coef(self):
        w = self._state["w"]
        if not np.isfinite(w).all():
            raise diverged_error(self)
        return w.copy()


def diverged_error(est):
    """The ValueError of an online learner whose weights overflowed, naming what to lower:
    the step size ``eta0`` (and how ``"auto"`` resolved it), else the aggressiveness ``C``."""
    name = type(est).__name__
    params = est.get_params()
    if "eta0" in params:
        used = getattr(est, "eta0_", params["eta0"])
        how = f"eta0_={used:.4g}, resolved from eta0='auto'" if params["eta0"] == "auto" \
            else f"eta0={used!r}"
        advice = f"lower the step size ({how})"
    elif "C" in params:
        advice = f"lower C={params['C']!r} (the step's aggressiveness)"
    else:
        advice = "scale the features"
    return ValueError(f"{name}: the weights diverged to inf/NaN; {advice}.")
