"""Plain-numpy references of the streaming AUC learners, written from the papers' update rules.

Each function runs the rule one instance at a time on a dense array and returns
the weights after every instance (so a single update can be checked too).
"""

import numpy as np


def opauc_reference(X, y01, eta, lam, printed=False):
    """Gao et al. 2013, Algorithm 1 with running mean/covariance updates.

    ``printed=True`` uses the covariance update as Algorithm 1 prints it,
    ``G + (x x' - G)/T + c_old c_old' - c c'``, which is not the covariance: the
    correct one scales ``c_old c_old'`` by ``(T - 1)/T`` (from ``E_T = E_{T-1} +
    (x x' - E_{T-1})/T`` and ``G = E - c c'``).
    """
    n, d = X.shape
    w = np.zeros(d)
    T = np.zeros(2)
    c = np.zeros((2, d))
    G = np.zeros((2, d, d))
    out = []
    for x, k in zip(X, y01):
        o = 1 - k
        T[k] += 1
        c_old = c[k].copy()
        c[k] = c[k] + (x - c[k]) / T[k]
        keep = 1.0 if printed else (T[k] - 1) / T[k]
        G[k] = (G[k] + (np.outer(x, x) - G[k]) / T[k] + keep * np.outer(c_old, c_old)
                - np.outer(c[k], c[k]))
        if T[o] > 0:
            sgn = 1.0 if k == 1 else -1.0
            z = x - c[o]
            g = lam * w - sgn * z + (z @ w) * z + G[o] @ w
            w = w - eta * g
        out.append(w.copy())
    return out, T, c, G


def opauc_bruteforce_gradient(X_seen_opp, x, k, w, lam):
    """Gradient of lam/2|w|^2 + mean_j 1/2 (1 - sgn w.(x - x_j))^2 over the opposite rows seen."""
    sgn = 1.0 if k == 1 else -1.0
    g = lam * w.copy()
    for xj in X_seen_opp:
        z = sgn * (x - xj)
        g -= (1.0 - w @ z) * z / len(X_seen_opp)
    return g


def opaucr_reference(X, y01, eta, lam, R):
    """Gao et al. 2013, Algorithm 2 (OPAUCr), given the sketch vectors R (n x tau) the kernel drew."""
    n, d = X.shape
    tau = R.shape[1]
    w = np.zeros(d)
    T = np.zeros(2)
    c = np.zeros((2, d))
    rbar = np.zeros((2, tau))
    Z = np.zeros((2, d, tau))
    out = []
    for x, k, r in zip(X, y01, R):
        o = 1 - k
        T[k] += 1
        c[k] += (x - c[k]) / T[k]
        rbar[k] += (r - rbar[k]) / T[k]
        Z[k] += np.outer(x, r)
        if T[o] > 0:
            sgn = 1.0 if k == 1 else -1.0
            z = x - c[o]
            Sw = Z[o] @ (Z[o].T @ w) / T[o] - (c[o] @ w) * (rbar[o] @ rbar[o]) * c[o]
            w = w - eta * (lam * w - sgn * z + (z @ w) * z + Sw)
        out.append(w.copy())
    return out


def uniexp_reference(X, y01, eta, max_exponent=30.0):
    """Kotlowski et al. 2011: SGD on exp(-y w.x) weighted by n / (2 n_y), running counts."""
    w = np.zeros(X.shape[1])
    n = np.zeros(2)
    out = []
    for x, k in zip(X, y01):
        n[k] += 1
        rho = n.sum() / (2 * n[k])
        y = 1.0 if k == 1 else -1.0
        w = w + eta * rho * np.exp(min(-y * (w @ x), max_exponent)) * y * x
        out.append(w.copy())
    return out


def spam_reference(X, y01, eta, power_t, beta, beta1=0.0):
    """Natole et al. 2018, Algorithm 1 with running p and class means (SPAM-L2 / SPAM-NET);
    ``beta`` and ``beta1`` may also give one value per row."""
    d = X.shape[1]
    beta = np.broadcast_to(np.asarray(beta, dtype=float), (len(y01),))
    beta1 = np.broadcast_to(np.asarray(beta1, dtype=float), (len(y01),))
    w = np.zeros(d)
    n = np.zeros(2)
    m = np.zeros((2, d))
    out = []
    for t, (x, k) in enumerate(zip(X, y01), start=1):
        n[k] += 1
        m[k] += (x - m[k]) / n[k]
        p = n[1] / n.sum()
        a, b = w @ m[1], w @ m[0]
        alpha = w @ (m[0] - m[1])
        if k == 1:
            grad = 2 * (1 - p) * (w @ x - a) * x - 2 * (1 + alpha) * (1 - p) * x
        else:
            grad = 2 * p * (w @ x - b) * x + 2 * (1 + alpha) * p * x
        step = eta / t ** power_t
        curvature = 2 * ((1 - p) if k == 1 else p) * (x @ x)
        if step * curvature > 1:  # birank's stability cap (not in the paper)
            step = 1 / curvature
        v = w - step * grad
        v = np.sign(v) * np.maximum(np.abs(v) - step * beta1[t - 1], 0.0)
        w = v / (1 + step * beta[t - 1])
        out.append(w.copy())
    return out


def pgd_reference(X, y01, eta, power_t, loss, lam, M):
    """Boissier et al. 2016 eq. (2) against FIFO buffers of the last M rows of each class."""
    dloss = {"hinge": lambda m: float(m < 1),
             "squared_hinge": lambda m: 2 * max(0.0, 1 - m),
             "square": lambda m: 2 * (1 - m)}[loss]
    w = np.zeros(X.shape[1])
    buf = ([], [])
    out = []
    for t, (x, k) in enumerate(zip(X, y01), start=1):
        opp = buf[1 - k]
        if opp:
            sgn = 1.0 if k == 1 else -1.0
            step = eta / t ** power_t
            g = sum(dloss(sgn * (w @ (x - b))) * sgn * (x - b) for b in opp) / len(opp)
            w = (1 - step * lam) * w + step * g
        buf[k].append(x)
        if len(buf[k]) > M:
            buf[k].pop(0)
        out.append(w.copy())
    return out
