"""Dense float32 products against float64 ones: time ratio and accuracy.

``birank._linalg`` computes ``X v``, ``X' u`` and ``(X o X)' u`` of a dense
C-contiguous float32 X with the loops of :mod:`birank._kernels.dense_products` (read
float32, sum in float64, no copy of X); numpy would cast X to a float64
temporary on every product. This prints, at ``n x 100`` (default n = 160000),
the best of 10 times of each product for float64 X (numpy / BLAS) and float32
X, their ratio, and the float32 results' largest error relative to the
largest entry against long-double products of the same float32 data, next to
that of numpy's float64 products of the upcast data.

    python benchmarks/bench_float32_products.py [n]
"""

import sys

import numpy as np

from _timing import best_time  # (benchmarks/_timing.py)

from birank import _linalg


def best(f, k=10):
    """The least of k timed calls, after one untimed (the kernels compile)."""
    f()
    return best_time(f, k)[0]


def main(n=160_000, d=100):
    r = np.random.default_rng(0)
    X32 = r.standard_normal((n, d)).astype(np.float32)
    X64 = X32.astype(np.float64)
    XL = X32.astype(np.longdouble)
    v, u = r.standard_normal(d), r.standard_normal(n)
    D = np.abs(u)
    cases = [("X v", _linalg.matvec, v, lambda: XL @ v.astype(np.longdouble)),
             ("X' u", _linalg.rmatvec, u, lambda: XL.T @ u.astype(np.longdouble)),
             ("(XoX)' u", _linalg.sq_rmatvec, D, lambda: D.astype(np.longdouble) @ XL ** 2)]
    print(f"n={n} d={d}")
    for name, f, a, exact in cases:
        t64 = best(lambda: f(X64, a))
        t32 = best(lambda: f(X32, a))
        ref = exact()
        scale = float(np.max(np.abs(ref)))
        e64 = float(np.max(np.abs(f(X64, a) - ref))) / scale
        e32 = float(np.max(np.abs(f(X32, a) - ref))) / scale
        print(f"{name:9s} float64 {t64 * 1e3:7.2f} ms  float32 {t32 * 1e3:7.2f} ms  "
              f"ratio f32/f64 {t32 / t64:5.2f}  rel. error f64-of-f32 {e64:.1e} f32 {e32:.1e}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 160_000)
