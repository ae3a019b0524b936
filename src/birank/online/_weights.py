"""The weight vector of the gradient-type online learners (OPAUC, OnlineUniExp, SPAM, PGD)."""

from __future__ import annotations

import numpy as np

__all__ = ["WeightVectorMixin"]


class WeightVectorMixin:
    """``_coef()`` for a learner whose weights are ``self._state["w"]``, checked finite.

    A learning rate that is too large makes the weights overflow; that is
    reported as a ValueError naming ``eta0`` instead of NaN scores.
    """

    def _coef(self):
        w = self._state["w"]
        if not np.isfinite(w).all():
            raise ValueError(f"{type(self).__name__}: the weights diverged to inf/NaN; lower "
                             f"the learning rate eta0={getattr(self, 'eta0_', self.eta0)!r}.")
        return w.copy()
