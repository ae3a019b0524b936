"""The engine behind :mod:`birank.distributed`: map per block, combine, finalize.

Every distributed computation here is written against four operations on a
row-chunked matrix and its labels:

* ``map_combine(func, combine, *arrays)``: apply ``func`` to each row block
  (where the block lives) and merge the partial results pairwise in a tree
  of fan-in ``split_every``; only the small per-block statistics travel;
* ``take_rows(X, rows)``: gather listed rows (each block returns its own);
* ``map_rows(func, X)``: a per-row result (scores), left distributed;
* ``map_buckets(split, combine, reduce, a)``: shuffle the rows into buckets
  and reduce each bucket in one task (the exact metrics' sample sort).

:class:`DaskEngine` implements them with ``dask.delayed`` on the blocks of a
``dask.array`` (dense or ``scipy.sparse`` blocks). Another engine (Ray,
Spark, MPI) only has to provide the same four operations.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from dask.array import Array as DaskArray
    from dask.delayed import Delayed
    from numpy.typing import DTypeLike

    from .._typing import ArrayLike, Matrix, MatrixLike, NDArray

    T = TypeVar("T")

__all__ = ["DaskEngine", "as_dask_rows"]


def _require_dask():
    try:
        import dask  # noqa: F401
        import dask.array  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("birank.distributed needs Dask: pip install 'birank[dask]'.") from exc


def as_dask_rows(X: MatrixLike | DaskArray, *, name: str = "X") -> DaskArray:
    """``X`` as a dask array chunked by rows only (one block per row range).

    A numpy array or scipy.sparse matrix is wrapped without copying (its blocks
    are row slices); a dask array chunked along columns is rechunked.

    Parameters
    ----------
    X : array-like, scipy.sparse matrix or dask array
        A dask array is returned as is (rechunked to one column block when it
        is 2-D and split along columns). A scipy.sparse matrix becomes a CSR
        matrix in one block; anything else is read with ``numpy.asarray``
        and must be 1-D or 2-D (one block).
    name : str, default="X"
        Name of the input in the error raised when it is neither 1-D nor 2-D.

    Returns
    -------
    X : dask array
        Chunked by rows only.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from birank.distributed import as_dask_rows
    >>> X = np.arange(8.0).reshape(4, 2)
    >>> as_dask_rows(X).chunks
    ((4,), (2,))
    >>> as_dask_rows(da.from_array(X, chunks=(2, 1))).chunks  # column blocks joined
    ((2, 2), (2,))
    """
    _require_dask()
    import dask.array as da

    if isinstance(X, da.Array):
        if X.ndim == 2 and X.numblocks[1] != 1:
            X = X.rechunk({1: X.shape[1]})
        return X
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return da.from_array(X, chunks=(max(1, X.shape[0]), X.shape[1]), asarray=False)
    arr = np.asarray(X)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D; got shape {arr.shape}.")
    return da.from_array(arr, chunks=arr.shape)


def _combine_all(combine, parts):
    out = parts[0]
    for p in parts[1:]:
        out = combine(out, p)
    return out


def _transpose(*lists):
    # lists[i][j]: piece j of block i -> per bucket j, the list of its pieces
    return [list(col) for col in zip(*lists)]


def _reduce_lists(reduce, b, *lists):
    return reduce(b, *[p for lst in lists for p in lst])


class DaskEngine:
    """Map / combine / finalize over the row blocks of dask arrays.

    Parameters
    ----------
    split_every : int, default=8
        Fan-in of the combine tree.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from birank.distributed import DaskEngine
    >>> engine = DaskEngine(split_every=2)
    >>> X = da.from_array(np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [0.0, 0.0]]),
    ...                   chunks=(2, 2))
    >>> engine.map_combine(lambda block: block.sum(axis=0), np.add, X).tolist()  # column sums
    [3.0, 2.0]
    >>> engine.take_rows(X, [0, 3]).tolist()
    [[1.0, 0.0], [0.0, 0.0]]
    """

    #: set by ``birank.distributed.fit`` on a RankSVM: the products with X and the bytes moved
    last_fit_stats: dict[str, Any]

    def __init__(self, split_every: int = 8) -> None:
        if not (isinstance(split_every, int) and split_every >= 2):
            raise ValueError(f"split_every must be an int >= 2; got {split_every!r}.")
        self.split_every = split_every

    @staticmethod
    def blocks(*arrays: DaskArray) -> list[list[Delayed]]:
        """Delayed row blocks of each array, checked to share the same row chunks.

        Parameters
        ----------
        *arrays : dask arrays
            Chunked by rows only (one block per row range), all with the row
            chunks of the first (else a ValueError).

        Returns
        -------
        blocks : list of lists of dask.delayed.Delayed
            ``blocks[i][k]`` is block ``k`` of ``arrays[i]``.
        """
        rows = arrays[0].chunks[0]
        out = []
        for a in arrays:
            if a.chunks[0] != rows:
                raise ValueError("X and y must have the same row chunks; got "
                                 f"{rows} and {a.chunks[0]}.")
            out.append(list(a.to_delayed().reshape(-1)))
        return out

    def map_combine(self, func: Callable[..., T], combine: Callable[[T, T], T], *arrays: DaskArray,
                    args: tuple[Any, ...] = ()) -> T:
        """``combine`` of ``func(block_1, block_2, ..., *args)`` over all row blocks.

        Parameters
        ----------
        func : callable
            ``func(block of arrays[0], block of arrays[1], ..., *args)``: the
            statistic of one row range, computed where the blocks live.
        combine : callable
            ``combine(a, b)`` merges two partial results (associative); applied
            in a tree of fan-in ``split_every``.
        *arrays : dask arrays
            With the same row chunks (see :meth:`blocks`).
        args : tuple, default=()
            Further arguments of every ``func`` call (small: sent to each task).

        Returns
        -------
        result
            The combined statistic, computed (on this process).
        """
        from dask import delayed

        parts = [delayed(func)(*blk, *args) for blk in zip(*self.blocks(*arrays))]
        while len(parts) > 1:  # tree reduction: partial results only
            k = self.split_every
            parts = [delayed(_combine_all)(combine, parts[i:i + k])
                     for i in range(0, len(parts), k)]
        return parts[0].compute()

    def map_buckets(self, split: Callable[..., tuple[Any, Any]], combine: Callable[[Any, Any], Any],
                    reduce: Callable[..., Any], a: DaskArray, *, n_buckets: int,
                    args: tuple[Any, ...] = ()) -> tuple[Any, list[Any]]:
        """Shuffle the rows of ``a`` into ``n_buckets`` buckets and reduce each bucket in one task.

        ``split(block, *args)`` returns ``(stat, pieces)``: a small statistic of
        the block, merged with ``combine`` in a tree of fan-in ``split_every``
        (as :meth:`map_combine`), and ``n_buckets`` pieces of the block, piece
        ``b`` going to bucket ``b``. ``reduce(b, piece_1, ..., piece_B)`` then
        gets the pieces of bucket ``b`` from all ``B`` blocks. The pieces move in
        two stages (``sqrt(B)`` blocks' pieces of ``sqrt(n_buckets)`` buckets
        meet first): ``O(B^1.5 + n_buckets^1.5)`` small tasks, each row moved
        twice; a task holds about one block or one bucket.

        Parameters
        ----------
        split : callable
            ``split(block, *args) -> (stat, pieces)``, ``len(pieces) == n_buckets``.
        combine : callable
            ``combine(stat_1, stat_2)`` (associative).
        reduce : callable
            ``reduce(b, *pieces)``: the result of bucket ``b``.
        a : dask array
            Chunked by rows only.
        n_buckets : int
            The number of buckets (0 allowed: the statistics only).
        args : tuple, default=()
            Further arguments of every ``split`` call (sent once).

        Returns
        -------
        stat, results
            The combined statistic and the list of the ``n_buckets`` results,
            computed together.
        """
        from dask import compute, delayed

        shared = [delayed(x) for x in args]  # (one key each, not one copy a task)
        outs = [delayed(split, nout=2)(blk, *shared) for blk in a.to_delayed().reshape(-1)]
        stats = [o[0] for o in outs]
        while len(stats) > 1:
            k = self.split_every
            stats = [delayed(_combine_all)(combine, stats[i:i + k])
                     for i in range(0, len(stats), k)]
        # a two-stage shuffle: ~sqrt(B) blocks x ~sqrt(n_buckets) buckets meet in one task
        # first, so that B^1.5 + n_buckets^1.5 small tasks move the pieces (not B x n_buckets)
        g = max(1, math.isqrt(len(outs)))
        h = max(1, math.isqrt(n_buckets))
        results = []
        for j0 in range(0, n_buckets, h):
            stage = [delayed(_transpose)(*[o[1][j0:j0 + h] for o in outs[i0:i0 + g]])
                     for i0 in range(0, len(outs), g)]
            results += [delayed(_reduce_lists)(reduce, b, *[s[b - j0] for s in stage])
                        for b in range(j0, min(j0 + h, n_buckets))]
        stat, got = compute(stats[0], results)
        return stat, list(got)

    @staticmethod
    def take_rows(X: DaskArray, rows: ArrayLike) -> Matrix:
        """Rows ``rows`` (sorted, unique) of X gathered to this process, in that order.

        Parameters
        ----------
        X : dask array of shape (n_samples, n_features)
            Chunked by rows only, dense or scipy.sparse blocks.
        rows : array-like of int
            Row indices, sorted and unique; at least one (else a ValueError).

        Returns
        -------
        R : ndarray or scipy.sparse.csr_matrix of shape (len(rows), n_features)
            Dense if the blocks are dense, else CSR.
        """
        rows = np.asarray(rows, dtype=np.int64)
        bounds = np.concatenate(([0], np.cumsum(X.chunks[0])))
        blocks = list(X.to_delayed().reshape(-1))
        from dask import compute, delayed

        def take(block, local):
            return block[local]

        pieces = []
        for k, blk in enumerate(blocks):
            lo, hi = np.searchsorted(rows, [bounds[k], bounds[k + 1]])
            if hi > lo:
                pieces.append(delayed(take)(blk, rows[lo:hi] - bounds[k]))
        got = compute(*pieces)
        if not got:
            raise ValueError("take_rows: no rows requested.")
        return sp.vstack(got, format="csr") if sp.issparse(got[0]) else np.concatenate(got)

    @staticmethod
    def map_rows(func: Callable[[Any], NDArray[Any]], X: DaskArray, *,
                 dtype: DTypeLike = np.float64) -> DaskArray:
        """A 1-D dask array of ``func(block)`` (one value per row), not computed.

        Parameters
        ----------
        func : callable
            ``func(block)`` returns a 1-D array with one value per row of the block.
        X : dask array of shape (n_samples, n_features)
            Chunked by rows only.
        dtype : numpy dtype, default=numpy.float64
            The dtype of ``func``'s output.

        Returns
        -------
        values : dask array of shape (n_samples,)
            Lazy, with X's row chunks.
        """
        return X.map_blocks(func, drop_axis=1, dtype=dtype,
                            meta=np.empty((0,), dtype=dtype))
