"""Pair spaces as index arithmetic: a pair is two row indices, never a vector.

Every space numbers its pairs ``0 .. n_pairs - 1`` and decodes an array of pair
ids into two arrays ``(a, b)`` of row indices meaning "row ``a`` should rank
above row ``b``", i.e. the pair vector is ``z = x[a] - x[b]``. The index ``-1``
stands for the origin, so a pseudo-pair (shen-lin section 3.4) is ``(k, -1)``
for a positive point (``z = x_k``) and ``(-1, k)`` for a negative one
(``z = -x_k``). Uniform sampling of pairs is uniform sampling of integers, so
nothing of size ``n_pairs`` is ever allocated.

Spaces
------
BipartitePairs   positive x negative, optionally within query groups
PseudoPairs      every point against the origin (shen-lin D_pseu^+)
OrdinalPairs     (i, j) with y_i > y_j for real or graded labels, optionally per group
UnionPairs       concatenation, e.g. shen-lin's joint set D* = D_pair U D_pseu
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._kernels.id_set import new_table, table_contains, table_insert, take_new
from ._kernels.index import index_dtype
from ._validation import as_written, check_groups, check_random_state, check_y01, codes_of
from ._kernels.ordinal_levels import (closest_pair_ids, decode_ordinal_ids, level_pair_counts,
                                      ordinal_pair_levels, ordinal_runs)

if TYPE_CHECKING:
    from ._typing import ArrayLike, IndexArray, IntArray, NDArray, RandomStateLike

__all__ = [
    "BipartitePairs",
    "PseudoPairs",
    "OrdinalPairs",
    "UnionPairs",
    "ChosenSet",
    "sample_pair_ids",
]


def _as_groups(groups, n):
    return check_groups(groups, n)


def _as_ids(ids: ArrayLike, *, flat: bool = True) -> IntArray:
    """Pair ids as int64: integers (or integral floats, e.g. an empty list), a scalar or
    1-D (any shape with ``flat=False``); ValueError naming the problem otherwise.

    A float would be truncated (0.7 read as pair 0) and a 2-D array flattened into
    other pairs than meant, silently: both are refused."""
    arr = np.asarray(ids)
    if flat and arr.ndim > 1:
        raise ValueError(f"pair ids must be a 1-D array (or a scalar); got shape {arr.shape}.")
    kind = arr.dtype.kind
    if kind in "iu":
        if kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"pair ids must be below 2**63; got {arr.max()}.")
        return arr.astype(np.int64, copy=False)
    if kind == "f" or (kind == "O" and all(isinstance(v, (int, float, np.integer, np.floating))
                                           and not isinstance(v, bool) for v in arr.flat)):
        try:
            values = arr.astype(np.float64)
        except OverflowError:  # (a Python int beyond float64)
            values = np.full(arr.shape, np.inf)
        odd = ~np.isfinite(values) | (values != np.round(values))
        if odd.any():
            bad = as_written(arr[odd].reshape(-1)[0])
            raise ValueError(f"pair ids must be integers; got {bad!r} (a non-integer id would "
                             "be truncated to another pair).")
        if arr.size and np.abs(values).max() >= 2.0**63:
            raise ValueError(f"pair ids must be below 2**63; got {np.abs(values).max():g}.")
        return values.astype(np.int64)
    raise ValueError(f"pair ids must be integers; got dtype {arr.dtype}"
                     f"{' (booleans)' if kind == 'b' else ''}.")


class _PairSpace:
    n_pairs: int

    def __len__(self) -> int:
        return self.n_pairs

    def decode(self, ids: ArrayLike,
               ) -> tuple[IndexArray, IndexArray]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_ids(self, ids: ArrayLike) -> IntArray:
        ids = _as_ids(ids).reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= self.n_pairs):
            raise ValueError(f"pair ids must lie in [0, {self.n_pairs}); got "
                             f"[{ids.min()}, {ids.max()}].")
        return ids

    def enumerate(self) -> tuple[IndexArray, IndexArray]:
        """All pairs as ``(a, b)``. Only for small spaces: tests and brute force.

        Returns
        -------
        a, b : ndarray of shape (n_pairs,)
            Row indices of every pair, in pair-id order: row ``a[p]`` ranks
            above row ``b[p]``; ``-1`` stands for the origin (pseudo-pairs).
        """
        return self.decode(np.arange(self.n_pairs, dtype=np.int64))


class BipartitePairs(_PairSpace):
    """All (positive, negative) pairs, within each group when ``groups`` is given.

    Parameters
    ----------
    y01 : array of shape (n_samples,) with values in {0, 1}
    groups : array of shape (n_samples,), optional
        Query id per row; pairs form only inside a group.

    Examples
    --------
    >>> import numpy as np
    >>> from birank.pairs import BipartitePairs
    >>> space = BipartitePairs(np.array([1, 0, 1, 0, 0]))
    >>> space.n_pairs
    6
    >>> a, b = space.decode(np.array([0, 5]))
    >>> a.tolist(), b.tolist()
    ([0, 2], [1, 4])
    """

    def __init__(self, y01: ArrayLike, groups: ArrayLike | None = None) -> None:
        y01 = check_y01(y01)
        groups = _as_groups(groups, y01.shape[0])
        if groups is None:
            self.pos = np.flatnonzero(y01).astype(np.int64)
            self.neg = np.flatnonzero(~y01).astype(np.int64)
            self._grouped = False
            self.n_pairs = int(self.pos.size) * int(self.neg.size)
            return
        # rows sorted by group; per group the positives and negatives are contiguous
        gid = codes_of(groups)
        order_p = np.flatnonzero(y01)[np.argsort(gid[y01], kind="stable")]
        order_n = np.flatnonzero(~y01)[np.argsort(gid[~y01], kind="stable")]
        n_groups = gid.max() + 1 if gid.size else 0
        npos = np.bincount(gid[y01], minlength=n_groups).astype(np.int64)
        nneg = np.bincount(gid[~y01], minlength=n_groups).astype(np.int64)
        self.pos, self.neg = order_p.astype(np.int64), order_n.astype(np.int64)
        self._pos_start = np.concatenate(([0], np.cumsum(npos)))
        self._neg_start = np.concatenate(([0], np.cumsum(nneg)))
        self._nneg = nneg
        counts = npos * nneg
        self._offsets = np.concatenate(([0], np.cumsum(counts)))
        self._grouped = True
        self.n_pairs = int(counts.sum())

    def decode(self, ids: ArrayLike) -> tuple[IndexArray, IndexArray]:
        ids = self._check_ids(ids)
        if not self._grouped:
            n_neg = self.neg.size
            return self.pos[ids // n_neg], self.neg[ids % n_neg]
        g = np.searchsorted(self._offsets, ids, side="right") - 1
        local = ids - self._offsets[g]
        nneg = self._nneg[g]
        return (self.pos[self._pos_start[g] + local // nneg],
                self.neg[self._neg_start[g] + local % nneg])


class PseudoPairs(_PairSpace):
    """Every point against the origin: ``(k, -1)`` if positive, ``(-1, k)`` if negative.

    These are shen-lin's positive pseudo-pairs D_pseu^+ (section 3.4): the hinge
    loss of a point in the point-wise SVM (their eq. 2) is the hinge loss of its
    pseudo-pair.

    Parameters
    ----------
    y01 : array of shape (n_samples,) with values in {0, 1}
        Pair id ``k`` is row ``k``'s pseudo-pair, so ``n_pairs = n_samples``.

    Examples
    --------
    >>> import numpy as np
    >>> from birank.pairs import PseudoPairs
    >>> a, b = PseudoPairs(np.array([1, 0])).decode(np.array([0, 1]))
    >>> a.tolist(), b.tolist()
    ([0, -1], [-1, 1])
    """

    def __init__(self, y01: ArrayLike) -> None:
        self.y01 = check_y01(y01)
        self.n_pairs = int(self.y01.shape[0])

    def decode(self, ids: ArrayLike) -> tuple[IndexArray, IndexArray]:
        ids = self._check_ids(ids)
        pos = self.y01[ids]
        minus = np.full(ids.shape, -1, dtype=np.int64)
        return np.where(pos, ids, minus), np.where(pos, minus, ids)


class OrdinalPairs(_PairSpace):
    """Pairs ``(i, j)`` with ``y_i > y_j`` (real or graded labels), per group if given.

    Equal labels form no pair. Rows are sorted by (group, y); a row's partners
    are the rows of its group with strictly smaller label, which are contiguous
    in that order, so pair ids decode with one binary search.

    Parameters
    ----------
    y : array of shape (n_samples,), float
        Real-valued or graded labels (higher ranks higher); must be finite.
    groups : array of shape (n_samples,), optional
        Query id per row; pairs form only inside a group.

    Examples
    --------
    >>> import numpy as np
    >>> from birank.pairs import OrdinalPairs
    >>> space = OrdinalPairs(np.array([0.5, 2.0, 0.5, 1.0]))
    >>> space.n_pairs
    5
    """

    def __init__(self, y: ArrayLike, groups: ArrayLike | None = None) -> None:
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:  # a column, as check_y01 takes it
            y = y[:, 0]
        if y.ndim != 1:  # (flattened, two label columns would be one wrong pair space)
            raise ValueError(f"y must be 1-D, one label per row; got shape {y.shape}.")
        try:
            if y.dtype.kind not in "biufO":  # (strings, complex: refused, not cast)
                raise TypeError
            y = y.astype(np.float64)  # (an object array: numbers only)
        except (TypeError, ValueError):
            raise ValueError(f"y must hold real numbers (graded or real-valued labels); got "
                             f"dtype {y.dtype}.") from None
        if not np.all(np.isfinite(y)):
            raise ValueError("y must be finite to form ordinal pairs.")
        groups = _as_groups(groups, y.shape[0])
        n = y.shape[0]
        # row indices as int32 below 2^31 rows: these arrays, and the (a, b) rows that
        # decode() returns, take half the memory (pair ids and offsets stay int64)
        index = index_dtype(n)
        if groups is None:
            self.order = np.argsort(y, kind="stable").astype(index, copy=False)
            gs = np.zeros(n, dtype=np.int8)  # one group
        else:
            gid = codes_of(groups)
            self.order = np.lexsort((y, gid)).astype(index, copy=False)
            gs = gid[self.order]
        ys = y[self.order]
        # start of each row's group and of each run of equal labels in sorted order, the
        # pair id of each row's first partner (its partners are the group's rows below
        # its run), and the distinct-label rank inside the group (lin-jan-lin levels,
        # see closest())
        (self._offsets, self._group_start, self._run_id, self._run_begin,
         self._rank) = ordinal_runs(ys, gs, index)
        self.n_pairs = int(self._offsets[-1])

    def decode(self, ids: ArrayLike) -> tuple[IndexArray, IndexArray]:
        return decode_ordinal_ids(self._check_ids(ids), self._offsets, self.order,
                                  self._group_start)

    def levels(self, ids: ArrayLike) -> IntArray:
        """Level of each pair: the difference of the distinct-label ranks of its rows.

        Without tied labels this is lin-jan-lin's order difference r of a
        level-r pair ``(x_k, x_{k+r})`` (section III-A). With ties a level
        counts distinct label values, so all rows of one label share a level
        position: level 1 holds every pair between adjacent label values
        (a run of m equal labels next to a run of m' gives m m' pairs).

        Parameters
        ----------
        ids : array-like of int
            Pair ids in ``[0, n_pairs)``.

        Returns
        -------
        levels : ndarray of int, same length as ``ids``
            The level (>= 1) of each pair.
        """
        return ordinal_pair_levels(self._check_ids(ids), self._offsets, self._group_start,
                                   self._rank)

    def level_counts(self, max_level: int) -> IntArray:
        """Number of pairs at levels ``1 .. max_level`` (array index = level; index 0 is 0).

        Level r of a group holds ``sum_j s_j s_{j-r}`` pairs, ``s_j`` the size of
        the group's j-th run of equal labels. Cost: ``O(N + max_level)`` when all
        but a few runs of each group have one size (distinct labels, labels
        tied in pairs, ...: all 200,000 levels of 200,000 distinct labels in a
        few ms); in general ``O(N + max_level)`` plus one step for each two runs
        of another size at most ``max_level`` levels apart (so at most one step
        per row and level).

        Parameters
        ----------
        max_level : int
            The highest level counted.

        Returns
        -------
        counts : ndarray of int64 of shape (max_level + 1,)
            ``counts[r]`` is the number of level-r pairs; ``counts[0]`` is 0.

        Examples
        --------
        >>> import numpy as np
        >>> from birank.pairs import OrdinalPairs
        >>> OrdinalPairs(np.array([0.0, 0.0, 1.0, 2.0, 2.0, 2.0])).level_counts(3).tolist()
        [0, 5, 6, 0]
        """
        return level_pair_counts(self._rank, self._run_id, self._run_begin, int(max_level))

    def closest(self, n: int) -> IntArray:
        """Ids of the ``n`` order-closest pairs: level 1, then level 2, ... (lin-jan-lin Alg. 1).

        Inside a level, pairs are ordered by the sorted position of the upper
        row, then of the lower row (rows sorted by (group, y), stable). The
        pairs of each level are read off as contiguous id blocks, O(N) per
        level visited: nothing of size ``n_pairs`` is built.

        Parameters
        ----------
        n : int
            How many pairs, in ``[0, n_pairs]`` (else a ValueError).

        Returns
        -------
        ids : ndarray of int64 of shape (n,)
            Pair ids, order-closest first.

        Examples
        --------
        >>> import numpy as np
        >>> from birank.pairs import OrdinalPairs
        >>> space = OrdinalPairs(np.array([3.0, 1.0, 2.0, 0.0]))
        >>> a, b = space.decode(space.closest(3))   # the 1-closest pairs
        >>> [(int(i), int(j)) for i, j in zip(a, b)]
        [(1, 3), (2, 1), (0, 2)]
        >>> space.levels(space.closest(space.n_pairs)).tolist()
        [1, 1, 1, 2, 2, 3]
        """
        n = int(n)
        if not 0 <= n <= self.n_pairs:
            raise ValueError(f"cannot take {n} closest pairs: the space has {self.n_pairs}.")
        ids, _ = closest_pair_ids(n, self._rank, self._run_id, self._run_begin,
                                  self._offsets, self._group_start)
        return ids

    def level_one_ids(self, positions: ArrayLike) -> IntArray:
        """Ids of the level-1 pairs at ``positions`` of the level-1 order of :meth:`closest`.

        Position k in ``[0, n_level1)`` is the k-th level-1 pair (by upper, then
        lower sorted position), so ``level_one_ids(np.arange(n))`` equals
        ``closest(n)`` for ``n <= n_level1``. Each row's level-1 partners are one
        contiguous block (the run of the next lower label in its group): a
        prefix sum of the block sizes (O(N)) and a binary search per position
        decode them, so uniform positions give uniform level-1 pairs without
        touching the other levels.

        Parameters
        ----------
        positions : array-like of int
            Positions in ``[0, level_counts(1)[1])`` (else a ValueError).

        Returns
        -------
        ids : ndarray of int64, same length as ``positions``
        """
        pos = _as_ids(positions)
        has = self._rank >= 1
        run = self._run_id.astype(np.int64)
        size = np.where(has, self._run_begin[run] - self._run_begin[run - 1], 0)
        cum = np.zeros(size.shape[0] + 1, dtype=np.int64)
        np.cumsum(size, out=cum[1:])
        if pos.size and (pos.min() < 0 or pos.max() >= cum[-1]):
            raise ValueError(f"level-1 positions must lie in [0, {int(cum[-1])}).")
        p = np.searchsorted(cum, pos, side="right") - 1  # the upper row's sorted position
        q = self._run_begin[run[p] - 1] + (pos - cum[p])  # its level-1 partner's position
        return self._offsets[p] - self._group_start[p] + q


class UnionPairs(_PairSpace):
    """Concatenation of spaces: ids ``[0, n1)`` from the first, then the second, ...

    ``part(ids)`` tells which space each id came from (shen-lin's gamma weighting
    treats real pairs and pseudo-pairs differently).

    Parameters
    ----------
    *spaces : pair spaces
        The spaces concatenated, in this order (``BipartitePairs``,
        ``PseudoPairs``, ``OrdinalPairs``, ...); all index rows of the same data.

    Examples
    --------
    >>> import numpy as np
    >>> from birank.pairs import BipartitePairs, PseudoPairs, UnionPairs
    >>> y = np.array([1, 0, 1])
    >>> space = UnionPairs(BipartitePairs(y), PseudoPairs(y))  # shen-lin's D* = D_pair U D_pseu
    >>> space.n_pairs
    5
    >>> ids = np.arange(space.n_pairs)
    >>> space.part(ids).tolist()
    [0, 0, 1, 1, 1]
    >>> a, b = space.decode(ids)
    >>> a.tolist(), b.tolist()
    ([0, 2, 0, -1, 2], [1, 1, -1, 1, -1])
    """

    def __init__(self, *spaces: _PairSpace) -> None:
        self.spaces = spaces
        self._offsets = np.concatenate(([0], np.cumsum([s.n_pairs for s in spaces])))
        self.n_pairs = int(self._offsets[-1])

    def part(self, ids: ArrayLike) -> IntArray:
        ids = self._check_ids(ids)
        return np.searchsorted(self._offsets, ids, side="right") - 1

    def decode(self, ids: ArrayLike) -> tuple[IndexArray, IndexArray]:
        ids = self._check_ids(ids)
        part = self.part(ids)
        a = np.empty(ids.shape, dtype=np.int64)
        b = np.empty(ids.shape, dtype=np.int64)
        for k, space in enumerate(self.spaces):
            m = part == k
            if m.any():
                a[m], b[m] = space.decode(ids[m] - self._offsets[k])
        return a, b


class ChosenSet:
    """Set of chosen pair ids; its size is the budget, not n_pairs.

    Held as a hash table (:attr:`table`, see :mod:`birank._kernels.id_set`)
    that the sampling kernel probes once per draw; the sorted array of
    :meth:`to_array` (for the hard strategies) is built when asked for.

    Parameters
    ----------
    ids : array-like of int, default=()
        Pair ids (>= 0) to start with; duplicates are ignored.

    Examples
    --------
    >>> from birank.pairs import ChosenSet
    >>> chosen = ChosenSet([4, 1, 4])  # duplicates are ignored
    >>> len(chosen), 1 in chosen, 2 in chosen
    (2, True, False)
    >>> chosen.add([2, 1])
    >>> chosen.to_array().tolist(), chosen.contains([0, 2]).tolist()
    ([1, 2, 4], [False, True])
    """

    def __init__(self, ids: ArrayLike = ()) -> None:
        self._parts = [np.empty(0, dtype=np.int64)]
        self._n = 0
        self._table = new_table(8)
        self.add(ids)

    def __len__(self) -> int:
        return self._n

    def __contains__(self, pair_id: object) -> bool:
        try:
            return bool(self.contains(np.array([pair_id]))[0])
        except ValueError:  # not an integer id (1.5, "a"): not in the set, as for a set
            return False

    @property
    def table(self) -> IntArray:
        """The hash table of the ids (read-only use: :meth:`add` may replace it)."""
        return self._table

    def contains(self, ids: ArrayLike) -> NDArray[np.bool_]:
        """Membership of each id.

        Parameters
        ----------
        ids : array-like of int
            Pair ids, of any shape (integers: a float is refused, not truncated).

        Returns
        -------
        mask : ndarray of bool, the shape of ``ids``
            True where the id is in the set (a negative id never is).
        """
        ids = _as_ids(ids, flat=False)
        return table_contains(self._table, np.ascontiguousarray(ids.reshape(-1))).reshape(
            ids.shape)

    def add(self, ids: ArrayLike, *, new: bool = False) -> None:
        """Insert ``ids``; duplicates and already chosen ids are ignored.

        ``new=True`` promises distinct ids not in the set yet (what a sampler
        returns), which skips the sort and the membership test. The table
        doubles when it would be more than half full.

        Parameters
        ----------
        ids : array-like of int, a scalar or 1-D
            Pair ids, integers >= 0 (else a ValueError).
        new : bool, default=False
            The caller promises that ``ids`` are distinct and not in the set yet.
        """
        ids = _as_ids(ids).reshape(-1)
        if ids.size and ids.min() < 0:  # (-1 marks the table's empty slots)
            raise ValueError(f"pair ids are >= 0; got {ids.min()}.")
        if not new:
            ids = np.unique(ids)
            ids = ids[~self.contains(ids)]
        if ids.size == 0:
            return
        self._parts.append(ids)
        self._n += int(ids.size)
        if 2 * self._n > self._table.size:
            self._table = new_table(self._n)
            table_insert(self._table, self.to_array())
        else:
            table_insert(self._table, ids)

    def to_array(self) -> IntArray:
        """The ids, sorted (a new array).

        Returns
        -------
        ids : ndarray of int64 of shape (len(self),)
            The chosen ids in increasing order.
        """
        if len(self._parts) > 1:
            self._parts = [np.sort(np.concatenate(self._parts))]
        return self._parts[0].copy()


def sample_pair_ids(n_pairs: int, size: int, *, random_state: RandomStateLike = None,
                    chosen: ChosenSet | None = None, replace: bool = False) -> IntArray:
    """Uniform pair ids in ``[0, n_pairs)``.

    Parameters
    ----------
    n_pairs : int
    size : int
        Number of ids to return.
    random_state : None, int, numpy Generator or RandomState, default=None
        As :func:`birank._validation.check_random_state` reads it: a Generator
        is drawn from (and advanced) as is, an int seeds a fresh one, so the
        same int gives the same ids.
    chosen : ChosenSet, optional
        Ids to avoid (sampling from the unchosen pool).
    replace : bool, default=False
        With ``replace=False`` the returned ids are distinct and not in ``chosen``.

    Returns
    -------
    ids : ndarray of int64, in draw order.

    Examples
    --------
    >>> import numpy as np
    >>> from birank.pairs import ChosenSet, sample_pair_ids
    >>> rng = np.random.default_rng(0)
    >>> ids = sample_pair_ids(10**6, 5, random_state=rng)
    >>> ids.shape, len(set(ids.tolist()))
    ((5,), 5)
    >>> ids = sample_pair_ids(6, 4, random_state=rng, chosen=ChosenSet([1, 3]))  # all left
    >>> sorted(ids.tolist())
    [0, 2, 4, 5]
    """
    rng = check_random_state(random_state)
    n_pairs = int(n_pairs)
    available = n_pairs - (len(chosen) if chosen is not None else 0)
    if replace:
        if n_pairs == 0 and size:
            raise ValueError("cannot sample from an empty pair space.")
        return rng.integers(0, n_pairs, size=size, dtype=np.int64)
    if size > available:
        raise ValueError(f"cannot sample {size} distinct pairs: only {available} are left.")
    if size > available // 2:  # dense regime: a permutation of what is left is cheaper
        pool = np.arange(n_pairs, dtype=np.int64)
        if chosen is not None and len(chosen):
            pool = pool[~chosen.contains(pool)]
        return rng.permutation(pool)[:size]
    # sparse regime: rounds of 2 x (still missing) + 8 uniform draws; the first
    # occurrences, in draw order, of ids not chosen and not taken yet are kept
    # (hash tables: O(size) memory, no sort of the draws)
    out = np.empty(size, dtype=np.int64)
    n_out = 0
    taken = new_table(size)
    avoid = chosen.table if chosen is not None and len(chosen) else new_table(0)
    while n_out < size:
        draw = rng.integers(0, n_pairs, size=2 * (size - n_out) + 8, dtype=np.int64)
        n_out = take_new(draw, avoid, taken, out, n_out)
    return out
