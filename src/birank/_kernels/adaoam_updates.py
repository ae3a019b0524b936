"""AdaOAM (Ding, Zhao, Hoi & Ong 2015, "An adaptive gradient method for online AUC
maximization", AAAI): OPAUC's one-pass square-loss gradient with AdaGrad steps.

For an arriving x_t of label y, with the other class's mean c and covariance S
(of the rows seen so far; Gao et al. 2013, OPAUC), the gradient of
``reg/2 |w|^2 + mean over the other class of (1 - y w.(x_t - x))^2 / 2`` is

    g = reg w - y (x_t - c) + (x_t - c)(x_t - c)' w + S w,

and the step is AdaGrad's diagonal one (Duchi et al. 2011):
``w -= lr g / (delta + sqrt(sum of g^2 so far))``. Class sums and second-moment
sums are kept unnormalized (``S w = M2 w / n - c (c.w)``): O(d^2) per row.
"""

import math

from numba import njit


@njit(cache=True)
def adaoam_stream(data, indices, indptr, y01, weight, t0, t1, w, counts, sums, second,
                  sqgrad, lr, delta, reg, diff, grad):
    """Learn from rows ``t0 .. t1-1`` (weight 0: skipped; weight k scales the loss term)."""
    d = w.shape[0]
    for t in range(t0, t1):
        wt = weight[t]
        if wt == 0.0:
            continue
        c = 1 if y01[t] != 0 else 0
        o = 1 - c
        y = 1.0 if c == 1 else -1.0
        start = indptr[t]
        end = indptr[t + 1]
        counts[c] += 1.0
        for k in range(start, end):
            j = indices[k]
            sums[c, j] += data[k]
            for k2 in range(start, end):
                second[c, j, indices[k2]] += data[k] * data[k2]
        for i in range(d):
            grad[i] = reg * w[i]
        n_o = counts[o]
        if n_o > 0.0:
            # diff = x_t - c_o (dense), its dot with w, and c_o . w
            for i in range(d):
                diff[i] = -sums[o, i] / n_o
            for k in range(start, end):
                diff[indices[k]] += data[k]
            dw = 0.0
            cw = 0.0
            for i in range(d):
                dw += diff[i] * w[i]
                cw += sums[o, i] * w[i]
            cw /= n_o
            for i in range(d):
                sw = 0.0
                for j in range(d):
                    sw += second[o, i, j] * w[j]
                sw = sw / n_o - (sums[o, i] / n_o) * cw          # S w
                grad[i] += wt * (-y * diff[i] + diff[i] * dw + sw)
        for i in range(d):
            gi = grad[i]
            sqgrad[i] += gi * gi
            w[i] -= lr * gi / (delta + math.sqrt(sqgrad[i]))
