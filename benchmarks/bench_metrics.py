"""Time birank.metrics against scikit-learn in the same process.

    python benchmarks/bench_metrics.py [--sizes 1000000 10000000] [--repeat 3]

Prints, for each N: roc_auc time, sklearn.metrics.roc_auc_score time and their ratio
(sklearn / birank, > 1 means birank is faster), on random binary labels and scores with
heavy ties (scores rounded to 1e-4); the radix sort of float64 scores behind
``roc_auc`` (``sort_values``) against ``np.sort`` (ratio < 1: the kernel is faster) on
tied, continuous and packed scores; then pairwise_accuracy at N = 10^6 with graded
labels 0..4 (no scikit-learn counterpart; an O(N^2) method would need 5e11 pair
comparisons), with and without 1000 query groups; the per-query metrics
(``ndcg_at_k``, ``mean_average_precision``, ``pairwise_accuracy``,
``roc_auc_per_group``) on N rows in queries of 100, their sorts within queries by
stable radix passes (:mod:`birank._lexsort`) against numpy's ``lexsort`` (ratio < 1:
the passes are faster; the same value); then, for each N, the
best-accuracy cut that sets a binary ranker's ``intercept_`` (the O(N) bucketed
search against the O(N log N) sorted path with unit weights, same answer) and
the label encoding of binary y (one scan against ``np.unique``).
"""

import argparse

import numpy as np

from _timing import best_time  # (benchmarks/_timing.py)
from sklearn.metrics import roc_auc_score

from birank._kernels.radix_sort import sort_values
from birank._validation import encode_binary
from birank.metrics import best_accuracy_threshold
from birank.metrics import pairwise_accuracy, roc_auc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10**6, 10**7])
    ap.add_argument("--pairwise-n", type=int, default=10**6)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    # compile the kernels outside the timings
    roc_auc([0, 1, 1], [0.1, 0.2, 0.2])
    pairwise_accuracy([0, 1, 2], [0.1, 0.2, 0.2])

    print(f"{'N':>10}  {'birank roc_auc':>15}  {'sklearn':>10}  {'ratio':>7}  |diff|")
    for n in args.sizes:
        y = rng.random(n) < 0.3
        s = np.round(rng.standard_normal(n), 4)
        t_b, a_b = best_time(lambda: roc_auc(y, s), args.repeat)
        t_s, a_s = best_time(lambda: roc_auc_score(y, s), args.repeat)
        print(f"{n:>10}  {t_b:>14.3f}s  {t_s:>9.3f}s  {t_s / t_b:>6.1f}x  {abs(a_b - a_s):.1e}")
        w = rng.random(n)
        t_bw, a_bw = best_time(lambda: roc_auc(y, s, sample_weight=w), args.repeat)
        t_sw, a_sw = best_time(lambda: roc_auc_score(y, s, sample_weight=w), args.repeat)
        print(f"{'weighted':>10}  {t_bw:>14.3f}s  {t_sw:>9.3f}s  {t_sw / t_bw:>6.1f}x  "
              f"{abs(a_bw - a_sw):.1e}")

    # the sort behind roc_auc from KERNEL_MIN_ROWS scores, against numpy's (same values)
    sort_values(np.zeros(3), np.empty(3), np.empty(3, dtype=np.uint64))
    print(f"\n{'N':>10}  {'scores':>26}  {'sort_values':>11}  {'np.sort':>8}  {'ratio':>6}")
    for n in args.sizes:
        z = rng.standard_normal(n)
        for label, v in (("rounded to 1e-4 (ties)", np.round(z, 4)), ("normal", z),
                         ("1 + 1e-12 normal (one run)", 1.0 + 1e-12 * z)):
            out, scratch = np.empty(n), np.empty(n, dtype=np.uint64)
            t_r, _ = best_time(lambda: sort_values(v, out, scratch), args.repeat)
            t_n, ref = best_time(lambda: np.sort(v), args.repeat)
            assert np.array_equal(out, ref)
            print(f"{n:>10}  {label:>26}  {t_r:>10.3f}s  {t_n:>7.3f}s  {t_r / t_n:>5.2f}x")

    n = args.pairwise_n
    y = rng.integers(0, 5, n).astype(float)
    s = np.round(y * 0.3 + rng.standard_normal(n), 3)
    t_p, acc = best_time(lambda: pairwise_accuracy(y, s), args.repeat)
    print(f"\npairwise_accuracy N={n}, graded labels 0..4: {t_p:.3f}s (accuracy {acc:.4f})")
    g = rng.integers(0, 1000, n)
    t_g, acc_g = best_time(lambda: pairwise_accuracy(y, s, groups=g), args.repeat)
    print(f"pairwise_accuracy N={n}, 1000 groups:          {t_g:.3f}s (accuracy {acc_g:.4f})")

    # the per-query metrics' sorts within queries: stable radix passes against numpy's
    # lexsort (the order, hence the value, is the same)
    import birank._lexsort as lexsort
    from birank.metrics import mean_average_precision, ndcg_at_k, roc_auc_per_group

    q = np.arange(n) // 100
    yb = y > 2
    print(f"\n{n:,d} rows in {n // 100:,d} queries of 100, labels 0..4: radix passes against "
          f"numpy's lexsort")
    for name, fn in (("ndcg_at_k(k=10)", lambda: ndcg_at_k(y, s, q, k=10)),
                     ("mean_average_precision", lambda: mean_average_precision(yb, s, q)),
                     ("pairwise_accuracy", lambda: pairwise_accuracy(y, s, groups=q)),
                     ("roc_auc_per_group", lambda: roc_auc_per_group(yb, s, q))):
        fn()
        t_new, v_new = best_time(fn, args.repeat)
        kept = lexsort.LEXSORT_RADIX_MIN
        lexsort.LEXSORT_RADIX_MIN = n + 1  # numpy's lexsort at every size
        try:
            t_ref, v_ref = best_time(fn, args.repeat)
        finally:
            lexsort.LEXSORT_RADIX_MIN = kept
        print(f"{name:>24}  {t_new:.3f}s  lexsort {t_ref:.3f}s  ratio {t_new / t_ref:.2f}  "
              f"same value: {v_new == v_ref}")

    best_accuracy_threshold([0, 1, 1], [0.1, 0.2, 0.3])
    encode_binary(np.array([-1.0, 1.0]))
    print(f"\n{'N':>10}  {'bucketed cut':>13}  {'sorted cut':>11}  {'ratio':>7}  |  "
          f"{'encode y':>9}  {'np.unique':>10}  {'ratio':>7}")
    for n in args.sizes:
        y = rng.random(n) < 0.3
        s = rng.standard_normal(n) + y
        t_c, cut = best_time(lambda: best_accuracy_threshold(y, s), args.repeat)
        t_w, cut_w = best_time(lambda: best_accuracy_threshold(y, s, sample_weight=np.ones(n)),
                               args.repeat)
        assert cut == cut_w, (cut, cut_w)
        yl = np.where(y, 1.0, -1.0)
        t_e, _ = best_time(lambda: encode_binary(yl), args.repeat)
        t_u, _ = best_time(lambda: np.unique(yl, return_inverse=True), args.repeat)
        print(f"{n:>10}  {t_c:>12.3f}s  {t_w:>10.3f}s  {t_w / t_c:>6.1f}x  |  {t_e:>8.3f}s  "
              f"{t_u:>9.3f}s  {t_u / t_e:>6.1f}x")


if __name__ == "__main__":
    main()
