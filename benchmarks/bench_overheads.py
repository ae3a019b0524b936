"""The sort, the calibration pass and SPAM's step, each against the way it was done before.

Three kernels that every fit of some estimator runs, each timed in one process,
alternating with a reference that computes the same thing (medians of
``--repeat`` rounds; the ratio is kernel time / reference time):

* **sort**: ``radix_sort.argsort_scores`` (the radix kernel at every size)
  against numpy's stable argsort plus the gather of ``s[order]``, which it used
  below 2^16 rows, on 2^10 .. 2^16 normal scores; the two orders are checked
  equal. Then the radix kernel's two layouts against each other at 2^16 .. 2^22
  scores (``s = X w`` of generated rows, with the two-label sweep's row flags):
  the float64 keys moved with their rows, which give the sorted scores (the
  default from ``RECORDS_MIN`` rows), against the float32 keys packed with the
  rows and the gather of ``s[order]``; the orders, sorted scores and signs are
  checked equal.
* **calibration pass**: ``platt.platt_block_sums`` with class weights (no weight
  array; one ``log`` per 256 rows of a class, of a product) against the same
  weights given per row (a ``log1p`` a row), on ``--rows`` scores; the gradient
  and Hessian are checked to be the same bits.
* **X's value check**: :func:`birank._parallel.scan_values` (finite, and the
  largest magnitude, in one pass; what every fit's ``check_values`` runs) with
  ``n_jobs`` 1 and 2, against numpy's ``isfinite``, ``max`` and ``min`` (the
  check before it, three passes), on the 2e7 stored values of
  ``make_sparse_bipartite(10**6, nnz_per_row=20)``; the answers are checked equal.
* **roc_auc's split by class**: ``metrics._twice_mann_whitney_pieces`` (each piece
  of rows split by class in one pass without a branch, ``split_classes``, then
  sorted) with 1 and 2 threads, against the way it was done before: the two
  classes gathered by boolean masks (``s[mask]``, ``s[~mask]``) on the calling
  thread, then their pieces sorted on the threads; every (positive, negative)
  pair of pieces merged in both. On ``--auc-rows`` (10^7) scores rounded to 4
  digits (ties), 30% positive; the counts are checked equal.
* **query ids**: what a fit or a per-query metric does with ``groups`` before its
  sweeps, on 10^6 rows in 10^4 shuffled integer query ids: the codes
  (``_validation.codes_of``: which values occur, numbered, no sort) and the rows
  grouped (``_lexsort.rows_by_group``: one counting pass) against ``np.unique``
  and numpy's stable argsort of the codes; the codes and orders are checked equal.
* **SPAM's step**: ``spam._spam_l2_pass`` (``w`` and the class means as scaled
  vectors, O(non-zeros) a row) against ``spam._spam_dense_pass`` with
  ``beta1 = 0`` (the same algorithm written densely, O(d) a row), one pass over
  ``make_sparse_bipartite`` rows at 123 and 2^20 features; the two ``w`` are
  checked equal to 1e-10.

Usage::

    python benchmarks/bench_overheads.py [--rows 50000] [--repeat 9] [--sort-bits 22]
        [--only sort layouts calibration values auc groups spam] [--auc-rows 1e7]
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from _timing import medians  # (benchmarks/_timing.py)

from birank._kernels.platt import platt_block_sums
from birank._kernels.radix_sort import argsort_scores, radix_scratch
from birank._kernels.spam import _spam_dense_pass, _spam_l2_pass
from birank._parallel import scan_values
from birank._validation import kernel_rows
from birank.datasets import make_sparse_bipartite


def alternate(first, second, repeat):
    """Median times of two callables run alternately (after one call of each)."""
    first(), second()
    return medians([first, second], repeat)


def sorts(repeat):
    rng = np.random.default_rng(0)
    print("sort (radix kernel vs numpy's stable argsort + gather):")
    for bits in (10, 14, 15, 16):
        n = 1 << bits
        s = rng.normal(size=n)
        order, ss, scratch = np.empty(n, dtype=np.int64), np.empty(n), radix_scratch(n)
        ref_order, ref_ss = np.empty(n, dtype=np.int64), np.empty(n)

        def numpy_sort():
            ref_order[:] = np.argsort(s, kind="stable")
            np.take(s, ref_order, out=ref_ss)

        t_k, t_n = alternate(lambda: argsort_scores(s, order, scratch, sorted_out=ss),
                             numpy_sort, repeat)
        same = np.array_equal(order, ref_order) and np.array_equal(ss, ref_ss)
        print(f"  2^{bits}: kernel {t_k * 1e3:7.3f} ms, numpy {t_n * 1e3:7.3f} ms: "
              f"ratio {t_k / t_n:.2f}; same order: {same}")


def sort_layouts(repeat, largest):
    from birank._kernels.radix_sort import RECORDS_MIN

    rng = np.random.default_rng(3)
    print(f"radix sort layouts (float64 keys with rows vs float32 keys packed + gather; "
          f"records from 2^{RECORDS_MIN.bit_length() - 1} rows):")
    for bits in range(16, largest + 1):
        n = 1 << bits
        X = make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20, random_state=0)[0]
        s = X @ (rng.normal(size=X.shape[1]) / np.sqrt(20))  # scores of a fit's scale
        out = {}
        for records in (True, False):
            out[records] = (np.empty(n, dtype=np.int64), np.empty(n),
                            radix_scratch(n, records=records))

        def run(records):
            order, ss, scratch = out[records]
            argsort_scores(s, order, scratch, sorted_out=ss)

        t_r, t_p = alternate(lambda: run(True), lambda: run(False), repeat)
        same = all(np.array_equal(a, b) for a, b in zip(out[True][:2], out[False][:2]))
        print(f"  2^{bits}: records {t_r * 1e3:8.3f} ms, packed + gather {t_p * 1e3:8.3f} ms: "
              f"ratio {t_r / t_p:.2f}; same order and scores: {same}")


def calibration(n, repeat):
    rng = np.random.default_rng(1)
    s = rng.normal(size=n)
    pos = rng.random(n) < 0.3
    w_rows = np.where(pos, 1.5, 0.5)
    out_c, out_r = np.empty((1, 6)), np.empty((1, 6))
    common = (0.0, 1.0, 0.9, 0.1, 1.3, -0.2, 1 << 30)

    def by_class():
        platt_block_sums(s, pos, np.zeros(0), 1.5, 0.5, *common, out_c, 0, 1)

    def by_row():
        platt_block_sums(s, pos, w_rows, 1.0, 1.0, *common, out_r, 0, 1)

    t_c, t_r = alternate(by_class, by_row, repeat)
    same = np.array_equal(out_c[0, 1:], out_r[0, 1:])
    rel = abs(out_c[0, 0] - out_r[0, 0]) / abs(out_r[0, 0])
    print(f"calibration pass, {n:,} scores: class weights {t_c / n * 1e9:.1f} ns a row, "
          f"weights per row {t_r / n * 1e9:.1f} ns a row: ratio {t_c / t_r:.2f}; gradient and "
          f"Hessian the same bits: {same}; log-loss {rel:.1e} apart (relative)")


def spam(repeat):
    print("SPAM-L2, one pass (scaled vectors vs the dense algorithm):")
    for d, n in ((123, 20_000), (1 << 20, 1_000)):
        X, y, _ = make_sparse_bipartite(n, n_features=d, nnz_per_row=20, random_state=0)
        rows = kernel_rows(X)
        y01 = (y > 0).astype(np.int8)
        sw = np.ones(n)
        results = {}

        def run(kernel, key):
            w, counts, means = np.zeros(d), np.zeros(2), np.zeros((2, d))
            scales, dots = np.ones(3), np.zeros(2)
            args = (rows, y01, sw, 0, n, w, counts, means, scales, dots, 0, 0.1, 0.5, 1e-4)
            if kernel is _spam_dense_pass:
                kernel(*args, 0.0)
            else:
                kernel(*args)
            results[key] = w * scales[0]

        t_l, t_d = alternate(lambda: run(_spam_l2_pass, "l2"), lambda: run(_spam_dense_pass, "d"),
                             repeat)
        close = np.allclose(results["l2"], results["d"], rtol=1e-10, atol=1e-12)
        print(f"  {d:>9,} features, {n:,} rows: scaled {t_l * 1e3:9.2f} ms, dense "
              f"{t_d * 1e3:9.2f} ms: ratio {t_l / t_d:.4f}; same w (1e-10): {close}")


def value_check(repeat):
    X, _, _ = make_sparse_bipartite(10**6, n_features=10**4, nnz_per_row=20, random_state=0)
    data = X.data

    def numpy_check():
        return bool(np.isfinite(data).all()), max(float(data.max()), -float(data.min()))

    print(f"X's value check (finite, largest |x|), {data.size:,} stored values: one pass "
          "vs numpy's isfinite + max + min:")
    for n_jobs in (1, 2):
        t_k, t_n = alternate(lambda: scan_values(data, n_jobs), numpy_check, repeat)
        same = scan_values(data, n_jobs) == numpy_check()
        print(f"  n_jobs={n_jobs}: one pass {t_k * 1e3:6.2f} ms, numpy {t_n * 1e3:6.2f} ms: "
              f"ratio {t_k / t_n:.3f}; same answer: {same}")


def auc_split(m, repeat):
    from concurrent.futures import ThreadPoolExecutor

    from birank import metrics

    rng = np.random.default_rng(0)
    y = rng.random(m) < 0.3
    s = np.round(rng.standard_normal(m), 4)

    def before(k):  # the classes gathered on the calling thread, their pieces sorted on k
        pos, neg = s[y], s[~y]
        if k == 1:
            return metrics._twice_mann_whitney(metrics._sorted_in_place(pos),
                                               metrics._sorted_in_place(neg))
        with ThreadPoolExecutor(k) as pool:
            p = list(pool.map(metrics._sorted_in_place, np.array_split(pos, k)))
            q = list(pool.map(metrics._sorted_in_place, np.array_split(neg, k)))
            return sum(pool.map(lambda ab: metrics._twice_mann_whitney(*ab),
                                [(a, b) for a in p for b in q]))

    print(f"roc_auc's split by class, {m:,} scores: one pass by pieces vs boolean gathers:")
    for k in (1, 2):
        t_k, t_b = alternate(lambda: metrics._twice_mann_whitney_pieces(s, y, k),
                             lambda: before(k), repeat)
        same = metrics._twice_mann_whitney_pieces(s, y, k)[0] == before(k)
        print(f"  {k} thread{'s' if k > 1 else ''}: pieces {t_k * 1e3:6.1f} ms, gathers "
              f"{t_b * 1e3:6.1f} ms: ratio {t_k / t_b:.3f}; same count: {same}")


def query_ids(repeat):
    from birank._lexsort import rows_by_group
    from birank._validation import codes_of

    rng = np.random.default_rng(0)
    n = 10**6
    ids = rng.permutation(np.arange(n) // 100) * 7 + 3  # 10^4 ids, rows not contiguous

    def kernel():
        codes = codes_of(ids)
        return codes, rows_by_group(codes)

    def reference():
        codes = np.unique(ids, return_inverse=True)[1]
        return codes, np.argsort(codes, kind="stable")

    (c1, o1), (c2, o2) = kernel(), reference()
    same = np.array_equal(c1, c2) and np.array_equal(o1, o2)
    t_k, t_r = alternate(kernel, reference, repeat)
    print(f"query ids ({n:,d} rows, 10^4 shuffled integer ids): codes and grouped rows "
          f"{t_k * 1e3:.1f} ms against np.unique + stable argsort {t_r * 1e3:.1f} ms: "
          f"ratio {t_k / t_r:.2f}; same codes and order: {same}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=5e4)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--sort-bits", type=int, default=22,
                    help="the largest 2^bits rows of the sort layouts' comparison")
    ap.add_argument("--auc-rows", type=float, default=1e7)
    parts = ["sort", "layouts", "calibration", "values", "auc", "groups", "spam"]
    ap.add_argument("--only", nargs="+", choices=parts, default=parts,
                    help="the comparisons to run (default: all)")
    args = ap.parse_args()
    print(f"medians of {args.repeat} alternating rounds; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores; ratio = kernel / reference")
    if "sort" in args.only:
        sorts(args.repeat)
    if "layouts" in args.only:
        sort_layouts(args.repeat, args.sort_bits)
    if "calibration" in args.only:
        calibration(int(args.rows), args.repeat)
    if "values" in args.only:
        value_check(args.repeat)
    if "auc" in args.only:
        auc_split(int(args.auc_rows), args.repeat)
    if "groups" in args.only:
        query_ids(args.repeat)
    if "spam" in args.only:
        spam(max(3, args.repeat // 3))


if __name__ == "__main__":
    main()
