"""X kept in row blocks on Dask workers, seen by the solvers as a matrix operator.

:class:`DaskRowOperator` is a :class:`birank._linalg.RowOperator`: the
solvers of :mod:`birank.solvers` call ``matvec`` / ``rmatvec`` /
``sq_rmatvec`` on it exactly as on an in-memory matrix, so the distributed fit
runs the same Newton iterations, line searches and stopping tests as the
in-memory one. Per product:

* ``X @ v``: ``v`` (D floats) goes to every block, each block returns its
  scores (8 bytes a row) to the driver;
* ``X' u`` and ``(X o X)' u``: each block receives its slice of ``u`` (8 bytes
  a row) and returns a D-vector; the D-vectors are summed by a tree of fan-in
  ``split_every`` on the workers, one D-vector reaches the driver.

The blocks are persisted once (computed and held by the workers); no row of X
ever leaves its worker. ``bytes_moved`` counts the payload bytes of every
product (vectors, not Dask's own messages), for the cost model of
``docs/distributed.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from .._linalg import RowOperator, grad_diag_rmatvec, matvec, rmatvec, sq_rmatvec

if TYPE_CHECKING:
    from dask.array import Array as DaskArray

    from .._typing import ArrayLike, FloatArray

__all__ = ["DaskRowOperator"]


def _sum_all(*parts):
    out = parts[0].copy()
    for p in parts[1:]:
        out += p
    return out


def _concat(*parts):
    return np.concatenate(parts) if parts else np.zeros(0)


def _grad_diag_block(block, u, D, with_mean):
    """One block's ``(X' u, X' D, (X o X)' D)`` as the rows of one array (the second
    0 without ``with_mean``): one pass over a CSR block, the same bits as its three
    products."""
    if sp.issparse(block) and block.format == "csr":
        G, m, q = grad_diag_rmatvec(block, u, D, with_mean=with_mean)
    else:
        G, m, q = rmatvec(block, u), (rmatvec(block, D) if with_mean else None), \
            sq_rmatvec(block, D)
    return np.stack([G, np.zeros_like(G) if m is None else m, q])


def _client():
    """The current ``distributed`` client, or None (then Dask's local scheduler is used)."""
    try:
        from distributed import default_client
        return default_client()
    except (ImportError, ValueError):
        return None


class DaskRowOperator(RowOperator):
    """Products with a row-chunked dask array whose blocks stay on the workers.

    With a ``distributed`` client the blocks are held as futures and every
    product is one ``client.map`` (plus the reduction tree) and one gather:
    about half the per-product latency of building a ``dask.delayed`` graph
    each time. Without one, the same tasks run as ``dask.delayed`` graphs on
    the local scheduler.

    Parameters
    ----------
    X : dask array of shape (n, d), chunked by rows only, blocks already checked
        (dense float ndarrays or CSR matrices).
    split_every : int, default=8
        Fan-in of the tree that sums the per-block D-vectors.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from birank.distributed import DaskRowOperator
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [0.0, 0.0]])
    >>> op = DaskRowOperator(da.from_array(X, chunks=(2, 2)))  # no client: local scheduler
    >>> op.n_blocks, op.shape
    (2, (4, 2))
    >>> op.matvec([1.0, 2.0]).tolist(), op.rmatvec([1.0, 1.0, 1.0, 1.0]).tolist()
    ([1.0, 2.0, 4.0, 0.0], [3.0, 2.0])
    >>> op.n_products
    2
    """

    def __init__(self, X: DaskArray, *, split_every: int = 8) -> None:
        self.client = _client()
        blocks = list(X.to_delayed().reshape(-1))
        if self.client is not None:
            # every block computed once and kept, as a future, where it was computed
            self.blocks = self.client.compute(blocks)
        else:
            self.blocks = list(X.persist().to_delayed().reshape(-1))
        self.bounds = np.concatenate(([0], np.cumsum(X.chunks[0]))).astype(np.int64)
        self.shape = tuple(int(k) for k in X.shape)
        self.split_every = int(split_every)
        self.bytes_moved = 0  # payload bytes of all products so far
        self.n_products = 0

    @property
    def n_blocks(self) -> int:
        return len(self.blocks)

    def _run(self, func, args, reduce):
        """``reduce`` of ``func(block_k, args_k)`` over the blocks, computed on the cluster."""
        k = self.split_every
        if self.client is not None:
            c = self.client
            parts = c.map(func, self.blocks, *zip(*args), pure=False)
            if reduce is _concat:
                return np.concatenate(c.gather(parts)) if parts else np.zeros(0)
            while len(parts) > 1:
                parts = [c.submit(reduce, *parts[i:i + k], pure=False)
                         for i in range(0, len(parts), k)]
            return parts[0].result()
        from dask import compute, delayed

        parts = [delayed(func)(b, *a) for b, a in zip(self.blocks, args)]
        if reduce is _concat:
            return _concat(*compute(*parts))
        while len(parts) > 1:
            parts = [delayed(reduce)(*parts[i:i + k]) for i in range(0, len(parts), k)]
        return parts[0].compute()

    def matvec(self, v: ArrayLike) -> FloatArray:
        v = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
        out = self._run(matvec, [(v,)] * self.n_blocks, _concat)
        self.n_products += 1
        self.bytes_moved += v.nbytes * self.n_blocks + 8 * self.shape[0]
        return out

    def _reduce(self, func, u):
        u = np.ascontiguousarray(u, dtype=np.float64).reshape(-1)
        b = self.bounds
        out = self._run(func, [(u[b[k]:b[k + 1]],) for k in range(self.n_blocks)], _sum_all)
        self.n_products += 1
        # u's slices out, one D-vector per block into the tree
        self.bytes_moved += u.nbytes + 8 * self.shape[1] * self.n_blocks
        return out

    def rmatvec(self, u: ArrayLike) -> FloatArray:
        return self._reduce(rmatvec, u)

    def sq_rmatvec(self, u: ArrayLike) -> FloatArray:
        return self._reduce(sq_rmatvec, u)

    def grad_diag(self, u: ArrayLike, D: ArrayLike, *,
                  with_mean: bool = True) -> tuple[FloatArray, FloatArray | None, FloatArray]:
        """``(X' u, X' D, (X o X)' D)`` in one round trip: each block receives its
        slices of u and D and returns the three D-vectors as one array, summed by
        the same tree (the same bits as the three products, a third of the trips).

        Parameters
        ----------
        u : array-like of shape (n_samples,)
            Per-row coefficients of the gradient product.
        D : array-like of shape (n_samples,)
            Per-row weights of the diagonal (preconditioner) products.
        with_mean : bool, default=True
            Also compute ``X' D``.

        Returns
        -------
        G : ndarray of shape (n_features,)
            ``X' u``.
        m : ndarray of shape (n_features,) or None
            ``X' D``; None without ``with_mean``.
        q : ndarray of shape (n_features,)
            ``(X o X)' D``.
        """
        u = np.ascontiguousarray(u, dtype=np.float64).reshape(-1)
        D = np.ascontiguousarray(D, dtype=np.float64).reshape(-1)
        b = self.bounds
        out = self._run(_grad_diag_block, [(u[b[k]:b[k + 1]], D[b[k]:b[k + 1]], with_mean)
                                           for k in range(self.n_blocks)], _sum_all)
        self.n_products += 1
        self.bytes_moved += u.nbytes + D.nbytes + 3 * 8 * self.shape[1] * self.n_blocks
        return out[0], (out[1] if with_mean else None), out[2]
