"""Products of a data matrix with vectors that never copy the matrix.

scipy.sparse computes ``X @ v`` for float32 ``X`` and float64 ``v`` by first
casting all of ``X.data`` to float64: a hidden copy as large as X itself. At
url scale (2.4e6 rows, 115 non-zeros each) that copy alone doubles the memory
of a fit, so CSR matrices go through the compiled loops of
:mod:`birank._kernels.blocked_products` (one block: all rows), which read
float32 as it is and accumulate in float64. For float64 they sum in scipy's
order, so the results are scipy's bit for bit, and they are faster: unsigned
indices spare numba's negative-index test, ``X' u`` builds no transposed
matrix object (scipy does, checking its indices, on every call: 9% of a
RankSVM fit on MQ2008) and skips the rows where ``u`` is 0 (the inactive rows
of a squared-hinge Hessian product). Dense float64 arrays use numpy; dense
float32 ones the loops of :mod:`birank._kernels.dense_products` (numpy would cast all
of X to float64 on every product), which read float32 and sum in float64.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._kernels.dense_products import dense_sq_rmatvec, f32_matvec, f32_rmatvec
from ._dots import dot, norm
from ._kernels.blocked_products import csr_grad_diag_block, csr_matvec_block, csr_rmatvec_block
from ._kernels.dual_cd import all_ones

__all__ = ["RowOperator", "matvec", "rmatvec", "sq_rmatvec", "grad_diag_rmatvec", "dot", "norm",
           "is_indicator"]


class RowOperator:
    """A data matrix the solvers only touch through products (its rows live elsewhere).

    A subclass has ``shape`` and the three products below; the functions of
    this module hand them to it, so every solver written against ``matvec`` /
    ``rmatvec`` / ``sq_rmatvec`` runs unchanged on it (``birank.distributed``
    keeps the row blocks on Dask workers this way).
    """

    shape: tuple

    def matvec(self, v):  # pragma: no cover - interface
        """``X @ v`` as a 1-D float64 array."""
        raise NotImplementedError

    def rmatvec(self, u):  # pragma: no cover - interface
        """``X.T @ u`` as a 1-D float64 array."""
        raise NotImplementedError

    def sq_rmatvec(self, u):  # pragma: no cover - interface
        """``(X o X).T @ u``."""
        raise NotImplementedError

    def grad_diag(self, u, D, *, with_mean=True):
        """``(X' u, X' D, (X o X)' D)`` (the second None without ``with_mean``): a
        Newton step's gradient and preconditioner products at one point. Here the
        three products; an operator whose every product is a round trip does them in one.
        """
        return self.rmatvec(u), (self.rmatvec(D) if with_mean else None), self.sq_rmatvec(D)


def _is_csr(X):
    return sp.issparse(X) and X.format == "csr"


def _f32_rows(X):
    """``(rows, transposed)`` of a 2-D float32 ndarray that is C- or F-contiguous
    (``rows``: C-contiguous, X or X.T), else None: its products go through
    :mod:`birank._kernels.dense_products`, not numpy (no float64 copy of X)."""
    if not (isinstance(X, np.ndarray) and X.dtype == np.float32 and X.ndim == 2):
        return None
    if X.flags.c_contiguous:
        return X, False
    if X.flags.f_contiguous:
        return X.T, True
    return None


def matvec(X, v, n_jobs=None, *, indicator=False):
    """``X @ v`` as a 1-D float64 array, without copying X.

    ``n_jobs`` (CSR X): threads over row blocks (:mod:`birank._parallel`); each
    row's sum is formed by one thread in the same order, so the same bits.
    ``indicator``: the caller knows every stored value of a CSR X is 1
    (:func:`is_indicator`); they are then not read (the same bits, faster).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]], dtype=np.float32))
    >>> matvec(X, np.array([1.0, 1.0])).tolist()
    [3.0, 3.0]
    """
    v = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
    if isinstance(X, RowOperator):
        return X.matvec(v)
    if _is_csr(X):
        if n_jobs is not None:
            from ._parallel import BlockedProducts

            products = BlockedProducts(X, n_jobs, indicator=indicator)
            try:
                return products.matvec(v)
            finally:
                products.close()
        out = np.empty(X.shape[0])
        csr_matvec_block(None if indicator else X.data, X.indices, X.indptr, v, out, 0,
                         X.shape[0])
        return out
    f32 = _f32_rows(X)
    if f32 is not None:
        rows, transposed = f32
        return (f32_rmatvec(rows, v, np.empty(X.shape[0])) if transposed
                else f32_matvec(rows, v, np.empty(X.shape[0])))
    return np.asarray(X @ v, dtype=np.float64).reshape(-1)


def is_indicator(X):
    """True for a float64 CSR matrix whose stored values are all 1 (0/1 features).

    One pass over the values (:func:`birank._kernels.dual_cd.all_ones`, no
    temporary): a solver checks once and passes ``indicator=True`` to its
    products.
    """
    return bool(_is_csr(X) and X.dtype == np.float64 and X.nnz
                and all_ones(np.ascontiguousarray(X.data)))


def rmatvec(X, u, *, indicator=False):
    """``X.T @ u`` as a 1-D float64 array, without copying X (``indicator``: as
    :func:`matvec`).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]], dtype=np.float32))
    >>> rmatvec(X, np.array([1.0, 1.0])).tolist()
    [1.0, 5.0]
    """
    u = np.ascontiguousarray(u, dtype=np.float64).reshape(-1)
    if isinstance(X, RowOperator):
        return X.rmatvec(u)
    if _is_csr(X):
        out = np.empty(X.shape[1])
        csr_rmatvec_block(None if indicator else X.data, X.indices, X.indptr, u, out, 0,
                          X.shape[0], False)
        return out
    f32 = _f32_rows(X)
    if f32 is not None:
        rows, transposed = f32
        return (f32_matvec(rows, u, np.empty(X.shape[1])) if transposed
                else f32_rmatvec(rows, u, np.empty(X.shape[1])))
    return np.asarray(X.T @ u, dtype=np.float64).reshape(-1)


def sq_rmatvec(X, u, *, indicator=False):
    """``(X o X).T @ u`` (elementwise square), without forming ``X o X`` (``indicator``:
    as :func:`matvec`)."""
    u = np.ascontiguousarray(u, dtype=np.float64).reshape(-1)
    if isinstance(X, RowOperator):
        return X.sq_rmatvec(u)
    if sp.issparse(X):
        X = X.tocsr()
        out = np.empty(X.shape[1])
        csr_rmatvec_block(None if indicator else X.data, X.indices, X.indptr, u, out, 0,
                          X.shape[0], True)
        return out
    f32 = _f32_rows(X)
    if f32 is not None and not f32[1]:
        return dense_sq_rmatvec(f32[0], u, np.empty(X.shape[1]))
    return np.einsum("ij,ij,i->j", X, X, u)


def grad_diag_rmatvec(X, u, D, *, with_mean=True, indicator=False):
    """``(X' u, X' D, (X o X)' D)`` of a CSR X in one pass over it (the second None
    without ``with_mean``), the same bits as :func:`rmatvec` and :func:`sq_rmatvec`
    (:func:`birank._kernels.blocked_products.csr_grad_diag_block`; ``indicator``: as
    :func:`matvec`).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> [v.tolist() for v in grad_diag_rmatvec(X, np.array([1.0, 0.0]), np.array([1.0, 1.0]))]
    [[1.0, 2.0], [1.0, 5.0], [1.0, 13.0]]
    """
    if not _is_csr(X):
        raise TypeError("grad_diag_rmatvec takes a CSR matrix")
    u = np.ascontiguousarray(u, dtype=np.float64).reshape(-1)
    D = np.ascontiguousarray(D, dtype=np.float64).reshape(-1)
    out = np.empty((X.shape[1], 3))
    csr_grad_diag_block(None if indicator else X.data, X.indices, X.indptr, u, D, out, 0,
                        X.shape[0], with_mean)
    return split_grad_diag(out, with_mean)


def split_grad_diag(out, with_mean):
    """The three columns of a :func:`csr_grad_diag_block` result as contiguous arrays."""
    return (np.ascontiguousarray(out[:, 0]),
            np.ascontiguousarray(out[:, 1]) if with_mean else None,
            np.ascontiguousarray(out[:, 2]))
