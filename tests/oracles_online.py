"""Plain-NumPy references of the online learners: dense vectors, one Python step per pair.

They follow the papers' statements directly (no screening, no sparse tricks)
and serve the tests and ``benchmarks/bench_online.py`` (the speedup baseline).
"""

import math

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm


def scw_alpha(m, v, phi, C):
    psi, zeta = 1 + phi ** 2 / 2, 1 + phi ** 2
    a = (-m * psi + math.sqrt(m * m * phi ** 4 / 4 + v * phi * phi * zeta)) / (v * zeta)
    return min(C, max(0.0, a))


def scw_full_step(mu, sigma, z, y, C, phi):
    """SCW-I on N(mu, Sigma) (Wang et al. 2012), returns new (mu, Sigma)."""
    sz = sigma @ z
    v, m = z @ sz, y * (mu @ z)
    if v <= 0 or phi * math.sqrt(v) - m <= 0:
        return mu, sigma
    alpha = scw_alpha(m, v, phi, C)
    if alpha <= 0:
        return mu, sigma
    s = (-alpha * v * phi + math.sqrt(alpha ** 2 * v ** 2 * phi ** 2 + 4 * v)) / 2
    beta = alpha * phi / (s + v * alpha * phi)
    return mu + alpha * y * sz, sigma - beta * np.outer(sz, sz)


def scw_diag_step_brentq(mu, g, z, y, C, phi):
    """Exact minimizer of eq. (6) over diagonal covariances, by scipy's brentq."""
    a = g * z * z
    v, m = a.sum(), y * (mu @ z)
    if v <= 0 or phi * math.sqrt(v) - m <= 0:
        return mu, g

    def s_of(alpha):   # s = sum a_i / (s + alpha phi a_i)
        return brentq(lambda s: s - np.sum(a / (s + alpha * phi * a)), 1e-300, math.sqrt(v) + 1)

    def h(alpha):      # loss at the stationary point of multiplier alpha
        return phi * s_of(alpha) - m - alpha * v

    if h(C) >= 0:
        alpha = C
    else:
        alpha = brentq(h, 0.0, C, xtol=1e-15, rtol=1e-15)
    s = s_of(alpha)
    return mu + alpha * y * g * z, g * s / (s + alpha * phi * a)


def scw_diag_step(mu, g, z, y, C, phi):
    """The same minimizer with the kernel's method, in vectorized NumPy.

    Newton on F(alpha) = p/phi - sum a/(p/phi + alpha phi a), p = m + alpha v,
    from SCW's closed-form alpha; s from p when alpha < C, else by Newton on
    s - sum a/(s + C phi a).
    """
    a = g * z * z
    v, m = a.sum(), y * (mu @ z)
    if v <= 0 or phi * math.sqrt(v) - m <= 0:
        return mu, g

    def F(alpha):
        p = (m + alpha * v) / phi
        q = p + alpha * phi * a
        return p - np.sum(a / q), v / phi + np.sum(a * (v / phi + phi * a) / q ** 2)

    alpha = scw_alpha(m, v, phi, math.inf)
    if alpha >= C or F(C)[0] <= 0:
        alpha = C
    else:
        for _ in range(50):
            f, df = F(alpha)
            step = f / df
            alpha = min(alpha - step, C)
            if alpha == C or abs(step) <= 1e-15 * alpha:
                break
    if alpha < C:
        s = (m + alpha * v) / phi
    else:
        s = (-alpha * v * phi + math.sqrt(alpha ** 2 * v ** 2 * phi ** 2 + 4 * v)) / 2
        for _ in range(50):
            q = s + alpha * phi * a
            step = (s - np.sum(a / q)) / (1 + np.sum(a / q ** 2))
            s -= step
            if abs(step) <= 1e-15 * s:
                break
    return mu + alpha * y * g * z, g * s / (s + alpha * phi * a)


def oam_seq_step(w, z, y, C):
    loss = 1 - y * (w @ z)
    sq = z @ z
    if loss <= 0 or sq <= 0:
        return w
    return w + min(C, loss / sq) * y * z


class Buffer:
    """FIFO or reservoir (Vitter's algorithm R) with the kernels' random stream."""

    def __init__(self, capacity, policy, rng_state):
        self.M, self.policy, self.rng = capacity, policy, rng_state
        self.rows, self.seen, self.head = [], 0, 0

    def offer(self, x):
        from birank._kernels.buffers import uniform_below

        self.seen += 1
        if len(self.rows) < self.M:
            self.rows.append(x)
        elif self.policy == "fifo":
            self.rows[self.head] = x
            self.head = (self.head + 1) % self.M
        else:
            j = uniform_below(self.rng, self.seen)
            if j < self.M:
                self.rows[j] = x


def reference_stream(method, X, y01, *, buffer="fifo", buffer_size=50, C=1.0, eta=0.7,
                     seed=0, n_rows=None):
    """Run a buffer-based learner ('cbr-full', 'cbr-diag', 'oam-seq', 'oam-gra').

    X may be dense or CSR; rows are kept as (indices, values) and each pair
    step works on the union of the two rows' supports (the other coordinates of
    z are 0 and do not change). ``seed`` is the kernel seed of the reservoir
    stream (``rng_init(seed)``). Returns the weights and the covariance.
    """
    import scipy.sparse as sp

    from birank._kernels.sparse_rows import rng_init

    X = sp.csr_matrix(X, dtype=float)
    X.sort_indices()
    d = X.shape[1]
    rng = rng_init(seed)
    bufs = [Buffer(buffer_size, buffer, rng), Buffer(buffer_size, buffer, rng)]
    w = np.zeros(d)
    cov = np.eye(d) if method == "cbr-full" else np.ones(d)
    phi = norm.ppf(eta)
    for t in range(X.shape[0] if n_rows is None else n_rows):
        lo, hi = X.indptr[t], X.indptr[t + 1]
        x = (X.indices[lo:hi].astype(np.int64), X.data[lo:hi])
        c = int(y01[t])
        y = 1.0 if c else -1.0
        other = bufs[1 - c]
        Ct = C * max(1.0, other.seen / buffer_size)     # OAM's C_t (see cbr.py)
        bufs[c].offer(x)
        if method == "oam-gra":
            wx = w[x[0]] @ x[1]
            active = [b for b in other.rows if y * (wx - w[b[0]] @ b[1]) < 1]
            for b in active:
                np.subtract.at(w, b[0], Ct * y * b[1])
            w[x[0]] += Ct * y * len(active) * x[1]
            continue
        for b in other.rows:
            supp = np.union1d(x[0], b[0])
            z = np.zeros(len(supp))
            z[np.searchsorted(supp, x[0])] += x[1]
            z[np.searchsorted(supp, b[0])] -= b[1]
            if not z.any():
                continue
            if method == "cbr-full":
                zf = np.zeros(d)
                zf[supp] = z
                w, cov = scw_full_step(w, cov, zf, y, Ct, phi)
            elif method == "cbr-diag":
                w[supp], cov[supp] = scw_diag_step(w[supp], cov[supp], z, y, Ct, phi)
            else:
                w[supp] = oam_seq_step(w[supp], z, y, Ct)
    return w, cov


def adaoam_reference(X, y01, *, learning_rate=0.1, delta=0.5, reg=1e-4, n_rows=None):
    """AdaOAM (Ding et al. 2015) on dense X, one instance at a time."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    d = X.shape[1]
    w = np.zeros(d)
    n = [0, 0]
    mean = [np.zeros(d), np.zeros(d)]
    second = [np.zeros((d, d)), np.zeros((d, d))]
    sq = np.zeros(d)
    for t in range(X.shape[0] if n_rows is None else n_rows):
        x, c = X[t], int(y01[t])
        n[c] += 1
        mean[c] = mean[c] + (x - mean[c]) / n[c]
        second[c] = second[c] + (np.outer(x, x) - second[c]) / n[c]
        o = 1 - c
        grad = reg * w
        if n[o] > 0:
            y = 1.0 if c else -1.0
            diff = x - mean[o]
            cov = second[o] - np.outer(mean[o], mean[o])
            grad = grad - y * diff + np.outer(diff, diff) @ w + cov @ w
        sq += grad * grad
        w = w - learning_rate * grad / (delta + np.sqrt(sq))
    return w
