"""The weight vector of the gradient-type online learners (OPAUC, OnlineUniExp, SPAM, PGD)."""

from __future__ import annotations

import numpy as np

__all__ = ["WeightVectorMixin"]


class WeightVectorMixin:
    """``_coef()`` for a learner whose weights are ``self._state["w"]``, checked finite.

    A learning rate that is too large makes the weights overflow; that is
    reported as a ValueError naming ``eta`` instead of NaN scores. A first call
    whose weights are all zero is refused (nothing to learn from).
    """

    def _check_weight(self, sample_weight, n):
        weight = super()._check_weight(sample_weight, n)
        if not hasattr(self, "_state") and n and not (weight > 0).any():  # first call
            raise ValueError(f"{type(self).__name__}: sample_weight is zero everywhere on the "
                             "first call: there is nothing to learn from.")
        return weight

    def _coef(self):
        w = self._state["w"]
        if not np.isfinite(w).all():
            raise ValueError(f"{type(self).__name__}: the weights diverged to inf/NaN; lower "
                             f"the learning rate eta={self.eta!r}.")
        return w.copy()
