"""0/1 features: the products that do not read the values against those that do.

Ads, fraud and retrieval data are often indicator features (one-hot columns,
bags of words; a9a and w8a too): every stored value of X is 1. The solvers'
products then pass ``data=None`` to the kernels (``birank._linalg.is_indicator``,
checked once per objective) and read only the column indices. This prints, in
one process and alternating, on ``make_sparse_bipartite(n, n_features=10_000,
nnz_per_row=20)`` with
every value set to 1:

* ``X v`` and ``X' u`` (one thread), indicator path against the value-reading one;
* RankSVM's fit (``C=1e-6``, binary labels, then real-valued labels ``y + 0.5
  U(0, 1)``), with the indicator check against it forced off, and whether the
  coefficients are the same bits (they must be: multiplying by 1.0 is exact).

Medians of CPU time (single-threaded calls; steadier than wall time on a
shared machine). The ratio is indicator / value-reading: below 1 is faster.

Usage::

    python benchmarks/bench_indicator.py [--rows 1e6] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from _timing import CPU, medians


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    import birank.solvers.newton as newton
    from birank import RankSVM
    from birank._linalg import is_indicator, matvec, rmatvec
    from birank.datasets import make_sparse_bipartite

    n = int(args.rows)
    X, y, _ = make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20, random_state=0)
    X.data[:] = 1.0
    assert is_indicator(X)
    rng = np.random.default_rng(1)
    v, u = rng.normal(size=X.shape[1]), rng.normal(size=n)
    print(f"load average {os.getloadavg()[0]:.1f}; {n:,} rows, 10,000 features, 20 stored "
          f"values of 1 a row; medians of {args.repeat} alternating runs (CPU time)")

    fns = [lambda: matvec(X, v), lambda: matvec(X, v, indicator=True),
           lambda: rmatvec(X, u), lambda: rmatvec(X, u, indicator=True)]
    for f in fns:
        f()
    mv, mv1, rmv, rmv1 = medians(fns, args.repeat * 4, clock=CPU)
    print(f"X v: values read {mv * 1e3:.1f} ms, not read {mv1 * 1e3:.1f} ms: "
          f"ratio {mv1 / mv:.2f}")
    print(f"X' u: values read {rmv * 1e3:.1f} ms, not read {rmv1 * 1e3:.1f} ms: "
          f"ratio {rmv1 / rmv:.2f}")

    real = y + 0.5 * rng.random(n)
    for name, labels in (("binary", y), ("real-valued", real)):
        models = {}

        def fit(indicator, labels=labels):
            check = newton.is_indicator
            if not indicator:  # the objective then reads the values
                newton.is_indicator = lambda X: False
            try:
                models[indicator] = RankSVM(C=1e-6).fit(X, labels)
            finally:
                newton.is_indicator = check

        fit(True)
        fit(False)
        with_values, without = medians([lambda: fit(False), lambda: fit(True)], args.repeat,
                                       clock=CPU)
        same = np.array_equal(models[True].coef_, models[False].coef_)
        print(f"RankSVM(C=1e-6) fit, {name} labels: values read {with_values:.2f} s, not read "
              f"{without:.2f} s: ratio {without / with_values:.2f}; same coefficients: {same}")
        if not same:
            raise SystemExit("the indicator products changed the coefficients")


if __name__ == "__main__":
    main()
