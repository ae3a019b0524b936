"""A Newton step's three products with X' in one pass, against three passes.

After each Newton step the solvers want, at the new point, the gradient
``w + C X' grad_s`` and the next step's diagonal preconditioner, which takes
``X' D`` and ``(X o X)' D`` over the rows' active degrees D (RankSVM's pair
objectives; WeightedSVM's rows objective takes the second alone). Three reads
of X, or one (``birank._linalg.grad_diag_rmatvec``, the objectives'
``grad_and_diag``). This prints, in one process and alternating, on
``make_sparse_bipartite(n, 10_000, 20)``:

* the three products at one point (one thread): one pass against three, and
  whether the results are the same bits;
* RankSVM's fit (``C=1e-6``, binary labels) and WeightedSVM's squared-hinge
  Newton fit, with the one-pass products against the three products put back,
  and whether the coefficients are the same bits (they must be: every sum adds
  the same terms in the same order).

Medians of CPU time (single-threaded calls; steadier than wall time on a
shared machine). The ratio is one pass / three passes: below 1 is faster.

Usage::

    python benchmarks/bench_fused_products.py [--rows 1e6] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from bench_limit import _median_times as _medians  # CPU-time medians, run alternately


def _three_passes(self, u, D, with_mean=True):
    """``grad_diag_rmv`` as three products (the reference)."""
    return self.rmv(u), (self.rmv(D) if with_mean else None), self.sq_rmv(D)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    import birank.solvers.newton as newton
    from birank import RankSVM, WeightedSVM
    from birank._linalg import grad_diag_rmatvec, rmatvec, sq_rmatvec
    from birank.datasets import make_sparse_bipartite

    n = int(args.rows)
    X, y, _ = make_sparse_bipartite(n, 10_000, 20, random_state=0)
    rng = np.random.default_rng(1)
    # a gradient and degrees that are 0 on the inactive rows, as after a sweep
    active = rng.random(n) < 0.7
    u = rng.normal(size=n) * active
    D = rng.random(n) * active
    print(f"load average {os.getloadavg()[0]:.1f}; {n:,} rows, 10,000 features, 20 stored "
          f"values a row; medians of {args.repeat} alternating runs (CPU time)")

    def three():
        return rmatvec(X, u), rmatvec(X, D), sq_rmatvec(X, D)

    def one():
        return grad_diag_rmatvec(X, u, D)

    same = all(np.array_equal(a, b) for a, b in zip(three(), one()))
    t3, t1 = _medians([three, one], args.repeat * 4)
    print(f"X' u, X' D, (X o X)' D: three passes {t3 * 1e3:.1f} ms, one pass {t1 * 1e3:.1f} ms: "
          f"ratio {t1 / t3:.2f}; same bits: {same}")
    if not same:
        raise SystemExit("the one-pass products changed the results")

    fits = (("RankSVM(C=1e-6) fit", lambda: RankSVM(C=1e-6).fit(X, y)),
            ("WeightedSVM(loss='squared_hinge', solver='newton') fit",
             lambda: WeightedSVM(loss="squared_hinge", solver="newton").fit(X, y)))
    for name, make in fits:
        models = {}

        def fit(fused, make=make):
            kept = newton._Products.grad_diag_rmv
            if not fused:
                newton._Products.grad_diag_rmv = _three_passes
            try:
                models[fused] = make()
            finally:
                newton._Products.grad_diag_rmv = kept

        fit(True)
        fit(False)
        separate, fused = _medians([lambda: fit(False), lambda: fit(True)], args.repeat)
        same = (np.array_equal(models[True].coef_, models[False].coef_)
                and models[True].n_iter_ == models[False].n_iter_)
        print(f"{name}: three passes {separate:.2f} s, one pass {fused:.2f} s: ratio "
              f"{fused / separate:.2f}; same coefficients: {same}; Newton iterations "
              f"{models[True].n_iter_}")
        if not same:
            raise SystemExit("the one-pass products changed the coefficients")


if __name__ == "__main__":
    main()
