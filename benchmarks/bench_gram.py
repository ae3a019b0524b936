"""CSR Gram products read with unsigned indices, against the same loops with signed ones.

``_kernels.pair_sweep_ops.csr_rows_gram_matvec`` (``sum_k w_k x_r (x_r . v)`` over a
subset of rows: WeightedSVM's and ActiveRankSVM's Newton Hessian product, BBR) and
``csr_gram_matvec`` (``X'(X v)``: BBR) read row pointers and column indices as
``np.uint64``, so numba adds no negative-index wraparound test to each access. The
reference below is each loop as it was, with the indices as stored (int32 / int64):
the same arithmetic, so the same bits (checked).

Rows: ``z_i = y_i x_i`` of ``make_sparse_bipartite(n, n_features=10_000,
nnz_per_row=20)`` (``--rows``), a
random subset of them active (``--active``, the squared hinge's rows with a positive
loss), and with ``--a9a PATH`` a9a's rows, values read and not read (its rows are all
+1 or all -1: ``signed_unit_rows``). Prints the median time of each kernel over
``--repeat`` alternating calls, the ratio unsigned / signed and whether the results
are the same bits.

Usage::

    python benchmarks/bench_gram.py [--rows 1e6] [--active 0.1 0.5 1.0] [--a9a PATH]
                                    [--repeat 9]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from birank._kernels.pair_sweep_ops import csr_gram_matvec, csr_rows_gram_matvec
from birank._kernels.sparse_rows import stored


@njit  # (compiled before the timing)
def rows_gram_signed(data, indices, indptr, rows, weights, v, out):
    """``csr_rows_gram_matvec`` as it was: the indices read as stored."""
    weighted = weights.shape[0] > 0
    for k in range(rows.shape[0]):
        r = rows[k]
        lo = indptr[r]
        hi = indptr[r + 1]
        acc = 0.0
        for p in range(lo, hi):
            acc += stored(data, p) * v[indices[p]]
        if weighted:
            acc *= weights[k]
        if acc != 0.0:
            for p in range(lo, hi):
                out[indices[p]] += stored(data, p) * acc
    return out


@njit  # (compiled before the timing)
def gram_signed(data, indices, indptr, v, out):
    """``csr_gram_matvec`` as it was."""
    for i in range(indptr.shape[0] - 1):
        lo = indptr[i]
        hi = indptr[i + 1]
        acc = 0.0
        for p in range(lo, hi):
            acc += data[p] * v[indices[p]]
        if acc != 0.0:
            for p in range(lo, hi):
                out[indices[p]] += data[p] * acc
    return out


def _pair(name, new, old, repeat):
    a, b = new(), old()
    same = a.tobytes() == b.tobytes()
    t_new, t_old = [], []
    for _ in range(repeat):
        for fn, acc in ((new, t_new), (old, t_old)):
            t0 = time.perf_counter()
            fn()
            acc.append(time.perf_counter() - t0)
    m_new, m_old = float(np.median(t_new)), float(np.median(t_old))
    print(f"{name}: signed {1e3 * m_old:.2f} ms, unsigned {1e3 * m_new:.2f} ms, "
          f"ratio {m_new / m_old:.2f}; same bits: {same}", flush=True)


def run(label, Z, data, active, repeat, rng):
    v = rng.normal(size=Z.shape[1])
    d = Z.shape[1]
    for frac in active:
        rows = np.flatnonzero(rng.random(Z.shape[0]) < frac)
        w = rng.uniform(0.5, 2.0, rows.shape[0])
        _pair(f"{label}, rows_gram, {frac:.0%} of the rows",
              lambda: csr_rows_gram_matvec(data, Z.indices, Z.indptr, rows, w, v, np.zeros(d)),
              lambda: rows_gram_signed(data, Z.indices, Z.indptr, rows, w, v, np.zeros(d)),
              repeat)
    if data is not None:
        _pair(f"{label}, gram (all rows)",
              lambda: csr_gram_matvec(data, Z.indices, Z.indptr, v, np.zeros(d)),
              lambda: gram_signed(data, Z.indices, Z.indptr, v, np.zeros(d)), repeat)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--active", type=float, nargs="+", default=[0.1, 0.5, 1.0])
    ap.add_argument("--a9a", default=None)
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args(argv)

    from birank.datasets import load_svmlight, make_sparse_bipartite
    from birank.solvers.point_newton import signed_rows

    rng = np.random.default_rng(0)
    print(f"medians of {args.repeat} alternating calls; ratio = unsigned / signed")
    X, y, _ = make_sparse_bipartite(int(args.rows), n_features=10_000, nnz_per_row=20,
                                    random_state=0)
    Z = signed_rows(X.tocsr(), y, False)
    run(f"{Z.shape[0]:,d} generated rows", Z, Z.data, args.active, args.repeat, rng)
    if args.a9a:
        Xa, ya = load_svmlight(args.a9a)
        Za = signed_rows(Xa, (ya > 0).astype(int), False)
        run("a9a, values read", Za, Za.data, args.active, args.repeat, rng)
        run("a9a, values not read", Za, None, args.active, args.repeat, rng)


if __name__ == "__main__":
    main()
