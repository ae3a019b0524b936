"""Pair moments of the pairwise squared loss, all pairs or sampled (gultekin-paisley).

For bipartite pairs ``z = x_i - x_j`` (i positive, j negative) the pairwise squared
loss ``1/2 (1 - w.z)^2`` averaged over a set of pairs is

    R(w) = 1/2 - mu'w + 1/2 w' Sigma w,   mu = mean(z),  Sigma = mean(z z').

**All N1*N0 pairs** (gultekin-paisley Sec. 1, Alg. 1). With class counts ``N_c``,
means ``m_c`` and second moments ``E_c[xx'] = X_c'X_c / N_c``,

    (1/(N1 N0)) sum_ij x_i x_j' = m1 m0',   so
    Sigma_N = E1[xx'] + E0[xx'] - m1 m0' - m0 m1'
            = C1 + C0 + (m1 - m0)(m1 - m0)',   mu_N = m1 - m0,

where ``C_c = E_c[xx'] - m_c m_c'`` is the (biased, 1/N_c) class covariance. The
second form is what we compute: it needs centred class scatters only, which merge
across chunks exactly (Chan et al.'s pairwise update), and it does not cancel
``m1 m0'`` against ``E[xx']`` when the data sit far from the origin. The paper's
normalization (the 1/(N1 N0) of Alg. 1, lines 5-6) is the one used throughout, so
``radius`` means the same for BBR and LCBR.

For sparse, high-dimensional X, Sigma is never formed: :class:`AllPairsOperator`
applies it as ``X1'(X1 v)/N1 - m1 (m1.v) + X0'(X0 v)/N0 - m0 (m0.v) + mu (mu.v)``
in O(nnz + D).

**Sampled pairs** (Alg. 2): S index pairs drawn uniformly with replacement;
``Sigma_S v = (1/S) Z'(Z v)`` with ``Z v = (X v)[a] - (X v)[b]`` and
``Z'u = X'(bincount(a, u) - bincount(b, u))``, again O(nnz + S).

Note: ``mu`` always lies in the range of ``Sigma`` (``Sigma >= mu mu'`` for all pairs;
``mu_S`` is an average of the ``z_s`` spanning ``range(Sigma_S)``), so the quadratic
is bounded below on every direction where it is flat; the solvers rely on this.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from .._linalg import matvec, rmatvec, sq_rmatvec
from .._kernels.pair_moments import (
    class_scatter_csr,
    naive_pair_moments_csr,
    naive_pair_moments_dense,
    sampled_pair_sums_csr,
    sampled_pair_sums_dense,
    two_class_moments_dense,
)

__all__ = [
    "ClassMoments",
    "update_class_moments",
    "all_pairs_moments",
    "naive_pair_moments",
    "draw_pairs",
    "sampled_pair_sums",
    "AllPairsOperator",
    "SampledPairsOperator",
]


def _rows(y01, label):
    return np.flatnonzero(y01 == label).astype(np.int64)


class ClassMoments:
    """Count, mean and centred scatter ``M2 = sum (x - m)(x - m)'`` of one class.

    Chunks merge exactly (up to rounding) with Chan et al.'s update, so moments
    accumulated over a stream equal the one-shot moments.
    """

    def __init__(self, n_features):
        self.n = 0
        self.mean = np.zeros(n_features)
        self.m2 = np.zeros((n_features, n_features))

    def update(self, X, rows):
        """Add rows ``rows`` of X (dense ndarray or CSR)."""
        nb = rows.shape[0]
        if nb == 0:
            return self
        if sp.issparse(X):
            sx, sxx = class_scatter_csr(X.data, X.indices, X.indptr, X.shape[1], rows)
            mb = sx / nb
            m2b = sxx - nb * np.outer(mb, mb)
        else:
            Xb = X[rows]
            mb = Xb.mean(axis=0)
            Xc = Xb - mb
            m2b = Xc.T @ Xc
        return self.merge(nb, mb, m2b)

    def merge(self, nb, mb, m2b):
        """Merge another batch given by its count, mean and centred scatter."""
        if nb == 0:
            return self
        na = self.n
        n = na + nb
        delta = mb - self.mean
        # Chan, Golub & LeVeque pairwise update of the centred scatter
        self.m2 = self.m2 + m2b + (na * nb / n) * np.outer(delta, delta)
        self.mean = self.mean + delta * (nb / n)
        self.n = n
        return self


#: dense X with at most this many features: one numba pass for both classes
SMALL_DENSE_FEATURES = 32


def update_class_moments(pos, neg, X, y01):
    """Add a chunk (X, y01) to the positive and negative :class:`ClassMoments`."""
    if not sp.issparse(X) and X.shape[1] <= SMALL_DENSE_FEATURES:
        counts, means, m2 = two_class_moments_dense(X, y01)
        pos.merge(int(counts[1]), means[1], m2[1])
        neg.merge(int(counts[0]), means[0], m2[0])
        return pos, neg
    pos.update(X, np.flatnonzero(y01 == 1).astype(np.int64))
    neg.update(X, np.flatnonzero(y01 == 0).astype(np.int64))
    return pos, neg


def all_pairs_moments(pos, neg):
    """``(mu_N, Sigma_N)`` over all N1*N0 pairs from two :class:`ClassMoments`.

    ``Sigma_N = C1 + C0 + mu mu'`` (see the module docstring for the derivation of
    this form from gultekin-paisley Alg. 1, lines 5-6).
    """
    mu = pos.mean - neg.mean
    sigma = pos.m2 / pos.n + neg.m2 / neg.n + np.outer(mu, mu)
    return mu, 0.5 * (sigma + sigma.T)


def naive_pair_moments(X, y01):
    """Oracle: gultekin-paisley Algorithm 1 as printed, enumerating every pair.

    O(N1 N0 D^2) time; for tests on small data and the speed reference only.
    """
    pos, neg = _rows(y01, 1), _rows(y01, 0)
    if sp.issparse(X):
        return naive_pair_moments_csr(X.data, X.indices, X.indptr, X.shape[1], pos, neg)
    return naive_pair_moments_dense(X, pos, neg)


def draw_pairs(rng, pos_rows, neg_rows, n_pairs):
    """Draw ``n_pairs`` (positive, negative) row pairs uniformly with replacement.

    Uniform over the N1*N0 pairs = independent uniform positive and negative index
    (gultekin-paisley Alg. 2, line 4). Returns global row arrays ``(a, b)``.
    """
    i = rng.integers(0, pos_rows.shape[0], size=n_pairs)
    j = rng.integers(0, neg_rows.shape[0], size=n_pairs)
    return pos_rows[i], neg_rows[j]


def sampled_pair_sums(X, a_rows, b_rows):
    """``(sum_s z_s, sum_s z_s z_s')`` over the listed pairs (Alg. 2, lines 5-6 times S)."""
    if sp.issparse(X):
        return sampled_pair_sums_csr(X.data, X.indices, X.indptr, X.shape[1], a_rows, b_rows)
    return sampled_pair_sums_dense(X, a_rows, b_rows)


class AllPairsOperator(LinearOperator):
    """Sigma_N over all pairs as an implicit operator: O(nnz) per product, no copy of X.

    Parameters
    ----------
    chunks : list of (X, y01)
        Each chunk's matrix (dense or CSR, float64 or float32) and its {0, 1}
        labels; chunks of a stream are kept as they came. Class rows are never
        copied out: with the row weights ``c_i = y_i / N1 + (1 - y_i) / N0`` the
        two class Gram terms are one product ``X' (c o (X v))``.
    n_features : int
    """

    def __init__(self, chunks, n_features):
        self.chunks = chunks
        self.n1 = sum(int(np.count_nonzero(y)) for _, y in chunks)
        self.n0 = sum(int(y.shape[0]) for _, y in chunks) - self.n1
        s1, s0 = np.zeros(n_features), np.zeros(n_features)
        for X, y in chunks:
            pos = (y != 0).astype(np.float64)
            s1 += rmatvec(X, pos)
            s0 += rmatvec(X, 1.0 - pos)
        self.m1, self.m0 = s1 / self.n1, s0 / self.n0
        self.mu = self.m1 - self.m0
        super().__init__(dtype=np.float64, shape=(n_features, n_features))

    def _row_weights(self, y):
        return np.where(y != 0, 1.0 / self.n1, 1.0 / self.n0)

    def _matvec(self, v):
        v = np.asarray(v, dtype=np.float64).ravel()
        # X1'(X1 v)/N1 + X0'(X0 v)/N0 - m1 (m1.v) - m0 (m0.v) + mu (mu.v)
        out = np.zeros(self.shape[0])
        for X, y in self.chunks:
            out += rmatvec(X, self._row_weights(y) * matvec(X, v))
        out -= self.m1 * (self.m1 @ v) + self.m0 * (self.m0 @ v)
        out += self.mu * (self.mu @ v)
        return out

    def _rmatvec(self, v):
        return self._matvec(v)

    def diagonal(self):
        """diag(Sigma_N) = sum_c (mean x_k^2 - m_ck^2) + mu_k^2, in O(nnz)."""
        d = np.zeros(self.shape[0])
        for X, y in self.chunks:
            d += sq_rmatvec(X, self._row_weights(y))
        return d - self.m1 ** 2 - self.m0 ** 2 + self.mu ** 2

    def trace(self):
        """trace(Sigma_N) = sum_c (mean |x|^2 - |m_c|^2) + |mu|^2, in O(nnz)."""
        t = float(self.diagonal().sum())
        return t


class SampledPairsOperator(LinearOperator):
    """Sigma_S over explicitly sampled pairs, implicit: O(nnz + S) per product.

    Parameters
    ----------
    chunks : list of (X, a_rows, b_rows)
        Each chunk's matrix and the global row indices of its sampled pairs.
    """

    def __init__(self, chunks, n_features):
        self.chunks = chunks
        self.n_pairs = sum(a.shape[0] for _, a, _ in chunks)
        s = np.zeros(n_features)
        for X, a, b in chunks:
            s += self._zt(X, a, b, np.ones(a.shape[0]))
        self.mu = s / self.n_pairs
        super().__init__(dtype=np.float64, shape=(n_features, n_features))

    @staticmethod
    def _zt(X, a, b, u):
        n = X.shape[0]
        c = np.bincount(a, weights=u, minlength=n) - np.bincount(b, weights=u, minlength=n)
        return rmatvec(X, c)

    def _matvec(self, v):
        v = np.asarray(v, dtype=np.float64).ravel()
        out = np.zeros(self.shape[0])
        for X, a, b in self.chunks:
            xv = matvec(X, v)
            out += self._zt(X, a, b, xv[a] - xv[b])
        return out / self.n_pairs

    def _rmatvec(self, v):
        return self._matvec(v)

    def diagonal(self):
        """diag(Sigma_S) = mean_s z_sk^2, from squared entries and one product per pair."""
        d = np.zeros(self.shape[0])
        for X, a, b in self.chunks:
            n = X.shape[0]
            cnt = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
            d += sq_rmatvec(X, cnt.astype(np.float64))
            prod = X[a].multiply(X[b]) if sp.issparse(X) else X[a] * X[b]
            d -= 2.0 * np.asarray(prod.sum(axis=0)).ravel()
        return d / self.n_pairs

    def trace(self):
        """trace(Sigma_S) = mean |z_s|^2, the sum of :meth:`diagonal`."""
        return float(self.diagonal().sum())
