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

For sparse, high-dimensional X, Sigma is never formed as a dense D x D matrix:
each class keeps ``X_c'X_c`` (:class:`ClassGram`) as a sparse Gram matrix
``G_c`` summed chunk by chunk (size bounded by feature co-occurrence, at most
D^2, not by N) or, when that matrix would hold more numbers than the rows
(high-dimensional text), as the rows themselves; :class:`GramPairsOperator`
applies Sigma as ``G1 v/N1 - m1 (m1.v) + G0 v/N0 - m0 (m0.v) + mu (mu.v)``.

**Sampled pairs** (Alg. 2): S index pairs drawn uniformly with replacement;
``Sigma_S = (1/S) Z'Z`` over the sampled rows ``z_s = x_a - x_b``, kept as the
Gram matrix of the z_s (:class:`ClassGram` again) and applied by
:class:`SecondMomentOperator`.

**Sample weights** act as repetitions: a row of weight k counts as k copies.
Class counts become weight sums, means and scatters weighted ones, and pairs
(i, j) weigh ``w_i w_j`` (LCBR draws each end with probability proportional to
its weight).

Note: ``mu`` always lies in the range of ``Sigma`` (``Sigma >= mu mu'`` for all pairs;
``mu_S`` is an average of the ``z_s`` spanning ``range(Sigma_S)``), so the quadratic
is bounded below on every direction where it is flat; the solvers rely on this.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from .._kernels.pair_sweep_ops import csr_gram_matvec, csr_rows_gram_matvec, csr_rows_sq_sum
from .._linalg import dot, rmatvec, sq_rmatvec
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
    "draw_weighted_pairs",
    "pair_rows",
    "sampled_pair_sums",
    "ClassGram",
    "GramPairsOperator",
    "SecondMomentOperator",
    "densify_pays",
]


def _rows(y01, label):
    return np.flatnonzero(y01 == label).astype(np.int64)


#: bytes of X read per block by the class scatters (dense rows, or CSR entries)
SCATTER_BLOCK_BYTES = 8 << 20


def _row_blocks(X, rows):
    """``rows`` cut into consecutive blocks of about ``SCATTER_BLOCK_BYTES`` of X each
    (one block when they all fit: the same arithmetic as the rows at once)."""
    if sp.issparse(X):
        # by stored entries (value + index) of the rows, at least one row per block
        per_entry = X.data.itemsize + X.indices.itemsize
        ends = np.cumsum(np.diff(X.indptr)[rows] * per_entry + 1)
        cuts = np.searchsorted(ends, np.arange(SCATTER_BLOCK_BYTES, ends[-1],
                                               SCATTER_BLOCK_BYTES), side="right")
        cuts = np.unique(cuts[(cuts > 0) & (cuts < rows.shape[0])])
        return np.split(rows, cuts)
    step = max(1, SCATTER_BLOCK_BYTES // max(1, X.shape[1] * X.itemsize))
    return [rows[i:i + step] for i in range(0, rows.shape[0], step)]


class ClassMoments:
    """Count, mean and centred scatter ``M2 = sum (x - m)(x - m)'`` of one class.

    Chunks merge exactly (up to rounding) with Chan et al.'s update, so moments
    accumulated over a stream equal the one-shot moments.
    """

    def __init__(self, n_features):
        self.n = 0
        self.mean = np.zeros(n_features)
        self.m2 = np.zeros((n_features, n_features))

    def update(self, X, rows, weights=None):
        """Add rows ``rows`` of X (dense ndarray or CSR), with optional positive weights."""
        if rows.shape[0] == 0:
            return self
        if weights is not None:
            return self._update_weighted(X, rows, weights)
        nb = rows.shape[0]
        if sp.issparse(X):
            sx, sxx = class_scatter_csr(X.data, X.indices, X.indptr, X.shape[1], rows)
            mb = sx / nb
            m2b = sxx - nb * np.outer(mb, mb)
        else:
            # two passes over row blocks (bounded temporaries, no copy of the class rows):
            # the mean, then the scatter centred at it
            blocks = _row_blocks(X, rows)
            mb = sum(X[ix].sum(axis=0) for ix in blocks) / nb
            m2b = np.zeros((X.shape[1], X.shape[1]))
            for ix in blocks:
                Xc = X[ix] - mb
                m2b += Xc.T @ Xc
        return self.merge(nb, mb, m2b)

    def _update_weighted(self, X, rows, weights):
        """Weighted count, mean and scatter ``sum_i w_i (x_i - m)(x_i - m)'`` of the rows."""
        nb = float(weights.sum())
        # over row blocks of bounded size (X[rows] would copy the class rows, 2-3 times)
        blocks = _row_blocks(X, rows)
        offsets = np.cumsum([0] + [ix.shape[0] for ix in blocks])
        parts = [slice(offsets[b], offsets[b + 1]) for b in range(len(blocks))]
        mb = sum(np.asarray(X[ix].T @ weights[p]).ravel() for ix, p in zip(blocks, parts)) / nb
        d = X.shape[1]
        m2b = np.zeros((d, d))
        if sp.issparse(X):
            for ix, p in zip(blocks, parts):
                Xb = X[ix]
                prod = (Xb.T @ Xb.multiply(weights[p][:, None])).tocoo()
                np.add.at(m2b, (prod.row, prod.col), prod.data)
            m2b -= nb * np.outer(mb, mb)
        else:
            for ix, p in zip(blocks, parts):
                Xc = X[ix] - mb
                m2b += (Xc * weights[p][:, None]).T @ Xc
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


def update_class_moments(pos, neg, X, y01, sample_weight=None):
    """Add a chunk (X, y01) to the positive and negative :class:`ClassMoments`.

    Rows of zero ``sample_weight`` take no part.
    """
    if sample_weight is not None:
        for moments, label in ((pos, 1), (neg, 0)):
            rows = np.flatnonzero((y01 == label) & (sample_weight > 0)).astype(np.int64)
            moments.update(X, rows, sample_weight[rows])
        return pos, neg
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


def _draw_weighted(rng, rows, weights, n):
    """``n`` draws from ``rows`` with probability proportional to ``weights`` (inverse CDF)."""
    cdf = np.cumsum(weights)
    k = np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right")
    return rows[np.minimum(k, rows.shape[0] - 1)]


def draw_weighted_pairs(rng, pos_rows, neg_rows, pos_weights, neg_weights, n_pairs):
    """``n_pairs`` pairs, each end drawn with probability proportional to its weight.

    A pair (i, j) is drawn with probability ``w_i w_j / (W1 W0)``: a row of
    weight k is drawn as often as k copies of it would be.
    """
    return (_draw_weighted(rng, pos_rows, pos_weights, n_pairs),
            _draw_weighted(rng, neg_rows, neg_weights, n_pairs))


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


def _nnz(Z):
    return Z.nnz if sp.issparse(Z) else Z.size


def _gram(Z):
    """``Z'Z`` in float64 (a float32 block is cast for the product only)."""
    if isinstance(Z, RowSubset):  # summed over slices: no copy of all its rows at once
        G = None
        for part in Z.slices():
            g = _gram(part)
            G = g if G is None else G + g
        return G
    Z = Z.astype(np.float64, copy=False)
    return (Z.T @ Z).tocsr() if sp.issparse(Z) else Z.T @ Z


class RowSubset:
    """Rows ``rows`` of a CSR matrix X, row k with weight ``weights[k]``, read in place.

    A :class:`ClassGram` block that is not a copy: ``BBR.fit`` on sparse X keeps
    its class rows this way, so the state of the ``"cg"`` solver adds O(rows)
    integers to X instead of a second X (at 10^7 rows x 10^6 features the kept
    rows *are* X: a Gram matrix would be larger). X must not change while the
    block is in use. Acts as the block ``diag(sqrt(w)) X[rows]`` everywhere.
    """

    #: rows per slice when the block is folded into a Gram matrix
    SLICE = 1 << 16

    def __init__(self, X, rows, weights=None):
        self.X = X
        self.rows = np.ascontiguousarray(rows, dtype=np.int64)
        self.weights = (np.empty(0) if weights is None
                        else np.ascontiguousarray(weights, dtype=np.float64))
        self.shape = (self.rows.size, X.shape[1])
        self.row_nnz = (X.indptr[self.rows + 1] - X.indptr[self.rows]).astype(np.int64)
        self.nnz = int(self.row_nnz.sum())

    def slices(self):
        """The block as CSR copies of at most :attr:`SLICE` rows (scaled by sqrt(w))."""
        for start in range(0, self.rows.size, self.SLICE):
            part = self.X[self.rows[start:start + self.SLICE]]
            if self.weights.size:
                part = part.multiply(np.sqrt(self.weights[start:start + self.SLICE])[:, None])
            yield sp.csr_matrix(part)

    def gram_matvec(self, v, out):
        X = self.X
        return csr_rows_gram_matvec(X.data, X.indices, X.indptr, self.rows, self.weights, v, out)

    def sq_sum(self, out):
        X = self.X
        return csr_rows_sq_sum(X.data, X.indices, X.indptr, self.rows, self.weights, out)


class ClassGram:
    """Weight sum ``n``, weighted sum ``s = X'w`` and second moment ``X' diag(w) X`` of rows.

    The second moment is held in the smaller of two forms: the Gram matrix
    ``G`` (scipy CSR for sparse rows, an ndarray for dense ones), whose size is
    bounded by feature co-occurrence (at most ``D^2``), or the row blocks
    themselves (scaled by ``sqrt(w)``), applied as ``B'(B v)``. Blocks are
    folded into ``G`` as soon as that cannot make the state larger, i.e. when
    ``min(D^2, nnz(G) + sum_i nnz(x_i)^2)`` is at most the nnz of the kept rows.
    On low-dimensional or dense-ish data (a9a: D = 123) this happens at the
    first chunk and the state stays at most ``D^2``, whatever the number of
    rows; on high-dimensional text, where a Gram matrix would hold far more
    numbers than the rows (farm-ads: 85M against 0.8M), the rows are kept. The
    state is therefore at most ``min(nnz(rows seen), D^2 + one chunk)``.
    """

    def __init__(self, n_features):
        self.n = 0
        self.s = np.zeros(n_features)
        self.G = None
        self.blocks = []
        self._block_nnz = 0
        self._block_sq = 0  # sum over kept rows of nnz(x_i)^2: bounds nnz(B'B)

    @classmethod
    def from_gram(cls, n, s, G):
        """The state of rows summarized elsewhere: weight sum ``n``, ``s = X'w`` and the
        Gram matrix ``G = X' diag(w) X`` (e.g. summed over row blocks on a cluster)."""
        out = cls(np.asarray(s).shape[0])
        out.n, out.s, out.G = n, np.asarray(s, dtype=np.float64), G
        return out

    def add(self, Z, weights=None, rows=None):
        """Add the rows of ``Z`` (CSR or ndarray), each with weight 1 or ``weights``.

        ``rows``: add only these rows of a CSR ``Z``, referenced in place
        (:class:`RowSubset`, no copy; ``weights`` then has one entry per row
        given). ``Z`` must then stay unchanged while this state is used.
        """
        if rows is not None and sp.issparse(Z):
            return self._add_subset(RowSubset(Z, rows, weights))
        if rows is not None:
            Z = Z[rows]
        if Z.shape[0] == 0:
            return self
        # float32 rows are kept float32 (no float64 copy of the class rows); every
        # sum and product over them accumulates in float64 (rmatvec, _gram,
        # csr_gram_matvec), so a float32 X gives the model of its float64 copy
        if weights is None:
            self.n += Z.shape[0]
            self.s += rmatvec(Z, np.ones(Z.shape[0]))
        else:
            self.n += float(weights.sum())
            self.s += rmatvec(Z, weights)
            root = np.sqrt(weights)[:, None]
            Z = Z.multiply(root).tocsr() if sp.issparse(Z) else Z * root
        per_row = np.diff(Z.indptr) if sp.issparse(Z) else np.full(Z.shape[0], Z.shape[1])
        return self._keep(Z, per_row)

    def _add_subset(self, B):
        if B.shape[0] == 0:
            return self
        # s += X[rows]' w through one O(N) weight vector over all rows of X
        u = np.zeros(B.X.shape[0])
        u[B.rows] = B.weights if B.weights.size else 1.0
        self.n += float(B.weights.sum()) if B.weights.size else B.shape[0]
        self.s += rmatvec(B.X, u)
        del u
        return self._keep(B, B.row_nnz)

    def _keep(self, B, per_row):
        """Keep row block B (``per_row``: its nnz a row); fold the kept blocks into ``G``
        as soon as that cannot make the state larger (see the class doc)."""
        self.blocks.append(B)
        self._block_nnz += int(np.sum(per_row, dtype=np.int64))
        self._block_sq += int(np.sum(per_row.astype(np.int64) ** 2))
        d = self.s.shape[0]
        g_nnz = 0 if self.G is None else _nnz(self.G)
        if min(d * d, g_nnz + self._block_sq) <= self._block_nnz:
            self._fold()
        return self

    def _fold(self):
        """Sum the kept row blocks into ``G`` (it cannot grow the state, see the class doc)."""
        for B in self.blocks:
            G = _gram(B)
            self.G = G if self.G is None else self.G + G
        self.blocks, self._block_nnz, self._block_sq = [], 0, 0

    @property
    def stored(self):
        """Numbers held for the second moment: nnz of ``G`` plus nnz of the kept rows."""
        return (0 if self.G is None else _nnz(self.G)) + self._block_nnz

    def matvec(self, v):
        out = np.zeros(self.s.shape[0]) if self.G is None else np.asarray(self.G @ v).ravel()
        for B in self.blocks:
            if isinstance(B, RowSubset):
                B.gram_matvec(v, out)
            elif sp.issparse(B):  # one fused pass: out += B'(B v)
                csr_gram_matvec(B.data, B.indices, B.indptr, v, out)
            else:
                out += B.T @ (B @ v).astype(np.float64)
        return out

    def dense(self):
        """The second moment ``X' diag(w) X`` as a dense D x D array."""
        d = self.s.shape[0]
        out = np.zeros((d, d))
        if self.G is not None:
            out += self.G.toarray() if sp.issparse(self.G) else self.G
        for B in self.blocks:
            G = _gram(B)
            out += G.toarray() if sp.issparse(G) else G
        return out

    def diagonal(self):
        out = (np.zeros(self.s.shape[0]) if self.G is None
               else np.asarray(self.G.diagonal()).ravel().copy())
        for B in self.blocks:
            if isinstance(B, RowSubset):
                B.sq_sum(out)
            else:
                out += sq_rmatvec(B, np.ones(B.shape[0]))
        return out


#: one Lanczos step's fixed Python cost, in flops, for :meth:`GramPairsOperator.densify_if_cheaper`
_STEP_OVERHEAD = 2e5


def densify_pays(d, n_products, stored, block_sq):
    """Whether forming Sigma (D x D) and its eigendecomposition costs less than
    ``n_products`` implicit products over ``stored`` numbers (Gram entries and kept
    rows; ``block_sq``: the sum of the kept rows' squared nnz, the cost of folding
    them). See :meth:`GramPairsOperator.densify_if_cheaper`."""
    # + the fixed cost of one Python-level Lanczos step (about 100 microseconds, 2e5 flops),
    # which decides for small D, where both are cheap but the formed Sigma is exact
    per_product = 2.0 * stored + 6.0 * d + _STEP_OVERHEAD
    build = 10.0 * float(d) ** 3 + 2.0 * d * d + float(block_sq)
    return build < n_products * per_product


class GramPairsOperator(LinearOperator):
    """Sigma_N over all pairs from the two classes' :class:`ClassGram`: O(nnz(G) + D) per product.

    ``Sigma v = G1 v/N1 - m1 (m1.v) + G0 v/N0 - m0 (m0.v) + mu (mu.v)``
    (module docstring), with ``N_c`` the class weight sums.
    """

    def __init__(self, pos, neg):
        self.pos, self.neg = pos, neg
        self.n1, self.n0 = pos.n, neg.n
        self.m1 = pos.s / pos.n
        self.m0 = neg.s / neg.n
        self.mu = self.m1 - self.m0
        d = self.mu.shape[0]
        self.dense_ = None  # Sigma_N itself, once formed by densify_if_cheaper
        super().__init__(dtype=np.float64, shape=(d, d))

    def densify_if_cheaper(self, n_products, max_entries):
        """Form Sigma_N (D x D) once if that costs less than ``n_products`` implicit products.

        An implicit product reads every stored number of both classes' state
        (Gram matrix entries and kept rows) about twice, plus a fixed Python
        cost per Lanczos step. Forming Sigma costs
        folding the kept rows (the sum of their squared nnz) plus D^2, and
        solving with it an eigendecomposition, about ``10 D^3`` flops. A Lanczos
        solver applies Sigma at most ``min(max_iter, D)`` times; when forming
        and decomposing is cheaper than that many products and Sigma fits in
        ``max_entries``, it is formed and kept as ``dense_`` (then solved exactly,
        as ``solver="eigh"``). Returns whether it was.
        """
        d = self.shape[0]
        if d * d > max_entries:
            return False
        if not densify_pays(d, n_products, self.pos.stored + self.neg.stored,
                            self.pos._block_sq + self.neg._block_sq):
            return False
        sigma = self.pos.dense() / self.n1 + self.neg.dense() / self.n0
        sigma -= np.outer(self.m1, self.m1) + np.outer(self.m0, self.m0)
        sigma += np.outer(self.mu, self.mu)
        self.dense_ = 0.5 * (sigma + sigma.T)
        return True

    def _matvec(self, v):
        v = np.asarray(v, dtype=np.float64).ravel()
        if self.dense_ is not None:
            return self.dense_ @ v
        out = self.pos.matvec(v) / self.n1 - self.m1 * dot(self.m1, v)
        out += self.neg.matvec(v) / self.n0 - self.m0 * dot(self.m0, v)
        out += self.mu * dot(self.mu, v)
        return out

    def _rmatvec(self, v):
        return self._matvec(v)

    def diagonal(self):
        """diag(Sigma_N) = sum_c (mean x_k^2 - m_ck^2) + mu_k^2."""
        d = self.pos.diagonal() / self.n1 + self.neg.diagonal() / self.n0
        return d - self.m1 ** 2 - self.m0 ** 2 + self.mu ** 2

    def trace(self):
        """trace(Sigma_N) = sum_c (mean |x|^2 - |m_c|^2) + |mu|^2."""
        t = self.pos.diagonal().sum() / self.n1 - dot(self.m1, self.m1)
        t += self.neg.diagonal().sum() / self.n0 - dot(self.m0, self.m0)
        return float(t + dot(self.mu, self.mu))


class SecondMomentOperator(LinearOperator):
    """``G v / n``: the second moment of the rows behind one :class:`ClassGram`.

    For LCBR the rows are the sampled pair differences ``z_s``, so this is
    Sigma_S and ``gram.s / gram.n`` is mu_S.
    """

    def __init__(self, gram):
        self.gram = gram
        self.n_pairs = gram.n
        self.mu = gram.s / gram.n
        d = self.mu.shape[0]
        super().__init__(dtype=np.float64, shape=(d, d))

    def _matvec(self, v):
        return self.gram.matvec(np.asarray(v, dtype=np.float64).ravel()) / self.n_pairs

    def _rmatvec(self, v):
        return self._matvec(v)

    def diagonal(self):
        """diag(Sigma_S) = mean_s z_sk^2."""
        return self.gram.diagonal() / self.n_pairs

    def trace(self):
        """trace(Sigma_S) = mean_s |z_s|^2."""
        return float(self.gram.diagonal().sum() / self.n_pairs)


def pair_rows(X, a_rows, b_rows):
    """The sampled pair differences ``x_a - x_b`` as float64 rows (CSR for CSR X).

    The gathered rows are cast before the subtraction, so float32 input gives
    the same differences as its float64 copy.
    """
    xa, xb = X[a_rows].astype(np.float64), X[b_rows].astype(np.float64)
    return (xa - xb).tocsr() if sp.issparse(X) else xa - xb
