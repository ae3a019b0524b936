"""Active sampling of pairs and pseudo-pairs (shen-lin sections 3.2-3.4, 4.1).

The joint set D* = D_pair U D_pseu is numbered as in :class:`birank.pairs.UnionPairs`:
ids ``[0, P)`` are the real (positive, negative) pairs, ids ``[P, P + N)`` the
pseudo-pairs (a point against the origin). An item is never a vector: its margin
``w . z`` is ``s[a] - s[b]`` with ``s = X w + intercept`` and the origin scored 0
(soft sampling scores only the rows of drawn candidates, the hard strategies
score every row once per round).

Pieces:

- :func:`acceptance_probability` -- the sigmoid-shaped p of section 3.3;
- :func:`crc_weights` -- the per-item C of section 4.1 (bias correction);
- :class:`JointSpace` -- D* restricted to the parts with non-zero Gamma;
- :class:`SoftSampler` -- Algorithm 2 (rejection sampling), ``need`` accepted
  items per round in one compiled loop (:mod:`birank._kernels.soft_sample`);
- :func:`hard_select` -- the hard strategies: the ``need`` unchosen items with
  the lowest closeness / correctness, by a k-way merge (no pair enumeration).
"""

from __future__ import annotations

import numpy as np

from .._kernels.active_select import hard_select_pairs
from .._kernels.soft_sample import (
    RANDOM,
    SOFT_CLOSE,
    SOFT_CORRECT,
    SOFT_HYBRID,
    accept_p_array,
    item_margins,
    item_rows,
    soft_sample,
    soft_sample_listed,
)
from .._validation import draw_seed
from ..pairs import BipartitePairs, PseudoPairs, UnionPairs, sample_pair_ids

__all__ = [
    "STRATEGIES",
    "acceptance_probability",
    "crc_weights",
    "JointSpace",
    "SoftSampler",
    "hard_select",
]

STRATEGIES = ("random", "soft-close", "soft-correct", "soft-hybrid", "hard-close",
              "hard-correct")

_CODES = {"random": RANDOM, "soft-close": SOFT_CLOSE, "soft-correct": SOFT_CORRECT,
          "soft-hybrid": SOFT_HYBRID}


def acceptance_probability(margin, strategy):
    """Probability p of accepting an item with margin ``w . z`` (shen-lin section 3.3).

    ``random``: 1. ``soft-close``: ``2 / (1 + exp(|m|))``. ``soft-correct``:
    ``1 - 2 / (1 + exp([1 - m]_+))``. ``soft-hybrid``: their product (birank's
    noise-tolerant combination, the future work of shen-lin section 5). Both are evaluated through the identities
    ``2 / (1 + e^x) = 1 - tanh(x / 2)`` and ``1 - 2 / (1 + e^h) = tanh(h / 2)``,
    which never overflow (the test suite checks them against the paper's form).
    The sampling kernel calls the same scalar function.
    """
    code = _strategy_code(strategy)
    margin = np.asarray(margin, dtype=np.float64)
    return accept_p_array(np.ascontiguousarray(margin.reshape(-1)), code).reshape(margin.shape)


def _strategy_code(strategy):
    """The kernel code of a soft strategy, or a ValueError naming the allowed ones."""
    if strategy not in _CODES:
        raise ValueError(f"strategy must be one of {tuple(_CODES)} for soft sampling; "
                         f"got {strategy!r}.")
    return _CODES[strategy]


def crc_weights(p, big_gamma, C, bias_correction=True):
    """Per-item cost ``C_crc = Gamma |L*| / (p Z) * C``, ``Z = sum_{L*} 1 / p`` (shen-lin 4.1).

    Parameters
    ----------
    p : array of shape (n_chosen,)
        The acceptance probability of each chosen item when it was sampled (the
        value function of section 3.3, without the Gamma factor). Without bias
        correction every p is taken as 1, so the weights are ``Gamma * C``.
    big_gamma : array of shape (n_chosen,)
        gamma for real pairs, 1 - gamma for pseudo-pairs.
    C : float

    Notes
    -----
    Section 4.1 puts Gamma both in the acceptance probability (Algorithm 2 with
    p multiplied by gamma or 1 - gamma) and in this weight; we follow the paper
    literally, so gamma acts on how often a kind of item is drawn and on its
    weight. With gamma in {0, 1} (the paper's main experiments) only one kind
    of item is ever drawn and the question does not arise.
    """
    p = np.asarray(p, dtype=np.float64)
    if not bias_correction:
        p = np.ones_like(p)
    inv = 1.0 / p
    Z = inv.sum()
    return np.asarray(big_gamma, dtype=np.float64) * (p.shape[0] * C) * inv / Z


class JointSpace:
    """The joint set D* with a gamma: which ids may be drawn, and their Gamma.

    Parameters
    ----------
    y01 : array of {0, 1}
    gamma : float in [0, 1]
        1 keeps only real pairs, 0 only pseudo-pairs.
    """

    def __init__(self, y01, gamma):
        self.pairs = BipartitePairs(y01)
        self.pseudo = PseudoPairs(y01)
        self.union = UnionPairs(self.pairs, self.pseudo)
        self.n_pair = self.pairs.n_pairs
        self.n_pseudo = self.pseudo.n_pairs
        self.gamma = float(gamma)
        self.lo = self.n_pair if self.gamma == 0.0 else 0
        self.hi = self.n_pair if self.gamma == 1.0 else self.n_pair + self.n_pseudo
        self.n_active = self.hi - self.lo

    def decode(self, ids):
        """``(a, b)`` rows of items (as :class:`birank.pairs.UnionPairs` numbers them)."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= self.union.n_pairs):
            raise ValueError(f"item ids must lie in [0, {self.union.n_pairs}).")
        return item_rows(ids, self.pairs.pos, self.pairs.neg, self.pseudo.y01, self.n_pair)

    def big_gamma(self, ids):
        """gamma for real pairs, 1 - gamma for pseudo-pairs."""
        ids = np.asarray(ids, dtype=np.int64)
        return np.where(ids < self.n_pair, self.gamma, 1.0 - self.gamma)

    def margins(self, score, ids):
        """``w . z`` of items ``ids``.

        ``score(rows)`` returns ``x_r . w + intercept`` for row indices, and 0
        for the origin ``-1``: an array ``s_ext`` of all scores followed by a 0
        works (``s_ext.__getitem__``), and so does a function scoring only the
        rows asked for, which is what keeps soft sampling independent of the
        number of rows. The intercept (``-theta`` of CRC-threshold) cancels in
        real pairs and gives ``w.x_k - theta`` for the pseudo-pair ``(k, -1)``.
        """
        if isinstance(score, np.ndarray):
            score = score.__getitem__
        a, b = self.decode(ids)
        return score(a) - score(b)

    def initial(self, size, rng):
        """``size`` distinct items drawn uniformly from the active part of D*."""
        return sample_pair_ids(self.n_active, size, random_state=rng) + self.lo


class SoftSampler:
    """Algorithm 2 of shen-lin for one round, with the data it needs across rounds.

    :meth:`sample` returns what ``need`` sequential calls of Algorithm 2 return
    with a fixed ``w``: a candidate drawn uniformly from the active ids is
    redrawn when it is already chosen or was accepted earlier in the round (U*
    excludes both), and is otherwise accepted with probability ``Gamma * p``.
    Rejections are the candidates of U* that failed that test (shen-lin
    Fig. 6). The loop runs in :func:`birank._kernels.soft_sample.soft_sample`
    and scores only the rows of drawn candidates.

    When the active part of D* is less than twice the budget, candidates come
    from an explicit array of unchosen ids (dense mode), so drawing never
    stalls on an almost exhausted pool, and a pool whose acceptance
    probabilities are all zero is detected exactly.
    """

    def __init__(self, space, strategy, budget, max_draws):
        self.code = _strategy_code(strategy)
        self.space = space
        self.strategy = strategy
        self.dense = space.n_active < 2 * budget
        self.max_draws = int(max_draws)
        self._y01 = space.pseudo.y01

    def margins(self, X, w, intercept, ids):
        """``w . z`` of items ``ids``; ``X`` is the rows argument of the kernels."""
        sp_ = self.space
        return item_margins(X, w, float(intercept), sp_.pairs.pos, sp_.pairs.neg, self._y01,
                            sp_.n_pair, np.ascontiguousarray(ids, dtype=np.int64))

    def sample(self, X, w, intercept, need, chosen, rng):
        """Draw ``need`` items; returns ``(ids, p, n_rejected, n_drawn, exhausted)``.

        ``X`` is the rows argument of the kernels (see
        :func:`birank._validation.kernel_rows`), scored as ``X w + intercept``
        with the origin at 0. ``exhausted`` is True when fewer than ``need``
        items could be accepted (every acceptance probability zero, or
        ``max_draws`` draws made).
        """
        space = self.space
        w = np.ascontiguousarray(w, dtype=np.float64)
        if self.dense:
            unchosen = np.arange(space.lo, space.hi, dtype=np.int64)
            if len(chosen):
                unchosen = unchosen[~chosen.contains(unchosen)]
            p_un = accept_p_array(self.margins(X, w, intercept, unchosen), self.code)
            weight = space.big_gamma(unchosen) * p_un
            acceptable = np.flatnonzero(weight > 0)
            if acceptable.size <= need:
                # Algorithm 2 would take every acceptable item, then loop forever
                take = rng.permutation(acceptable)
                return unchosen[take], p_un[take], 0, 0, acceptable.size < need
            got, n_rej, n_drawn, exhausted = soft_sample_listed(weight, int(need),
                                                                self.max_draws, draw_seed(rng))
            return unchosen[got], p_un[got], int(n_rej), int(n_drawn), bool(exhausted)
        ids, p, n_rej, n_drawn, exhausted = soft_sample(
            X, w, float(intercept), space.pairs.pos, space.pairs.neg, self._y01, space.n_pair,
            space.lo, space.hi, space.gamma, self.code, chosen.table, int(need),
            self.max_draws, draw_seed(rng))
        return ids, p, int(n_rej), int(n_drawn), bool(exhausted)


def hard_select(space, s_ext, need, strategy, chosen):
    """The ``need`` unchosen items of D* with the lowest closeness / correctness.

    Ranked by ``(key, id)`` with key ``|w.z|`` (hard-close) or ``w.z``
    (hard-correct; correctness ``-[1 - w.z]_+`` is non-increasing in ``w.z``,
    so this is its order with ties broken by the margin, then the id). Real
    pairs come from the k-way merge kernel, pseudo-pairs from one sort; the two
    candidate lists are merged. Cost O(N log N + (need + |L*|) log N).
    """
    mode = 0 if strategy == "hard-close" else 1
    s = s_ext[:-1]
    chosen_ids = chosen.to_array()
    ids_list, keys_list = [], []
    if space.lo < space.n_pair:  # real pairs are active
        s_pos = s[space.pairs.pos]
        s_neg = s[space.pairs.neg]
        jn = np.arange(s_neg.size, dtype=np.int64)
        asc = np.lexsort((jn, s_neg)).astype(np.int64)
        desc = np.lexsort((jn, -s_neg)).astype(np.int64)
        if mode == 0:
            start = np.empty(2 * s_pos.size, dtype=np.int64)
            start[0::2] = np.searchsorted(s_neg[asc], s_pos, side="left")
            start[1::2] = np.searchsorted(-s_neg[desc], -s_pos, side="right")
        else:
            start = np.zeros(s_pos.size, dtype=np.int64)
        pair_chosen = chosen_ids[chosen_ids < space.n_pair]
        ids, keys = hard_select_pairs(s_pos, s_neg, asc, desc, start, mode, int(need),
                                      np.ascontiguousarray(pair_chosen))
        ids_list.append(ids)
        keys_list.append(keys)
    if space.hi > space.n_pair:  # pseudo-pairs are active
        ids = np.arange(space.n_pair, space.hi, dtype=np.int64)
        d = space.margins(s_ext, ids)
        keys = np.abs(d) if mode == 0 else d
        keep = ~chosen.contains(ids)
        ids, keys = ids[keep], keys[keep]
        order = np.lexsort((ids, keys))[:need]
        ids_list.append(ids[order])
        keys_list.append(keys[order])
    ids = np.concatenate(ids_list)
    keys = np.concatenate(keys_list)
    order = np.lexsort((ids, keys))[:need]
    return ids[order]
