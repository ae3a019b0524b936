"""Peak extra memory (and time) of birank's bounded-memory paths against in-process references.

Every figure is measured here, in one process, next to its reference. A peak is
tracemalloc's peak during the call (numpy's and numba's array allocations are
traced; what existed before the call is not counted, what the call returns is); a
time is the best of ``--repeat`` runs without tracemalloc, alternating with the
reference's runs. A warm-up call on small data comes first (no compilation inside a
measurement). Each line prints the birank figure, the reference, their ratio, and
PASS or MISS against the bound the code is designed for. A memory bound is stated in
bytes (a fraction of X, a fixed block the code documents, 1 kB a row for O(N) paths)
and printed as a ratio of the reference; the fractions are the measured figures of
stop 48 with headroom. ``rss+`` is the growth of the resident high-water mark over
the call, a cross-check of what tracemalloc cannot see (n/a where
/proc/self/clear_refs is not writable; freed heap is handed back first, glibc's
``malloc_trim``, but pages the allocator keeps are not counted again, so it can read
below the traced peak).

Cases (defaults; each size is an option, ``--quick`` shrinks them all):

- ``ties``: ``PrunedRankSVM(random_state=0, max_iter=20)`` fit on 20,000 rows x 5 with
  10,000 tied label values (2 rows each: level 1 holds 4 x 9,999 of the 2 x 10^8
  pairs, more than N - 1, so N - 1 of them are drawn). References: a brute-force numpy
  enumeration of the N(N-1)/2 pairs keeping level 1 and drawing N - 1 of them, on
  ``--ties-ref-rows`` rows with the same rows per value, scaled by (N / rows)^2 (it
  would not fit at N); and the same fit on all-distinct labels (the path without
  ties). Bound: O(N), 1 kB a row.
- ``rbf``: ``PrunedRankSVM(kernel="rbf", max_iter=5, random_state=0)`` fit on 20,000
  rows x 10, real-valued labels and binary ones, then the binary model's
  ``decision_function`` on the same rows. References: the N x N (fit) and N x n_sv
  (scoring) RBF kernel matrices materialized with numpy on ``--rbf-ref-rows`` rows and
  scaled by (N / rows)^2 and N / rows. Bounds: the fit caches the kernel only when its
  8 N^2 bytes fit ``cache_size`` (default 1024 MB), so at 20,000 rows it holds nothing
  of size N^2 (1 kB a row), and when it fits, 1.25 x the kernel more; scoring works in
  row blocks of min(cache_size, 64) MB, and a two-class fit scores its training rows
  so for the decision cut (1.25 x a block more).
- ``f32``: ``RankSVM()`` on dense float32 X, 640,000 x 100, no float64 copy of X (that
  copy alone is 2 X). References: X's bytes; the same fit on the float64 copy of X
  (peak and time).
- ``wsvm``: ``WeightedSVM(loss="squared_hinge")`` on dense float64 X, 160,000 x 100.
  References: X's bytes; for the time scikit-learn's ``LinearSVC`` on the same objective
  (squared hinge, C=1, class_weight="balanced", no intercept) with its primal Newton
  (``dual=False``, LIBLINEAR -s 2; the objectives' ratio is printed: 1 to 1e-8).
- ``online``: ``OAM``, ``PGD``, ``AdaOAM`` ``fit`` + ``decision_function`` on the dense X
  of ``make_sparse_bipartite(160000, n_features=100)`` (X 122 MB). Reference: X's bytes;
  bound 0.25 X + the 4 MB block of rows they convert at a time.
- ``bbr``: ``BBR().fit`` on the same dense X. References: X's bytes, and the class
  moments computed the plain numpy way (``X[y == c]``); bound 0.15 X + 3 of the 8 MB
  row blocks the class scatter is summed over.
- ``arl``: ``ActiveRankLearner(random_state=0).query()`` on the same dense pool
  (queries of 50 rows, every 10th row taught, refitted). Reference: X's bytes.
- ``qm``: ``active_learning.query_metrics`` on 160,000 queries of 4 rows (graded
  labels 0..2). Reference: a Python loop calling ``birank.metrics`` (``roc_auc``,
  ``mean_average_precision``, ``ndcg_at_k``) query by query, on the first
  ``--loop-queries`` queries (the three means agree, checked); times per query.

Usage::

    python benchmarks/bench_memory.py [--quick] [--repeat 3] [--only ties rbf ...]
        [--rows 160000] [--features 100] [--f32-rows 640000]
        [--ties-rows 20000] [--ties-values 10000] [--ties-ref-rows 2000]
        [--rbf-rows 20000] [--rbf-ref-rows 2500] [--queries 160000] [--loop-queries 5000]

The default run takes about 2 minutes on 2 cores and under 1 GB (the float32 case holds
X and its float64 copy); ``--quick`` about 15 s.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import subprocess
import tracemalloc
import warnings

import numpy as np

from _timing import bests  # (benchmarks/_timing.py)

MB = 2.0 ** 20
CASES = ("ties", "rbf", "f32", "wsvm", "online", "bbr", "arl", "qm")
_SCORE_BLOCK_MB = 64.0  # PrunedRankSVM's scoring block bound (documented in decision_function)
ROW_BYTES = 1024.0  # the O(N) bounds: 1 kB a row


# ------------------------------------------------------------------ measuring
def _status_mb(key):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def _trim():
    """Give freed heap pages back to the system (glibc), so that rss+ counts the call's
    pages again instead of reusing ones already resident."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _reset_hwm():
    _trim()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak(fn):
    """(tracemalloc peak in bytes, resident high-water growth in MB or None, fn's result)."""
    gc.collect()
    hwm = _reset_hwm()
    rss0 = _status_mb("VmRSS") if hwm else None
    tracemalloc.start()
    out = fn()
    p = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = _status_mb("VmHWM") - rss0 if hwm and rss0 is not None else None
    return p, rss, out


def best_times(fns, repeat):
    """The best wall time of each callable, run alternately (a shared machine's load
    then weighs on birank and its reference alike), after a collection."""
    gc.collect()
    return bests(fns, repeat)


def _mb(b):
    return b / MB


def _rss(r):
    return "   n/a" if r is None else f"{r:6.1f}"


def mem_line(case, p, rss, ref_name, ref_bytes, bound_bytes, bound_text):
    """One line: birank's peak, the reference, their ratio, and the bound (stated in bytes by
    ``bound_text``, printed as a ratio of the reference)."""
    ratio, bound = p / ref_bytes, bound_bytes / ref_bytes
    verdict = "PASS" if p <= bound_bytes else "MISS"
    print(f"  {case:<48} {_mb(p):9.1f} {_rss(rss)} | {ref_name:<44} {_mb(ref_bytes):9.1f} | "
          f"{ratio:8.4f} | <= {bound:.4f} ({bound_text}) {verdict}", flush=True)
    return verdict


def time_line(case, t, ref_name, t_ref, bound, unit="s"):
    ratio = t / t_ref
    verdict = "PASS" if ratio <= bound else "MISS"
    scale, u, d = (1e6, "us", 1) if unit == "us" else (1.0, "s", 3)
    # the columns of mem_line: 16 characters for birank's figure, 9 for the reference's
    print(f"  {case:<48} {t * scale:{13 - len(u)}.{d}f} {u} | {ref_name:<44} "
          f"{t_ref * scale:{8 - len(u)}.{d}f} {u} | {ratio:8.4f} | <= {bound:g} {verdict}",
          flush=True)
    return verdict


def _tree():
    """The commit of the tree birank is imported from, and how many of its src/ files differ."""
    import birank

    src = os.path.dirname(os.path.dirname(os.path.abspath(birank.__file__)))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=src,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "."], cwd=src,
                               capture_output=True, text=True, check=True).stdout.split("\n")
        n = sum(1 for line in dirty if line.strip())
        return head + (f" (+{n} uncommitted files under src/)" if n else "") + f" at {src}"
    except (OSError, subprocess.CalledProcessError):
        return f"unknown (birank from {src})"


# ------------------------------------------------------------------ references
def rbf_kernel_numpy(A, B, gamma):
    """exp(-gamma |a - b|^2) as one dense float64 matrix, in place (the smallest naive peak)."""
    K = A @ B.T
    K *= -2.0
    K += np.einsum("ij,ij->i", A, A)[:, None]
    K += np.einsum("ij,ij->i", B, B)[None, :]
    np.maximum(K, 0.0, out=K)
    K *= -gamma
    np.exp(K, out=K)
    return K


def brute_level_one(y, size, seed):
    """Enumerate all N(N-1)/2 row pairs, keep level 1 (adjacent distinct label values),
    draw ``size`` of them uniformly: the naive way to the pairs PrunedRankSVM trains on."""
    _, rank = np.unique(y, return_inverse=True)
    i, j = np.triu_indices(y.shape[0], 1)
    level = np.abs(rank[i] - rank[j])
    ones = np.flatnonzero(level == 1)
    pick = np.random.default_rng(seed).choice(ones.shape[0], size=size, replace=False)
    return i[ones[pick]], j[ones[pick]], int(np.count_nonzero(level))


def naive_class_moments(X, y):
    """Per-class means and second moments X_c' X_c / N_c, the plain numpy way."""
    out = []
    for c in np.unique(y):
        Xc = X[y == c]
        out.append((Xc.mean(axis=0), Xc.T @ Xc / Xc.shape[0]))
    return out


# ------------------------------------------------------------------ cases
def case_ties(a, res):
    from birank import PrunedRankSVM

    n, values, n_ref = a.ties_rows, a.ties_values, a.ties_ref_rows
    per = max(1, n // values)
    r = np.random.default_rng(0)
    X = r.standard_normal((n, 5))
    y = (np.arange(n) // per).astype(float)  # `values` label values, `per` rows each
    y_distinct = np.arange(n, dtype=float)

    def fit(yy):
        return lambda: PrunedRankSVM(random_state=0, max_iter=20).fit(X, yy)

    for yy in (y, y_distinct):  # warm-up, both paths
        PrunedRankSVM(random_state=0, max_iter=20).fit(X[:200], yy[:200])
    p, rss, m = peak(fit(y))
    p_d, _, _ = peak(fit(y_distinct))
    # brute force on n_ref rows, the same rows per label value, scaled by (n / n_ref)^2
    y_ref = (np.arange(n_ref) // per).astype(float)
    brute_level_one(y_ref[:100], 10, 0)
    p_b, _, (_, _, n_ordinal) = peak(lambda: brute_level_one(y_ref, n_ref - 1, 0))
    t, t_d, t_b = best_times([fit(y), fit(y_distinct),
                              lambda: brute_level_one(y_ref, n_ref - 1, 0)], a.repeat)
    m_ref = PrunedRankSVM(random_state=0, max_iter=20).fit(X[:n_ref], y_ref)
    scale = (n / n_ref) ** 2
    name = f"PrunedRankSVM fit {n}x5, {n // per} tied values"
    print(f"  ({name}: {m.n_pairs_} pairs trained of {m.n_total_pairs_}; brute force on {n_ref} "
          f"rows counts {n_ordinal} ordinal pairs, the fit's n_total_pairs_ there "
          f"{m_ref.n_total_pairs_}: {'equal' if n_ordinal == m_ref.n_total_pairs_ else 'DIFFER'}; "
          f"scaled x{scale:g})")
    res.append(mem_line(name, p, rss, f"brute-force level-1 pairs, {n_ref} rows x{scale:g}",
                        p_b * scale, ROW_BYTES * n, "O(N): 1 kB a row"))
    res.append(mem_line("  same", p, rss, f"same fit, {n} distinct labels", p_d, 1.5 * p_d,
                        "1.5 x the reference"))
    res.append(time_line(name, t, f"brute-force level-1 pairs, {n_ref} rows x{scale:g}",
                         t_b * scale, 0.1))
    res.append(time_line("  same", t, f"same fit, {n} distinct labels", t_d, 2.0))


def case_rbf(a, res):
    from birank import PrunedRankSVM

    n, n_ref = a.rbf_rows, min(a.rbf_ref_rows, a.rbf_rows)
    r = np.random.default_rng(0)
    X = r.uniform(-1, 1, (n, 10))
    y_real = X @ r.uniform(-1, 1, 10) + 0.3 * r.standard_normal(n)
    y_bin = (y_real > 0).astype(int)

    def est():
        return PrunedRankSVM(kernel="rbf", max_iter=5, random_state=0)

    cache = est().cache_size * MB
    kernel = 8.0 * n * n
    cached = kernel <= cache
    ref_k = None
    for label, y in (("real-valued", y_real), ("binary", y_bin)):
        est().fit(X[:300], y[:300])  # warm-up
        p, rss, m = peak(lambda: est().fit(X, y))
        if ref_k is None:
            p_k, _, K = peak(lambda: rbf_kernel_numpy(X[:n_ref], X[:n_ref], m.gamma_))
            del K
            ref_k = p_k * (n / n_ref) ** 2
        # O(N); the kernel when it fits cache_size; with two classes the training
        # scores for the decision cut, in row blocks of min(cache_size, 64 MB)
        bound, text = ROW_BYTES * n, "1 kB a row"
        if cached:
            bound, text = bound + 1.25 * kernel, text + " + 1.25 x the cached kernel"
        if label == "binary":
            block = min(cache, _SCORE_BLOCK_MB * MB, 8.0 * n * m.dual_coef_.size)
            bound, text = bound + 1.25 * block, text + " + 1.25 x a scoring block"
        name = f"PrunedRankSVM RBF fit {n}x10, {label} y"
        print(f"  ({name}: {m.n_pairs_} pairs, {m.dual_coef_.size} support vectors; the "
              f"{n} x {n} kernel is {_mb(kernel):.0f} MB against cache_size={_mb(cache):g} MB: "
              f"{'cached' if cached else 'not cached'}"
              f"{'; then the training scores for the decision cut' if label == 'binary' else ''})")
        res.append(mem_line(name, p, rss, f"numpy RBF kernel, {n_ref} rows x{(n / n_ref) ** 2:g}",
                            ref_k, bound, text))

    m.decision_function(X[:10])  # warm-up (the binary model)
    p, rss, s = peak(lambda: m.decision_function(X))
    sv = m.support_vectors_
    p_k, _, K = peak(lambda: rbf_kernel_numpy(X[:n_ref], sv, m.gamma_))
    err = float(np.max(np.abs(K @ m.dual_coef_ + m.intercept_ - s[:n_ref])) /
                max(float(np.max(np.abs(s))), 1e-300))
    del K
    scale = n / n_ref
    block = min(cache, _SCORE_BLOCK_MB * MB)
    full = 8.0 * n * sv.shape[0]
    bound_b = 1.25 * min(block, full) + 16.0 * n
    name = f"PrunedRankSVM RBF decision_function {n}x10"
    print(f"  ({name}, the binary model: {sv.shape[0]} support vectors; scores equal the numpy "
          f"kernel's to {err:.1e} relative; bound: 1.25 x min(the {_mb(full):.0f} MB kernel, "
          f"a {_mb(block):.0f} MB block) + 16 bytes a row = {_mb(bound_b):.1f} MB)")
    res.append(mem_line(name, p, rss, f"numpy RBF kernel, {n_ref} rows x{scale:g}", p_k * scale,
                        bound_b, "1.25 x min(kernel, block) + 16 B a row"))


def case_f32(a, res):
    from birank import RankSVM

    n, d = a.f32_rows, a.features
    r = np.random.default_rng(0)
    X = r.standard_normal((n, d), dtype=np.float32)
    y = (X[:, 0] + r.standard_normal(n) > 1).astype(int)
    RankSVM().fit(X[:2000], y[:2000])  # warm-up
    p, rss, _ = peak(lambda: RankSVM().fit(X, y))
    X64 = X.astype(np.float64)
    RankSVM().fit(X64[:2000], y[:2000])
    p64, _, _ = peak(lambda: RankSVM().fit(X64, y))
    t, t64 = best_times([lambda: RankSVM().fit(X, y), lambda: RankSVM().fit(X64, y)], a.repeat)
    del X64
    name = f"RankSVM fit, dense float32 {n}x{d}"
    res.append(mem_line(name, p, rss, f"X (float32) {n}x{d}", X.nbytes, 0.75 * X.nbytes,
                        "0.75 X; a float64 copy alone is 2 X"))
    res.append(mem_line("  same", p, rss, "same fit on the float64 copy of X", p64, 1.25 * p64,
                        "1.25 x the reference"))
    res.append(time_line(name, t, "same fit on the float64 copy of X", t64, 1.0))


def case_wsvm(a, res):
    from sklearn.svm import LinearSVC

    from birank import WeightedSVM

    n, d = a.rows, a.features
    r = np.random.default_rng(0)
    X = r.standard_normal((n, d))
    y = (X[:, 0] + r.standard_normal(n) > 1).astype(int)
    WeightedSVM(loss="squared_hinge").fit(X[:2000], y[:2000])  # warm-up
    p, rss, _ = peak(lambda: WeightedSVM(loss="squared_hinge").fit(X, y))
    svc = LinearSVC(C=1.0, loss="squared_hinge", fit_intercept=False, class_weight="balanced",
                    dual=False)
    t, t_ref = best_times([lambda: WeightedSVM(loss="squared_hinge").fit(X, y),
                           lambda: svc.fit(X, y)], a.repeat)
    w = WeightedSVM(loss="squared_hinge").fit(X, y)
    print(f"  (WeightedSVM {w.n_iter_} Newton steps, LinearSVC {int(np.max(svc.n_iter_))}; "
          f"objective WeightedSVM / LinearSVC - 1 = "
          f"{_svm_objective(w.coef_, X, y) / _svm_objective(svc.coef_, X, y) - 1:.1e})")
    name = f"WeightedSVM squared hinge, dense f64 {n}x{d}"
    res.append(mem_line(name, p, rss, f"X (float64) {n}x{d}", X.nbytes, 0.25 * X.nbytes,
                        "0.25 X"))
    res.append(time_line(name, t, "LinearSVC primal Newton, same objective", t_ref, 1.0))


def _svm_objective(coef, X, y):
    """1/2 |w|^2 + sum_i c_i max(0, 1 - s_i w.x_i)^2, class_weight='balanced' c_i, C = 1."""
    w = np.ravel(coef)
    n, n1 = y.shape[0], int(np.count_nonzero(y == 1))
    c = np.where(y == 1, n / (2.0 * n1), n / (2.0 * (n - n1)))
    margin = np.maximum(0.0, 1.0 - np.where(y == 1, 1.0, -1.0) * (X @ w))
    return 0.5 * float(w @ w) + float(c @ margin ** 2)


def _bipartite_dense(n, d):
    from birank.datasets import make_sparse_bipartite

    Xs, y, _ = make_sparse_bipartite(n, n_features=d, nnz_per_row=min(20, d), random_state=0)
    return Xs.toarray(), y


def case_online(a, res, X, y):
    import birank

    n, d = X.shape
    for name in ("OAM", "PGD", "AdaOAM"):
        cls = getattr(birank, name)
        cls(random_state=0).fit(X[:2000], y[:2000]).decision_function(X[:10])  # warm-up
        p, rss, _ = peak(lambda: cls(random_state=0).fit(X, y).decision_function(X))
        res.append(mem_line(f"{name} fit + decision_function, dense {n}x{d}", p, rss,
                            f"X (float64) {n}x{d}", X.nbytes, 0.25 * X.nbytes + 4 * MB,
                            "0.25 X + one 4 MB block of rows"))


def case_bbr(a, res, X, y):
    from birank import BBR

    n, d = X.shape
    BBR().fit(X[:2000], y[:2000])  # warm-up
    p, rss, _ = peak(lambda: BBR().fit(X, y))
    p_ref, _, _ = peak(lambda: naive_class_moments(X, y))
    name = f"BBR fit (dense moments) {n}x{d}"
    bound, text = 0.15 * X.nbytes + 24 * MB, "0.15 X + 3 row blocks of 8 MB"
    res.append(mem_line(name, p, rss, f"X (float64) {n}x{d}", X.nbytes, bound, text))
    res.append(mem_line("  same", p, rss, "class moments, plain numpy (X[y == c])", p_ref,
                        bound, text))


def case_arl(a, res, X, y):
    from birank import ActiveRankLearner

    n, d = X.shape
    g = np.arange(n) // 50

    def learner(m):
        L = ActiveRankLearner(random_state=0)
        seed = np.arange(0, m, 10)
        L.teach(seed, y[seed], X_pool=X[:m], groups=g[:m])
        return L.refit()

    learner(2000).query()  # warm-up
    L = learner(n)
    p, rss, q = peak(lambda: L.query())
    res.append(mem_line(f"ActiveRankLearner.query, dense pool {n}x{d}", p, rss,
                        f"X (float64) {n}x{d}", X.nbytes, 0.25 * X.nbytes, "0.25 X"))


def per_query_loop(y, s, n_queries, rows):
    """Means of the per-query AUC, AP and NDCG@10 by one birank.metrics call per query."""
    from birank.metrics import mean_average_precision, ndcg_at_k, roc_auc

    aucs, aps, ndcgs = [], [], []
    for q in range(n_queries):
        yq, sq = y[q * rows:(q + 1) * rows], s[q * rows:(q + 1) * rows]
        rel = (yq >= 1).astype(np.int8)
        if 0 < rel.sum() < rows:
            aucs.append(roc_auc(rel, sq))
        if rel.any():
            aps.append(mean_average_precision(rel, sq, relevance_threshold=1))
        if (yq > 0).any():
            ndcgs.append(ndcg_at_k(yq, sq, k=10))
    return {"auc": float(np.mean(aucs)), "map": float(np.mean(aps)), "ndcg": float(np.mean(ndcgs))}


def case_qm(a, res):
    from birank.active_learning import query_metrics

    nq, rows, nl = a.queries, 4, min(a.loop_queries, a.queries)
    r = np.random.default_rng(0)
    y = r.integers(0, 3, nq * rows).astype(float)
    s = r.standard_normal(nq * rows)
    g = np.arange(nq * rows) // rows
    query_metrics(y[:40], s[:40], g[:40])
    per_query_loop(y, s, 10, rows)  # warm-up
    t, t_loop = best_times([lambda: query_metrics(y, s, g),
                            lambda: per_query_loop(y, s, nl, rows)], a.repeat)
    want = per_query_loop(y, s, nl, rows)
    got = query_metrics(y[:nl * rows], s[:nl * rows], g[:nl * rows])
    diff = max(abs(got[k] - want[k]) for k in want)
    print(f"  (query_metrics {nq} queries: {t:.3f} s in all; the loop: {t_loop:.3f} s for {nl} "
          f"queries; on those, the three means agree to {diff:.1e})")
    res.append(time_line(f"query_metrics, {nq} queries of {rows} rows, per query", t / nq,
                         f"loop of birank.metrics calls, {nl} queries", t_loop / nl, 0.1,
                         unit="us"))


# ------------------------------------------------------------------ main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (about 15 s)")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many times")
    ap.add_argument("--only", nargs="+", choices=CASES, default=list(CASES))
    ap.add_argument("--rows", type=int, default=160_000, help="dense cases but f32")
    ap.add_argument("--features", type=int, default=100)
    ap.add_argument("--f32-rows", type=int, default=640_000)
    ap.add_argument("--ties-rows", type=int, default=20_000)
    ap.add_argument("--ties-values", type=int, default=10_000)
    ap.add_argument("--ties-ref-rows", type=int, default=2_000)
    ap.add_argument("--rbf-rows", type=int, default=20_000)
    ap.add_argument("--rbf-ref-rows", type=int, default=2_500)
    ap.add_argument("--queries", type=int, default=160_000)
    ap.add_argument("--loop-queries", type=int, default=5_000)
    a = ap.parse_args(argv)
    if a.quick:
        for key, small in [("rows", 20_000), ("f32_rows", 40_000), ("ties_rows", 4_000),
                           ("ties_values", 2_000), ("ties_ref_rows", 1_000), ("rbf_rows", 2_000),
                           ("rbf_ref_rows", 1_000), ("queries", 10_000), ("loop_queries", 500)]:
            if getattr(a, key) == ap.get_default(key):
                setattr(a, key, small)
    warnings.simplefilter("ignore")  # ConvergenceWarning of the few-iteration fits

    import numba
    import sklearn
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"# bench_memory {now}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"tree {_tree()}; numpy {np.__version__}, numba {numba.__version__}, "
          f"scikit-learn {sklearn.__version__}; repeat {a.repeat}{'; --quick' if a.quick else ''}")
    print("peak = tracemalloc peak during the call (MB); rss+ = resident high-water growth (MB); "
          "ratio = birank / reference; times: best of --repeat, alternating with the reference")
    res = []
    hdr = (f"  {'case':<48} {'birank':>9} {'rss+':>6} | {'reference':<44} {'ref':>9} | "
           f"{'ratio':>8} | bound")
    if {"ties", "rbf", "f32", "wsvm"} & set(a.only):
        print("\n" + hdr)
    if "ties" in a.only:
        case_ties(a, res)
    if "rbf" in a.only:
        case_rbf(a, res)
    if "f32" in a.only:
        case_f32(a, res)
    if "wsvm" in a.only:
        case_wsvm(a, res)
    if {"online", "bbr", "arl"} & set(a.only):
        X, y = _bipartite_dense(a.rows, a.features)
        print(f"\n  dense X of make_sparse_bipartite({a.rows}, n_features={a.features}, "
              f"nnz_per_row={min(20, a.features)}): {_mb(X.nbytes):.1f} MB")
        if "online" in a.only:
            case_online(a, res, X, y)
        if "bbr" in a.only:
            case_bbr(a, res, X, y)
        if "arl" in a.only:
            case_arl(a, res, X, y)
        del X
    if "qm" in a.only:
        print()
        case_qm(a, res)
    print(f"\n{res.count('PASS')} PASS, {res.count('MISS')} MISS; "
          f"load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
