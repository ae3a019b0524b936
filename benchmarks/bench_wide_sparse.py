"""RankSVM on wide, very sparse data: solving in the used columns against all columns.

200 rows x 10^6 features, 5 entries a row (about 1000 used columns). The
reference run disables :func:`birank.solvers.all_pairs.used_columns` (so every
Newton / CG vector has 10^6 entries), in the same process; prints both times
(median of ``--repeats``) and their ratio, and checks that the models agree.

    python benchmarks/bench_wide_sparse.py [--repeats 3] [--losses squared_hinge hinge]

The hinge's reference run takes minutes (its CG steps are O(n_features) each).
"""

import argparse

import numpy as np

from _timing import median_time  # (benchmarks/_timing.py)
import scipy.sparse as sp

from birank import RankSVM
from birank.solvers import all_pairs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--losses", nargs="+", default=["squared_hinge", "hinge"],
                        choices=["squared_hinge", "hinge"])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n, d = 200, 10**6
    X = sp.csr_matrix((rng.random(n * 5), rng.integers(0, d, n * 5),
                       np.arange(0, n * 5 + 1, 5)), shape=(n, d))
    X.sum_duplicates()
    y = rng.integers(0, 2, n).astype(float)
    RankSVM(loss="hinge").fit(X[:20], y[:20])  # compile outside the timings
    for loss in args.losses:
        t_used, a = median_time(lambda: RankSVM(loss=loss).fit(X, y), args.repeats)
        saved = all_pairs.USED_FRACTION
        all_pairs.USED_FRACTION = -1.0  # reference: every column
        try:
            t_all, b = median_time(lambda: RankSVM(loss=loss).fit(X, y), args.repeats)
        finally:
            all_pairs.USED_FRACTION = saved
        diff = float(np.abs(a.coef_ - b.coef_).max())
        print(f"{loss:>14}: used columns {t_used:.3f} s, all columns {t_all:.3f} s, "
              f"ratio {t_all / t_used:.1f}x, max |coef difference| {diff:.2e}")


if __name__ == "__main__":
    main()
