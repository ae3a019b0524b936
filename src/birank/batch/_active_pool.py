"""The chosen pool of ActiveRankSVM: items, their acceptance probabilities and costs.

Keeps the ids chosen so far (numbered as :class:`birank.pairs.UnionPairs`
numbers D*), and feeds their rows and bias-corrected costs (shen-lin section
4.1) to a :class:`birank.solvers.dual_cd.DualCD` driver, so that every round
is a warm start.
"""

from __future__ import annotations

import numpy as np

from ..pairs import ChosenSet

__all__ = ["ChosenPool"]


class ChosenPool:
    """Chosen items of D* and their costs in a dual CD solver.

    shen-lin 4.1: item k costs ``C_k = Gamma_k |L*| C / (p_k Z)`` with
    ``Z = sum_{L*} 1/p`` (see :func:`birank.batch._active_sampling.crc_weights`).
    Adding items changes ``|L*|`` and ``Z`` only, so the rows already in the
    solver change by one factor kappa; scaling their alphas by it too keeps
    the warm start feasible without reading any row of X.

    Parameters
    ----------
    space : JointSpace
    solver : DualCD
        Its pool receives the rows; its weights are rescaled as items arrive.
    C : float
    bias_correction : bool
        Without it every p counts as 1 (costs ``Gamma_k C``).
    """

    def __init__(self, space, solver, C, bias_correction):
        self.space = space
        self.solver = solver
        self.C = C
        self.bias_correction = bias_correction
        self.ids = np.empty(0, dtype=np.int64)
        self.chosen = None
        self.n_pairs = 0
        self._p_parts = []
        self._Z = 0.0  # sum over the pool of 1/p (shen-lin 4.1)

    @property
    def size(self):
        return int(self.ids.size)

    def add(self, ids, p):
        """Choose ``ids`` (distinct, unchosen), drawn with acceptance probabilities ``p``."""
        if self.chosen is None:
            self.chosen = ChosenSet(ids)
        else:
            self.chosen.add(ids, new=True)  # sampled items are distinct and unchosen
        self.ids = ids if self.ids.size == 0 else np.concatenate((self.ids, ids))
        inv = 1.0 / p if self.bias_correction else np.ones(p.size)
        n_chosen = self.ids.size
        n_old, Z_old = n_chosen - ids.size, self._Z
        self._Z += float(inv.sum())
        if n_old and ids.size and self.bias_correction:
            self.solver.scale_weights((n_chosen / self._Z) / (n_old / Z_old))
        self.n_pairs += int(np.count_nonzero(ids < self.space.n_pair))
        if ids.size:
            C_new = self.space.big_gamma(ids) * (n_chosen * self.C) * inv / self._Z
            a, b = self.space.decode(ids)
            self.solver.add_rows(a, b, C_new, check=False)
            self._p_parts.append(p)

    @property
    def acceptance(self):
        """p of every chosen item, in order of choice."""
        return np.concatenate(self._p_parts) if self._p_parts else np.empty(0)
