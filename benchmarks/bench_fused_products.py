"""Fewer passes over X per Newton step: the three products with X' in one, and the
direction's scores without a product.

After each Newton step the solvers want, at the new point, the gradient
``w + C X' grad_s`` and the next step's diagonal preconditioner, which takes
``X' D`` and ``(X o X)' D`` over the rows' active degrees D (RankSVM's pair
objectives; WeightedSVM's rows objective takes the second alone). Three reads
of X, or one (``birank._linalg.grad_diag_rmatvec``, the objectives'
``grad_and_diag``). And the line search wants the scores ``X d`` of the
Newton direction: conjugate gradients forms every ``X p`` of its steps anyway,
so ``X d`` is their sum with the step lengths, with no product.

This prints, in one process and alternating, on ``make_sparse_bipartite(n,
n_features=10_000, nnz_per_row=20)``:

* the three products at one point (one thread): one pass against three, and
  whether the results are the same bits (they must be: every sum adds the same
  terms in the same order);
* RankSVM's fit (``C=1e-6``, binary labels) and WeightedSVM's squared-hinge
  Newton fit (``n_jobs=1``: its products over row blocks, which form ``X p``),
  against the same fits with the three products and the product for ``X d``
  put back; the largest coefficient difference relative to the largest
  coefficient and both objectives (the summed scores equal ``X d`` to rounding;
  where a row sits on the hinge's kink that can change a later step's active
  set, so the two runs may differ within the solver's tolerance: the objectives
  must agree to 1e-8).

Medians of CPU time (single-threaded calls; steadier than wall time on a
shared machine). The ratio is new / reference: below 1 is faster.

Usage::

    python benchmarks/bench_fused_products.py [--rows 1e6] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from _timing import CPU, medians


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
    X, y, _ = make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20, random_state=0)
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
    t3, t1 = medians([three, one], args.repeat * 4, clock=CPU)
    print(f"X' u, X' D, (X o X)' D: three passes {t3 * 1e3:.1f} ms, one pass {t1 * 1e3:.1f} ms: "
          f"ratio {t1 / t3:.2f}; same bits: {same}")
    if not same:
        raise SystemExit("the one-pass products changed the results")

    fits = (("RankSVM(C=1e-6) fit", lambda: RankSVM(C=1e-6).fit(X, y)),
            ("WeightedSVM(loss='squared_hinge', solver='newton', n_jobs=1) fit",
             lambda: WeightedSVM(loss="squared_hinge", solver="newton", n_jobs=1).fit(X, y)))
    cg = newton._cg
    for name, make in fits:
        models = {}

        def fit(new, make=make):
            kept = newton._Products.grad_diag_rmv
            if not new:  # three passes, and X d by a product (CG's sum dropped)
                newton._Products.grad_diag_rmv = _three_passes
                newton._cg = lambda *a, **k: cg(*a, **k)[:2] + (None,)
            try:
                models[new] = make()
            finally:
                newton._Products.grad_diag_rmv = kept
                newton._cg = cg

        fit(True)
        fit(False)
        reference, new = medians([lambda: fit(False), lambda: fit(True)], args.repeat,
                                 clock=CPU)
        a, b = models[True], models[False]
        diff = float(np.max(np.abs(a.coef_ - b.coef_)) / np.max(np.abs(b.coef_)))
        print(f"{name}: reference {reference:.2f} s, fewer passes {new:.2f} s: ratio "
              f"{new / reference:.2f}; Newton iterations {a.n_iter_} / {b.n_iter_}; largest "
              f"coefficient difference {diff:.1e} of the largest; objectives "
              f"{a.objective_:.12g} / {b.objective_:.12g}")
        if not abs(a.objective_ - b.objective_) <= 1e-8 * abs(b.objective_):
            raise SystemExit("the fewer passes reached another objective")


if __name__ == "__main__":
    main()
