"""birank.metrics against brute-force all-pairs / per-query references and scikit-learn."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score

from birank.metrics import (
    kendall_tau,
    mean_average_precision,
    ndcg_at_k,
    optroc_accuracy,
    pairwise_accuracy,
    roc_auc,
)


# ----------------------------------------------------------------- brute-force oracles
def auc_bruteforce(y01, s, w=None):
    w = np.ones(len(s)) if w is None else w
    num = den = 0.0
    for i in np.flatnonzero(y01):
        for j in np.flatnonzero(~y01):
            pw = w[i] * w[j]
            den += pw
            num += pw * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
    return num / den


def pairwise_bruteforce(y, s, groups=None, w=None):
    n = len(y)
    w = np.ones(n) if w is None else w
    g = np.zeros(n) if groups is None else groups
    num = den = 0.0
    for i in range(n):
        for j in range(n):
            if g[i] != g[j] or not y[i] > y[j]:
                continue
            pw = w[i] * w[j]
            den += pw
            num += pw * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
    if den == 0:
        raise ZeroDivisionError("no pair with different labels")
    return num / den


def ap_bruteforce(rel, s):
    """AP with tied scores entering together: sum over thresholds of dRecall * precision."""
    R = rel.sum()
    ap, prev_recall = 0.0, 0.0
    for t in sorted(set(s.tolist()), reverse=True):
        top = s >= t
        recall = rel[top].sum() / R
        ap += (recall - prev_recall) * rel[top].sum() / top.sum()
        prev_recall = recall
    return ap


def ndcg_bruteforce(y, s, k):
    """Mean NDCG@k over every order of the tied rows (explicit permutations)."""
    gains = 2.0 ** y - 1
    disc = np.array([1 / np.log2(p + 2) if (k is None or p < k) else 0.0 for p in range(len(y))])
    ideal = np.sort(gains)[::-1] @ disc
    levels = sorted(set(s.tolist()), reverse=True)
    blocks = [np.flatnonzero(s == v) for v in levels]
    vals = []
    for perms in itertools.product(*[itertools.permutations(b) for b in blocks]):
        order = np.concatenate([np.array(p, dtype=int) for p in perms])
        vals.append(gains[order] @ disc / ideal)
    return float(np.mean(vals))


def random_case(rng, n_max=30, n_levels=None):
    n = int(rng.integers(2, n_max))
    levels = n_levels or int(rng.integers(1, 6))
    s = rng.integers(0, levels, n).astype(float)  # heavy ties
    if rng.random() < 0.3:
        s = s * 0.1 - 0.3  # non-integer scores
    return n, s


# ----------------------------------------------------------------- ROC AUC
@pytest.mark.kernel
def test_roc_auc_matches_bruteforce_small():
    rng = np.random.default_rng(1)
    for _ in range(60):
        n, s = random_case(rng, 12)
        y = rng.integers(0, 2, n).astype(bool)
        y[:2] = [True, False]
        w = rng.random(n) * (rng.random(n) < 0.8)
        w[:2] = [0.5, 1.5]
        assert roc_auc(y, s) == pytest.approx(auc_bruteforce(y, s), abs=1e-12)
        assert roc_auc(y, s, sample_weight=w) == pytest.approx(auc_bruteforce(y, s, w), abs=1e-12)


def test_roc_auc_matches_bruteforce_and_sklearn_many_cases():
    rng = np.random.default_rng(2)
    for _ in range(300):
        n, s = random_case(rng, 60)
        y = rng.choice([-1, 1], n)
        y[:2] = [1, -1]
        w = rng.exponential(size=n)
        y01 = y == 1
        a = roc_auc(y, s)
        assert a == pytest.approx(auc_bruteforce(y01, s), abs=1e-12)
        assert abs(a - roc_auc_score(y, s)) <= 1e-12
        aw = roc_auc(y, s, sample_weight=w)
        assert aw == pytest.approx(auc_bruteforce(y01, s, w), abs=1e-12)
        assert abs(aw - roc_auc_score(y, s, sample_weight=w)) <= 1e-12


def test_roc_auc_large_equals_sklearn():
    rng = np.random.default_rng(3)
    n = 200_000
    y = rng.random(n) < 0.2
    s = rng.integers(0, 1000, n) / 1000.0
    assert abs(roc_auc(y, s) - roc_auc_score(y, s)) <= 1e-12
    w = rng.random(n)
    assert abs(roc_auc(y, s, sample_weight=w) - roc_auc_score(y, s, sample_weight=w)) <= 1e-12


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(-3, 3), st.integers(0, 4)), min_size=2,
                max_size=25))
def test_roc_auc_hypothesis(rows):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], dtype=float)
    w = np.array([r[2] for r in rows], dtype=float)
    if y.all() or not y.any():
        with pytest.raises(ValueError, match="one class"):
            roc_auc(y, s)
        return
    assert roc_auc(y, s) == pytest.approx(auc_bruteforce(y, s), abs=1e-12)
    if w[y].sum() > 0 and w[~y].sum() > 0:
        assert roc_auc(y, s, sample_weight=w) == pytest.approx(auc_bruteforce(y, s, w), abs=1e-12)
    else:
        with pytest.raises(ValueError, match="zero total weight"):
            roc_auc(y, s, sample_weight=w)


def test_roc_auc_label_encodings():
    rng = np.random.default_rng(4)
    s = rng.integers(0, 4, 50).astype(float)
    y01 = rng.integers(0, 2, 50)
    y01[:2] = [0, 1]
    ref = roc_auc_score(y01, s)
    assert roc_auc(y01.astype(bool), s) == pytest.approx(ref, abs=1e-12)
    assert roc_auc(np.where(y01, 1, -1), s) == pytest.approx(ref, abs=1e-12)
    assert roc_auc(np.where(y01, 7.5, 2.0), s) == pytest.approx(ref, abs=1e-12)
    assert roc_auc(np.where(y01, "yes", "no"), s) == pytest.approx(ref, abs=1e-12)
    # pos_label picks the other class: the AUC flips
    assert roc_auc(np.where(y01, 1, -1), s, pos_label=-1) == pytest.approx(1 - ref, abs=1e-12)
    assert roc_auc(np.where(y01, "b", "a"), s, pos_label="a") == pytest.approx(1 - ref, abs=1e-12)
    assert roc_auc(y01.astype(bool), s, pos_label=False) == pytest.approx(1 - ref, abs=1e-12)
    # column vector labels and scores
    assert roc_auc(y01[:, None], s[:, None]) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize(
    "y, s, kw, match",
    [
        ([1, 1, 1], [0.1, 0.2, 0.3], {}, r"only one class \(1\)"),
        ([0, 1, 2], [0.1, 0.2, 0.3], {}, "exactly two label values"),
        ([0, 1, 1], [0.1, np.nan, 0.3], {}, "NaN or infinite"),
        ([0, 1, 1], [0.1, np.inf, 0.3], {}, "NaN or infinite"),
        ([0, 1, 1], [0.1, 0.3], {}, "different lengths"),
        ([0, 1, 1], [0.1, 0.2, 0.3], {"sample_weight": [1, -1, 1]}, "non-negative"),
        ([0, 1, 1], [0.1, 0.2, 0.3], {"sample_weight": [1, 1]}, "sample_weight has length"),
        ([0, 1, 1], [0.1, 0.2, 0.3], {"sample_weight": [1, 0, 0]}, "zero total weight"),
        ([0, 1, 1], [0.1, 0.2, 0.3], {"pos_label": 5}, "pos_label=5"),
        ([], [], {}, "empty"),
        ([0, np.nan, 1], [0.1, 0.2, 0.3], {}, "NaN"),
    ],
)
def test_roc_auc_errors(y, s, kw, match):
    with pytest.raises(ValueError, match=match):
        roc_auc(y, s, **kw)


# ----------------------------------------------------------------- pairwise accuracy
@pytest.mark.kernel
def test_pairwise_accuracy_bruteforce_small():
    rng = np.random.default_rng(5)
    for _ in range(40):
        n, s = random_case(rng, 12)
        y = rng.integers(0, 4, n).astype(float)
        y[:2] = [0, 3]
        g = rng.integers(0, 3, n)
        g[:2] = 7
        w = rng.random(n)
        assert pairwise_accuracy(y, s) == pytest.approx(pairwise_bruteforce(y, s), abs=1e-12)
        assert pairwise_accuracy(y, s, groups=g, sample_weight=w) == pytest.approx(
            pairwise_bruteforce(y, s, g, w), abs=1e-12)


def test_pairwise_accuracy_bruteforce_many_cases():
    rng = np.random.default_rng(6)
    done = 0
    while done < 300:
        n, s = random_case(rng, 40)
        y = rng.integers(0, int(rng.integers(2, 6)), n) * rng.choice([1.0, 0.5, -2.0])
        g = rng.choice(np.array(["q1", "q2", "q3", "q4"])[: int(rng.integers(1, 5))], n)
        w = rng.exponential(size=n) * (rng.random(n) < 0.9)
        try:
            ref = pairwise_bruteforce(y, s, g, w)
        except ZeroDivisionError:
            with pytest.raises(ValueError, match="no pair"):
                pairwise_accuracy(y, s, groups=g, sample_weight=w)
            continue
        got = pairwise_accuracy(y, s, groups=g, sample_weight=w)
        assert got == pytest.approx(ref, abs=1e-12)
        assert kendall_tau(y, s, groups=g, sample_weight=w) == pytest.approx(2 * ref - 1, abs=1e-12)
        if len(np.unique(g)) == 1 and len(np.unique(y)) > 1:
            assert pairwise_accuracy(y, s) == pytest.approx(pairwise_bruteforce(y, s), abs=1e-12)
        done += 1


def test_pairwise_accuracy_binary_equals_roc_auc():
    rng = np.random.default_rng(7)
    for _ in range(50):
        n, s = random_case(rng, 80)
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        w = rng.random(n)
        assert pairwise_accuracy(y, s) == pytest.approx(roc_auc(y, s), abs=1e-12)
        assert pairwise_accuracy(y, s, sample_weight=w) == pytest.approx(
            roc_auc(y, s, sample_weight=w), abs=1e-12)


def test_pairwise_accuracy_groups_need_not_be_contiguous():
    rng = np.random.default_rng(8)
    n = 500
    y = rng.integers(0, 5, n).astype(float)
    s = rng.integers(0, 20, n).astype(float)
    g = rng.integers(0, 30, n)
    perm = rng.permutation(n)
    a = pairwise_accuracy(y, s, groups=g)
    b = pairwise_accuracy(y[perm], s[perm], groups=g[perm])
    assert a == pytest.approx(b, abs=1e-13)
    # the overall ratio pools pairs of all groups: sum of per-group counts
    conc = den = 0.0
    for q in np.unique(g):
        m = g == q
        yy, ss = y[m], s[m]
        d = np.sign(yy[:, None] - yy[None, :]) > 0
        den += d.sum()
        ties = (ss[:, None] == ss[None, :]) & d
        conc += ((ss[:, None] > ss[None, :]) & d).sum() + 0.5 * ties.sum()
    assert a == pytest.approx(conc / den, abs=1e-12)


def test_kendall_tau_perfect_and_reversed():
    y = np.arange(10.0)
    assert kendall_tau(y, y * 3) == 1.0
    assert kendall_tau(y, -y) == -1.0
    assert kendall_tau(y, np.zeros(10)) == 0.0


def test_pairwise_accuracy_errors():
    with pytest.raises(ValueError, match="no pair of rows with different labels"):
        pairwise_accuracy([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="within a group"):
        pairwise_accuracy([1, 2, 1, 2], [0.1, 0.2, 0.3, 0.4], groups=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="one query id per sample"):
        pairwise_accuracy([1, 2], [0.1, 0.2], groups=[0])
    with pytest.raises(ValueError, match="NaN"):
        pairwise_accuracy([1, 2], [0.1, np.nan])
    with pytest.raises(ValueError, match="numeric"):
        pairwise_accuracy(["a", "b"], [0.1, 0.2])


# ----------------------------------------------------------------- MAP and NDCG
@pytest.mark.kernel
def test_map_and_ndcg_small_kernel():
    rng = np.random.default_rng(9)
    for _ in range(25):
        n = int(rng.integers(1, 6))
        y = rng.integers(0, 3, n).astype(float)
        y[0] = 1
        s = rng.integers(0, 3, n).astype(float)
        assert mean_average_precision(y, s) == pytest.approx(ap_bruteforce(y > 0, s), abs=1e-12)
        assert ndcg_at_k(y, s, k=3) == pytest.approx(ndcg_bruteforce(y, s, 3), abs=1e-12)


def test_map_ndcg_bruteforce_many_queries():
    rng = np.random.default_rng(10)
    for _ in range(220):
        n_q = int(rng.integers(1, 6))
        sizes = rng.integers(1, 7, n_q)
        g = np.repeat(rng.permutation(100)[:n_q], sizes)
        n = len(g)
        y = rng.integers(0, 4, n).astype(float) * (rng.random(n) < 0.6)
        s = rng.integers(0, 4, n).astype(float)
        perm = rng.permutation(n)  # rows of a query need not be contiguous
        g, y, s = g[perm], y[perm], s[perm]
        k = int(rng.integers(1, 6))
        aps, nds = [], []
        for q in np.unique(g):
            m = g == q
            if (y[m] > 0).any():
                aps.append(ap_bruteforce(y[m] > 0, s[m]))
                nds.append(ndcg_bruteforce(y[m], s[m], k))
        if not aps:
            with pytest.raises(ValueError, match="no query has a relevant item"):
                mean_average_precision(y, s, g)
            continue
        assert mean_average_precision(y, s, g) == pytest.approx(np.mean(aps), abs=1e-12)
        assert ndcg_at_k(y, s, g, k=k) == pytest.approx(np.mean(nds), abs=1e-12)
        # queries without relevant rows counted as 0 or 1 instead of skipped
        n_empty = len(np.unique(g)) - len(aps)
        total = len(np.unique(g))
        assert mean_average_precision(y, s, g, no_relevant="zero") == pytest.approx(
            np.sum(aps) / total, abs=1e-12)
        assert ndcg_at_k(y, s, g, k=k, no_relevant="one") == pytest.approx(
            (np.sum(nds) + n_empty) / total, abs=1e-12)


def test_map_and_ndcg_match_sklearn_per_query():
    rng = np.random.default_rng(11)
    for _ in range(50):
        n = int(rng.integers(2, 40))
        y = rng.integers(0, 4, n).astype(float)
        y[0] = 2
        s = rng.integers(0, 6, n) / 3.0
        rel = (y > 0).astype(int)
        if rel.all():
            rel[1:] = 0 if n > 1 else rel[1:]
            y = np.where(rel, y, 0)
        assert mean_average_precision(y, s) == pytest.approx(
            average_precision_score(rel, s), abs=1e-12)
        for k in (1, 3, 10, None):
            assert ndcg_at_k(y, s, k=k) == pytest.approx(
                ndcg_score([2 ** y - 1], [s], k=k), abs=1e-12)


def test_map_threshold_and_errors():
    y = np.array([3, 1, 0, 2])
    s = np.array([0.4, 0.9, 0.1, 0.5])
    # with relevance_threshold=2 only labels 3 and 2 are relevant
    assert mean_average_precision(y, s, relevance_threshold=2) == pytest.approx(
        average_precision_score(y > 1, s), abs=1e-12)
    with pytest.raises(ValueError, match="no_relevant"):
        mean_average_precision(y, s, no_relevant="drop")
    with pytest.raises(ValueError, match="k must be a positive int"):
        ndcg_at_k(y, s, k=0)
    with pytest.raises(ValueError, match="non-negative"):
        ndcg_at_k([-1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="no query has a relevant item"):
        ndcg_at_k([0, 0], [0.1, 0.2])


# ----------------------------------------------------------------- OPTROC
def optroc_bruteforce(y01, s):
    cuts = np.concatenate(([-np.inf], np.unique(s)))
    return max(np.mean((s > c) == y01) for c in cuts)


def test_optroc_accuracy_bruteforce():
    rng = np.random.default_rng(12)
    for _ in range(200):
        n, s = random_case(rng, 40)
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        assert optroc_accuracy(y, s) == pytest.approx(optroc_bruteforce(y == 1, s), abs=1e-12)
        assert optroc_accuracy(np.where(y, "p", "n"), s, pos_label="p") == pytest.approx(
            optroc_bruteforce(y == 1, s), abs=1e-12)




# ----------------------------------------------------------------- numpy and kernel paths
@pytest.mark.kernel
@pytest.mark.parametrize("path", ["numpy", "kernels"])
def test_numpy_and_kernel_paths_both_equal_bruteforce(monkeypatch, path):
    """Small inputs are computed with numpy (no numba start-up), large ones with the merge,
    Fenwick and bucket kernels; forcing each path on small data, both equal the all-pairs
    counts, over binary, graded (<= 16 levels) and real-valued labels, groups and weights."""
    from birank import metrics

    if path == "kernels":
        monkeypatch.setattr(metrics, "KERNEL_MIN_ROWS", 0)
    else:  # the level sweep even where the Fenwick kernel would run
        monkeypatch.setattr(metrics, "LEVEL_SWEEP_MAX_LEVELS", 10**6)
    rng = np.random.default_rng(21)
    for _ in range(60):
        n, s = random_case(rng, 30)
        levels = int(rng.choice([2, 3, 5, 30]))
        y = rng.integers(0, levels, n).astype(float)
        y[:2] = [0, 1]
        g = rng.integers(0, 3, n)
        w = rng.exponential(size=n)
        y01 = y == y.max()
        if y01.all() or not y01.any():
            continue
        u2 = metrics._twice_mann_whitney(np.sort(s[y01]), np.sort(s[~y01]))
        assert u2 == round(2 * auc_bruteforce(y01, s) * y01.sum() * (~y01).sum())
        assert roc_auc(y01, s) == pytest.approx(auc_bruteforce(y01, s), abs=1e-12)
        assert optroc_accuracy(y01, s) == pytest.approx(optroc_bruteforce(y01, s), abs=1e-12)
        try:
            ref = pairwise_bruteforce(y, s, g, w)
        except ZeroDivisionError:
            continue
        got = pairwise_accuracy(y, s, groups=g, sample_weight=w)
        assert got == pytest.approx(ref, abs=1e-12)
        assert pairwise_accuracy(y, s) == pytest.approx(pairwise_bruteforce(y, s), abs=1e-12)


@pytest.mark.kernel
@pytest.mark.parametrize("n_keys", [0, 1, 2])
def test_lexsort_groups_radix_passes_give_numpys_order(monkeypatch, n_keys):
    # the per-query metrics' sorts: from LEXSORT_RADIX_MIN rows stable radix passes
    # (forced here on small data), which must give numpy's lexsort order exactly:
    # ties in every key, -0.0 beside 0.0, groups not contiguous, groups of one row
    import birank._lexsort as lx

    rng = np.random.default_rng(4)
    monkeypatch.setattr(lx, "LEXSORT_RADIX_MIN", 0)
    for n in (1, 2, 7, 500):
        g = rng.integers(0, max(1, n // 5), n).astype(np.int64)
        g = np.unique(g, return_inverse=True)[1].astype(np.int64)  # codes 0 .. G-1
        keys = []
        for k in range(n_keys):
            key = np.round(rng.normal(size=n), 1)  # many ties
            key[rng.random(n) < 0.2] = 0.0
            key[rng.random(n) < 0.2] = -0.0
            keys.append(key if k else -key)
        got = lx.lexsort_groups(tuple(keys), g)
        np.testing.assert_array_equal(got, np.lexsort((*keys, g)))


@pytest.mark.parametrize("tie_scale", [1.0, 0.1])
def test_per_query_metrics_same_value_through_the_radix_sorts(monkeypatch, tie_scale):
    # each metric that sorts within queries, with the radix passes forced on small
    # data, gives the value of numpy's lexsort path to the bit
    import birank._lexsort as lx
    from birank import metrics as M

    rng = np.random.default_rng(9)
    n = 600
    g = rng.integers(0, 40, n)
    y = rng.integers(0, 4, n).astype(float)
    s = np.round(rng.normal(size=n) / tie_scale, 0) * tie_scale + 0.2 * y  # ties
    w = rng.uniform(0.5, 2.0, n)
    yb = (y > 1).astype(int)
    calls = [lambda: M.ndcg_at_k(y, s, g, k=5), lambda: M.ndcg_at_k(y, s, g, k=None),
             lambda: M.ndcg_at_k(y, s, g, k=5, convention="letor"),
             lambda: M.mean_average_precision(yb, s, g),
             lambda: M.pairwise_accuracy(y, s, g),
             lambda: M.pairwise_accuracy(y, s, g, sample_weight=w),
             lambda: M.kendall_tau(y, s, g), lambda: M.roc_auc_per_group(yb, s, g)]
    reference = [c() for c in calls]
    monkeypatch.setattr(lx, "LEXSORT_RADIX_MIN", 0)
    assert [c() for c in calls] == reference
