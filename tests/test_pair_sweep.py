"""The O(N log N) pair sweeps equal brute-force all-pairs sums (tests/oracles_pairs.py)."""

import numpy as np
import pytest
import scipy.sparse as sp

from birank._kernels.pair_sweep import count_pairs
from birank._kernels.radix_sort import INSERTION_MAX, argsort_groups
from birank._kernels.losses import HINGE, SQUARED_HINGE
from birank.solvers.newton import PairObjective
from oracles_pairs import (all_pairs, pair_grad, pair_hess_vec, pair_objective,
                           pair_score_hess_diag)

LABELS = ["binary", "graded", "real"]


def _problem(seed, labels, grouped, weighted, tied_scores, n=36, d=4):
    rng = np.random.default_rng(seed)
    if tied_scores:
        # integer features and weights: many equal scores and pairs exactly at margin 1
        X = rng.integers(-2, 3, size=(n, d)).astype(float)
        X[rng.random(X.shape) < 0.4] = 0.0
        w = rng.integers(-1, 2, size=d).astype(float)
    else:
        X = rng.normal(size=(n, d))
        X[rng.random(X.shape) < 0.3] = 0.0
        w = 0.7 * rng.normal(size=d)
    if labels == "binary":
        y = rng.integers(0, 2, n).astype(float)
    elif labels == "graded":
        y = rng.integers(0, 4, n).astype(float)  # many ties in y
    else:
        y = rng.normal(size=n)
    groups = rng.integers(0, 3, n) if grouped else None
    sw = rng.uniform(0.2, 2.0, n) if weighted else None
    return X, y, groups, sw, w


def _rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


@pytest.mark.kernel
@pytest.mark.parametrize("labels", LABELS)
@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("tied_scores", [False, True])
def test_loss_grad_hessvec_match_bruteforce(layout, labels, grouped, weighted, tied_scores):
    seed = 8 * LABELS.index(labels) + 4 * grouped + 2 * weighted + tied_scores
    X, y, groups, sw, w = _problem(seed, labels, grouped, weighted, tied_scores)
    C = 0.37
    Xl = layout(X)
    v = np.random.default_rng(seed + 1).normal(size=X.shape[1])
    for kind, name in [(SQUARED_HINGE, "squared_hinge"), (HINGE, "hinge")]:
        obj = PairObjective(Xl, y, groups, sw, C=C, loss_kind=kind)
        f, g, _ = obj.fun_grad(w)
        f_ref = pair_objective(w, X, y, C, groups, sw, name)
        assert abs(f - f_ref) <= 1e-10 * max(1.0, abs(f_ref))
        assert _rel(g, pair_grad(w, X, y, C, groups, sw, name)) <= 1e-10
        # the diagonal in row order (two-label segments: scattered from sorted order)
        assert _rel(obj.diag, pair_score_hess_diag(w, X, y, groups, sw, name)) <= 1e-12
        if kind == SQUARED_HINGE:
            assert _rel(obj.hess_vec(v), pair_hess_vec(w, v, X, y, C, groups, sw)) <= 1e-10
        I, J, c = all_pairs(y, groups, sw)
        assert obj.n_pairs == len(I)


@pytest.mark.kernel
def test_pairs_exactly_at_margin_one_are_inactive():
    # s = (2, 1, 0), y = (1, 0, 0): pair (0,1) has margin exactly 1 -> inactive,
    # pair (0,2) margin 2 -> inactive; shift x so that pair (0,1) has margin 0.5.
    X = np.array([[2.0], [1.0], [0.0]])
    y = np.array([1.0, 0.0, 0.0])
    obj = PairObjective(X, y, C=1.0)
    f, g, loss = obj.fun_grad(np.array([1.0]))
    assert loss == 0.0 and np.all(obj.diag == 0.0)
    f, g, loss = obj.fun_grad(np.array([0.5]))
    # margins 0.5 and 1.0: only the first pair is active, loss (1 - 0.5)^2
    assert loss == 0.25
    assert obj.n_pairs == 2


@pytest.mark.kernel
@pytest.mark.parametrize("size", [1, 5, INSERTION_MAX, INSERTION_MAX + 1, 200])
def test_argsort_groups_is_numpys_lexsort_by_group_then_score(size):
    # per group, insertion (small groups) or merge sort (larger ones): the stable
    # order by group then score, ties (many: integer scores, and -0.0 = 0.0) kept in
    # row order, as lexsort gives it
    rng = np.random.default_rng(size)
    n_groups = 7
    gid = rng.integers(0, n_groups, size * n_groups)
    gid[:n_groups] = np.arange(n_groups)  # no empty group
    n = gid.shape[0]
    s = rng.integers(-3, 4, n).astype(float)
    s[s == 0.0] = rng.choice([0.0, -0.0], int(np.sum(s == 0.0)))
    members = np.argsort(gid, kind="stable").astype(np.int64)
    seg = np.concatenate(([0], np.cumsum(np.bincount(gid, minlength=n_groups)))).astype(np.int64)
    order = np.empty(n, dtype=np.int64)
    sorted_out = np.empty(n)
    argsort_groups(s, members, seg, order, sorted_out)
    np.testing.assert_array_equal(order, np.lexsort((s, gid)))
    np.testing.assert_array_equal(sorted_out, s[order])


@pytest.mark.kernel
@pytest.mark.parametrize("n_groups", [1, 2])
def test_count_pairs_matches_enumeration(n_groups):
    # (one group: counted without gathers, from every row's label rank)
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 25).astype(float)
    groups = rng.integers(0, n_groups, 25) if n_groups > 1 else None
    obj = PairObjective(np.zeros((25, 1)), y, groups)
    I, J, c = all_pairs(y, groups, None)
    members = obj.members if obj.members is not None else np.arange(25)
    n = count_pairs(members, obj.seg, obj.lab, obj.nlab)
    assert isinstance(n, int) and n == len(I) > 0


def test_count_pairs_with_empty_groups():
    # segments with no rows (in the middle and last) count no pair, and the others
    # their own: labels [0, 1, 1] and [0, 0, 2 levels] give 2 + 2 pairs
    members = np.arange(6)
    seg = np.array([0, 3, 3, 6, 6])
    lab = np.array([0, 1, 1, 0, 0, 1])
    nlab = np.array([2, 0, 2, 0])
    assert count_pairs(members, seg, lab, nlab) == 4


def test_sparse_and_dense_give_same_sweep(rng):
    X = rng.normal(size=(300, 6))
    X[rng.random(X.shape) < 0.5] = 0
    y = rng.integers(0, 5, 300).astype(float)
    w = rng.normal(size=6)
    fd, gd, _ = PairObjective(X, y).fun_grad(w)
    fs, gs, _ = PairObjective(sp.csr_matrix(X), y).fun_grad(w)
    assert fs == pytest.approx(fd, rel=1e-13)
    np.testing.assert_allclose(gs, gd, rtol=1e-12, atol=1e-12)


@pytest.mark.kernel
def test_groups_mixing_two_label_many_label_and_one_label_segments(layout):
    # group 0: two labels (prefix-sum path), group 1: graded (Fenwick path),
    # group 2: one label (no pairs), group 3: real-valued
    rng = np.random.default_rng(9)
    groups = np.repeat([0, 1, 2, 3], [12, 12, 6, 10])
    y = np.concatenate([rng.integers(0, 2, 12), rng.integers(0, 4, 12), np.full(6, 2.0),
                        rng.normal(size=10)]).astype(float)
    X = rng.normal(size=(40, 3))
    perm = rng.permutation(40)  # groups interleaved in the row order
    X, y, groups = X[perm], y[perm], groups[perm]
    sw = rng.uniform(0.5, 1.5, 40)
    w = rng.normal(size=3)
    v = rng.normal(size=3)
    obj = PairObjective(layout(X), y, groups, sw, C=0.8)
    f, g, _ = obj.fun_grad(w)
    assert abs(f - pair_objective(w, X, y, 0.8, groups, sw)) <= 1e-10 * f
    assert _rel(g, pair_grad(w, X, y, 0.8, groups, sw)) <= 1e-10
    hv = pair_hess_vec(w, v, X, y, 0.8, groups, sw)
    assert _rel(obj.hess_vec(v), hv) <= 1e-10


def _huber_bruteforce(w, X, y, C, delta, groups=None, sw=None):
    I, J, c = all_pairs(y, groups, sw)
    s = X @ w
    xi = np.maximum(0.0, 1.0 - (s[I] - s[J]))
    h = np.where(xi < delta, xi**2 / (2 * delta), xi - delta / 2)
    return 0.5 * w @ w + C * np.sum(c * h)


@pytest.mark.kernel
@pytest.mark.parametrize("labels", LABELS)
def test_huber_objective_is_difference_of_two_squared_hinges(labels):
    from birank.solvers.newton import HuberPairObjective

    X, y, groups, sw, w = _problem(21, labels, True, True, False)
    C, delta = 0.6, 0.3
    hub = HuberPairObjective(PairObjective(X, y, groups, sw), PairObjective(X, y, groups, sw),
                             C, delta)
    f, g, _ = hub.fun_grad(w)
    assert f == pytest.approx(_huber_bruteforce(w, X, y, C, delta, groups, sw), rel=1e-12)
    # gradient against central differences of the brute-force Huber objective
    eps = 1e-6
    num = [(_huber_bruteforce(w + eps * e, X, y, C, delta, groups, sw)
            - _huber_bruteforce(w - eps * e, X, y, C, delta, groups, sw)) / (2 * eps)
           for e in np.eye(len(w))]
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-6)
    # certificate: D <= hinge optimum <= P(w), and P(w) is the exact hinge objective
    from oracles_pairs import fit_bruteforce

    p, d = hub.certificate(w, X @ w)
    assert p == pytest.approx(pair_objective(w, X, y, C, groups, sw, "hinge"), rel=1e-12)
    _, p_star = fit_bruteforce(X, y, C, groups, sw, "hinge")
    assert d <= p_star * (1 + 1e-9) and p_star <= p * (1 + 1e-9)


@pytest.mark.kernel
def test_margin_theta_shifts_the_active_set():
    # one pair with margin d = 0.5: active for theta = 1 (loss 0.25), inactive for 0.5
    X = np.array([[0.5], [0.0]])
    y = np.array([1.0, 0.0])
    assert PairObjective(X, y, theta=1.0).loss_at_scores(X[:, 0]) == 0.25
    assert PairObjective(X, y, theta=0.5).loss_at_scores(X[:, 0]) == 0.0
    assert PairObjective(X, y, theta=0.75).loss_at_scores(X[:, 0]) == 0.0625


@pytest.mark.kernel
@pytest.mark.parametrize("theta", [1.0, 0.6])
@pytest.mark.parametrize("n, one_level_max_bits, levels, bits",
                         [(300, 17, 1, 9), (2500, 17, 1, 11), (2500, 10, 2, 6)])
def test_many_label_levels_match_bruteforce(theta, n, one_level_max_bits, levels, bits):
    # about n distinct labels (some tied): one level of 9-bit digits for 300 rows; for
    # 2500 rows one level of 11-bit digits (the default; the Hessian replay's running
    # sums cut into a high and a low part) or, when levels are asked for from 10 bits,
    # two levels of 6-bit digits (and the passes between them)
    from birank._kernels.pair_sweep import _digit_bits

    rng = np.random.default_rng(5)
    d = 5
    X = rng.normal(size=(n, d))
    X[rng.random(X.shape) < 0.3] = 0.0
    y = np.round(rng.normal(size=n), 3)
    sw = rng.uniform(0.2, 2.0, n)
    w = 0.5 * rng.normal(size=d)
    v = rng.normal(size=d)
    obj = PairObjective(X, y, None, sw, C=1.0, theta=theta,
                        one_level_max_bits=one_level_max_bits)
    assert obj.nlab[0] > 0.7 * n
    assert obj.levels.shape[0] == levels
    assert _digit_bits(obj.nlab[0], obj.levels.shape[0]) == (levels, bits)
    s = X @ w
    loss = obj.loss_at_scores(s)
    I, J, c = all_pairs(y, None, sw)
    r = theta - (s[I] - s[J])
    act = r > 0
    assert loss == pytest.approx(float(np.sum(c[act] * r[act] ** 2)), rel=1e-11)
    gs = np.zeros(n)
    np.add.at(gs, I[act], -2 * c[act] * r[act])
    np.add.at(gs, J[act], 2 * c[act] * r[act])
    assert _rel(obj.grad_s, gs) <= 1e-11
    u = X @ v
    du = u[I[act]] - u[J[act]]
    hv = np.zeros(n)
    np.add.at(hv, I[act], 2 * c[act] * du)
    np.add.at(hv, J[act], -2 * c[act] * du)
    # the replay of the levels the loss sweep cached
    assert _rel(obj.hess_scores(u), hv) <= 1e-11
    # hinge coefficients (counts) on the same levels
    hinge = PairObjective(X, y, None, sw, loss_kind=HINGE, theta=theta,
                          one_level_max_bits=one_level_max_bits)
    assert hinge.loss_at_scores(s) == pytest.approx(float(np.sum(c[act] * r[act])), rel=1e-11)


@pytest.mark.kernel
@pytest.mark.parametrize("one_level_max_bits", [17, 10])
def test_groups_of_wide_narrow_and_two_labels_match_bruteforce(one_level_max_bits):
    # one group of about 2000 distinct labels (one 11-bit level, or two 6-bit levels
    # from 10 bits), one of about 300 (one 9-bit level either way) and one of two
    # labels: each segment's sweep, and the Hessian product's one buffer for all
    rng = np.random.default_rng(31)
    sizes = (2200, 400, 150)
    n = sum(sizes)
    groups = np.repeat(np.arange(3), sizes)
    rng.shuffle(groups)
    y = np.where(groups == 0, rng.normal(size=n),
                 np.where(groups == 1, np.round(rng.normal(size=n), 2),
                          rng.integers(0, 2, n).astype(float)))
    X = rng.normal(size=(n, 5))
    X[rng.random(X.shape) < 0.3] = 0.0
    sw = rng.uniform(0.2, 2.0, n)
    w, v = 0.5 * rng.normal(size=5), rng.normal(size=5)
    obj = PairObjective(X, y, groups, sw, C=0.7, one_level_max_bits=one_level_max_bits)
    assert sorted(obj.nlab)[0] == 2 and max(obj.nlab) > 1024
    assert obj.levels.shape[0] == (1 if one_level_max_bits == 17 else 2)
    f, g, _ = obj.fun_grad(w)
    assert f == pytest.approx(pair_objective(w, X, y, 0.7, groups, sw), rel=1e-11)
    assert _rel(g, pair_grad(w, X, y, 0.7, groups, sw)) <= 1e-10
    assert _rel(obj.diag, pair_score_hess_diag(w, X, y, groups, sw)) <= 1e-12
    assert _rel(obj.hess_vec(v), pair_hess_vec(w, v, X, y, 0.7, groups, sw)) <= 1e-10


@pytest.mark.kernel
@pytest.mark.parametrize("n, one_level_max_bits", [(300, 17), (2500, 17), (2500, 10)])
def test_unit_weight_sweeps_equal_the_weighted_ones_bit_for_bit(n, one_level_max_bits):
    # without sample weights the many-label sweeps skip reading them; multiplying by
    # 1.0 is exact, so loss, gradient and the Hessian product are the same numbers
    rng = np.random.default_rng(8)
    X = rng.normal(size=(n, 4))
    y = np.round(rng.normal(size=n), 3)
    s, u = X @ rng.normal(size=4), X @ rng.normal(size=4)
    obj = PairObjective(X, y, None, None, C=1.0, one_level_max_bits=one_level_max_bits)
    assert obj.unit_weights and obj.nlab[0] > 2
    assert not PairObjective(X, y, None, np.full(n, 2.0)).unit_weights
    got = {}
    for unit in (True, False):
        obj.unit_weights = unit
        loss = obj.loss_at_scores(s)
        got[unit] = (loss, obj.grad_s.copy(), obj.diag.copy(), obj.hess_scores(u).copy())
    assert got[True][0] == got[False][0]
    for a, b in zip(got[True][1:], got[False][1:]):
        np.testing.assert_array_equal(a, b)


def _fenwick_below_by_walks_that_stop(acc, d):
    # the textbook query (walk until node 0), the oracle of the walks with unconditional steps
    out, i = 0.0, d
    while i > 0:
        out += acc[i]
        i -= i & -i
    return out


@pytest.mark.kernel
@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 37, 512, 1000, 100_000])
@pytest.mark.parametrize("head", ["none", "one", "half", "full"])
def test_fenwick_walks_with_unconditional_steps_equal_walks_that_stop_bit_for_bit(size, head):
    # the loss sweep's walks run `head` steps unconditionally (spare slots past the
    # tree, node 0 read as 0), then stop where they end; for every head (none, some,
    # all of them) every prefix sum must be the bits of the walks that stop, in one,
    # two and three columns
    from birank._kernels.pair_sweep import (_bit_length, _fen_add, _fen_add3, _fen_below,
                                            _fen_below3, _fen_rows)

    rng = np.random.default_rng(size)
    full = _bit_length(size)
    steps = {"none": 0, "one": 1, "half": (full + 1) // 2, "full": full}[head]
    fixed = np.zeros(_fen_rows(size))
    early = np.zeros(size + 1)
    fixed2 = np.zeros((_fen_rows(size), 3))
    fixed3 = np.zeros((_fen_rows(size), 3))
    n_ops = min(4 * size + 8, 3000)
    values = rng.normal(size=(n_ops, 3)) * rng.choice([0.0, 1.0, 1e8], size=(n_ops, 1))
    for v in values:
        d = int(rng.integers(0, size))
        _fen_add(fixed, size, steps, d, v[0])
        i = d + 1
        while i <= size:  # the textbook insertion
            early[i] += v[0]
            i += i & -i
        _fen_add3(fixed2, size, steps, d, v[0], v[1], v[2], False)
        _fen_add3(fixed3, size, steps, d, v[0], v[1], v[2])
        q = int(rng.integers(0, size))
        want = np.float64(_fenwick_below_by_walks_that_stop(early, q)).tobytes()
        assert np.float64(_fen_below(fixed, steps, q)).tobytes() == want
        three = np.array(_fen_below3(fixed3, steps, q))
        assert three[:1].tobytes() == want
        two = np.array(_fen_below3(fixed2, steps, q, False))
        assert two[:2].tobytes() == three[:2].tobytes() and two[2] == 0.0
    np.testing.assert_array_equal(fixed[: size + 1], early)  # the tree itself, node for node
    assert fixed[0] == 0.0
    assert not fixed2[:, 2].any()  # two columns: the third never written


@pytest.mark.kernel
def test_fenwick_head_is_a_valid_number_of_unconditional_steps():
    # the unconditional steps may not outrun the spare slots (an insertion over 2^bits
    # digits takes at most bits + 1 steps), and wide digits take none (every walk stops)
    from birank._kernels.pair_sweep import FEN_HEAD_MAX_BITS, _bit_length, _fen_head

    for bits in range(1, 21):
        head = _fen_head(bits)
        assert 0 <= head <= _bit_length(1 << bits)
        assert (head > 0) == (bits <= FEN_HEAD_MAX_BITS)


@pytest.mark.kernel
@pytest.mark.parametrize("bits", [1, 2, 3, 5, 8, 10])
def test_two_tier_prefix_sums_equal_the_sum_of_the_values_below_each_key(bits):
    # the Hessian replay's running sums over a level's digits: after every insertion,
    # the query at each key is the sum of the values inserted at smaller keys
    from birank._kernels.pair_sweep import _pa_add, _pa_below, _pa_rows

    rng = np.random.default_rng(bits)
    size = 1 << bits
    acc = np.zeros(_pa_rows(bits))
    inserted = np.zeros(size)
    for _ in range(3 * size + 8):
        key = int(rng.integers(0, size))
        v = float(rng.integers(-8, 9))  # small integers: every partial sum exact
        _pa_add(acc, bits, key, v)
        inserted[key] += v
        below = np.concatenate(([0.0], np.cumsum(inserted)[:-1]))
        got = np.array([_pa_below(acc, bits, k) for k in range(size)])
        np.testing.assert_array_equal(got, below)


@pytest.mark.kernel
@pytest.mark.parametrize("bits", [10, 11, 12, 15, 17])
def test_replay_running_sums_equal_the_sum_of_the_values_below_each_key(bits):
    # the Hessian replay's running sums over any digit the sweeps use: two-tier up to
    # 10 bits, beyond (one wide level) two-tier sums of the high part plus one
    # two-tier structure of the low part per high value; queried at the keys around
    # every insertion, the block edges and random keys, with small integers (every
    # partial sum exact)
    from birank._kernels.pair_sweep import _acc_add, _acc_below, _acc_empty, _acc_rows

    rng = np.random.default_rng(100 + bits)
    size = 1 << bits
    acc = _acc_empty(bits)
    assert acc.shape[0] == _acc_rows(bits) and acc.ctypes.data % 64 == 0
    acc[:] = 0.0
    inserted = np.zeros(size)
    lb = bits // 2
    edges = np.unique(np.concatenate([np.arange(0, size, 1 << lb), np.arange(0, size, 1 << lb) - 1,
                                      [0, 1, size - 2, size - 1]]))
    edges = edges[(edges >= 0) & (edges < size)]
    for _ in range(300):
        key = int(rng.integers(0, size))
        v = float(rng.integers(-8, 9))
        _acc_add(acc, bits, key, v)
        inserted[key] += v
        below = np.concatenate(([0.0], np.cumsum(inserted)[:-1]))
        keys = np.unique(np.concatenate([edges, rng.integers(0, size, 32),
                                         [max(key - 1, 0), key, min(key + 1, size - 1)]]))
        got = np.array([_acc_below(acc, bits, int(k)) for k in keys])
        np.testing.assert_array_equal(got, below[keys])


@pytest.mark.kernel
@pytest.mark.parametrize("n, decimals, one_level_max_bits, levels",
                         [(3000, 3, 10, 2), (3000, 3, 17, 1), (2000, 1, 17, 1)])
@pytest.mark.parametrize("weighted", [False, True])
def test_many_label_sweeps_on_threads_are_the_same_bits_for_every_n_jobs(
        n, decimals, one_level_max_bits, levels, weighted):
    # one group of graded / real-valued labels: with n_jobs the loss sweep and the
    # Hessian product's replay run on threads (level 0's two passes at once, its
    # counting sort over chunks, then runs of nodes); loss, gradient, diagonal, the
    # level cache and the product must be the one-thread sweeps' bits for every
    # n_jobs, and the brute-force values. 3 decimals: about 2000 labels, two levels
    # of 6-bit digits or one of 11 bits; 1 decimal: one level of many ties
    rng = np.random.default_rng(21)
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.3] = 0.0
    y = np.round(rng.normal(size=n), decimals)  # 1 decimal: 1 level of many ties
    sw = rng.uniform(0.2, 2.0, n) if weighted else None
    w, v = 0.5 * rng.normal(size=4), rng.normal(size=4)
    got = {}
    for n_jobs in (None, 1, 2, 3):
        obj = PairObjective(X, y, None, sw, C=1.0, n_jobs=n_jobs,
                            one_level_max_bits=one_level_max_bits)
        assert (obj.level_sweeps is None) == (n_jobs in (None, 1))  # (1: no threads)
        f, g, _ = obj.fun_grad(w)
        lv = obj.levels  # (pointers of one-row nodes and level 0's sources: never written)
        got[n_jobs] = (np.array([f]), g, obj.grad_s.copy(), obj.diag.copy(), lv[:, :2].copy(),
                       lv[1:, 2].copy(), lv[0, 3:].copy(), obj.hess_vec(v))
    assert obj.levels.shape[0] == levels
    for n_jobs in (1, 2, 3):
        for a, b in zip(got[n_jobs], got[None]):
            np.testing.assert_array_equal(a, b)
    if n <= 2000:  # the brute-force oracle enumerates every pair
        assert abs(got[2][0][0] - pair_objective(w, X, y, 1.0, sample_weight=sw)) <= (
            1e-10 * got[2][0][0])
        assert _rel(got[2][1], pair_grad(w, X, y, 1.0, sample_weight=sw)) <= 1e-10
        ref = pair_hess_vec(w, v, X, y, C=1.0, sample_weight=sw)
        assert _rel(got[2][-1], ref) < 1e-10


@pytest.mark.kernel
@pytest.mark.parametrize("weighted, kind", [(False, SQUARED_HINGE), (True, HINGE)])
def test_group_sweeps_on_threads_are_the_same_bits_for_every_n_jobs(monkeypatch, weighted,
                                                                     kind):
    # query ids: with n_jobs each group is sorted, swept and replayed on the threads
    # (group_threads.GroupSweeps), forced here on small data. Groups of one label,
    # two labels (scores tied, -0.0 beside 0.0), graded and real-valued labels (two
    # digit levels), groups of one row and of many: loss, gradient, diagonal,
    # sweep state and Hessian product must be the serial bits for every n_jobs, and
    # the brute-force values
    import birank.solvers.newton as newton

    monkeypatch.setattr(newton, "GROUP_THREADS_MIN", 1)
    rng = np.random.default_rng(5)
    sizes = np.concatenate([[1, 1, 40, 1200], rng.integers(2, 30, size=60)])
    n = int(sizes.sum())
    gid = np.repeat(np.arange(sizes.shape[0]), sizes)
    gid = gid[rng.permutation(n)]  # groups interleaved in row order
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.3] = 0.0
    X[:40, :] = np.where(rng.random((40, 4)) < 0.5, -0.0, 0.0)  # scores of -0.0 and 0.0
    y = np.round(rng.normal(size=n), 1)
    kinds = gid % 4
    y[kinds == 0] = (y[kinds == 0] > 0).astype(float)  # two labels
    y[kinds == 1] = np.round(rng.normal(size=int(np.sum(kinds == 1))), 3)  # ~real-valued
    y[gid == 2] = 1.0  # one label
    y[gid == 3] = rng.normal(size=1200)  # 1200 labels: two levels of digits
    sw = rng.uniform(0.2, 2.0, n) if weighted else None
    w, v = 0.5 * rng.normal(size=4), rng.normal(size=4)
    loss = "hinge" if kind == HINGE else "squared_hinge"
    got = {}
    for n_jobs in (None, 1, 2, 3):
        obj = PairObjective(X, y, gid, sw, C=1.0, loss_kind=kind, n_jobs=n_jobs,
                            one_level_max_bits=6)
        assert (obj.group_sweeps is None) == (n_jobs in (None, 1))
        f, g, _ = obj.fun_grad(w)
        # (the pointers of the groups of two labels or fewer: the others keep theirs in
        # the level cache)
        few = np.repeat(obj.nlab <= 2, np.diff(obj.seg))
        # the level cache of the group of two levels, as the one-group test reads it
        lv = obj.levels[:, :, obj.seg[3]:obj.seg[4]]
        got[n_jobs] = (np.array([f]), g, obj.grad_s.copy(), obj.diag.copy(), obj.order.copy(),
                       obj.ptr_hi[few], obj.ptr_lo[few], lv[:, :2].copy(), lv[1:, 2].copy(),
                       lv[0, 3:].copy(), obj.hess_vec(v))
    assert obj.levels.shape[0] == 2 and {1, 2} <= set(obj.nlab.tolist())
    assert obj.nlab.max() == 1200
    for n_jobs in (1, 2, 3):
        for a, b in zip(got[n_jobs], got[None]):
            np.testing.assert_array_equal(a, b)
    assert abs(got[2][0][0] - pair_objective(w, X, y, 1.0, groups=gid, sample_weight=sw,
                                             loss=loss)) <= 1e-10 * got[2][0][0]
    assert _rel(got[2][1], pair_grad(w, X, y, 1.0, groups=gid, sample_weight=sw,
                                     loss=loss)) <= 1e-10
    if kind == SQUARED_HINGE:
        ref = pair_hess_vec(w, v, X, y, C=1.0, groups=gid, sample_weight=sw)
        assert _rel(got[2][-1], ref) < 1e-10


def test_bound_runs_cover_the_pieces_and_no_two_touching_runs_share_a_half():
    # the runs of whole groups (GroupSweeps) and of whole nodes (LevelSweeps, whose
    # digit nodes may be empty): every run holds a row, the runs cover every piece
    # once, in order, and they are cut at the first edge at or after each t/count of
    # the rows. hess_groups' two-label replay writes one position past its run: the
    # runs of a half (run at once) must not touch
    from birank._parallel import bound_runs
    from birank.solvers.group_threads import GroupSweeps

    rng = np.random.default_rng(3)
    for sizes in ([1], [5, 1, 1, 1], [1] * 50, rng.integers(1, 9, 200).tolist(),
                  [1000, 1, 1, 2], [3, 3], [0, 0, 4, 0, 2, 0, 0], rng.integers(0, 3, 90).tolist(),
                  [0, 0], []):
        seg = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        n = int(seg[-1])
        for count in (1, 2, 3, 12, 500):
            runs = bound_runs(seg, count)
            if n == 0:
                assert runs == []
                continue
            assert [g for a, b in runs for g in range(a, b)] == list(range(len(sizes)))
            assert all(seg[b] > seg[a] for a, b in runs)
            assert len(runs) <= count
            cuts = {int(seg[np.searchsorted(seg, (n * t) // count)]) for t in range(1, count)}
            assert [int(seg[a]) for a, _ in runs] == sorted((cuts | {0}) - {n})
        if n == 0 or 0 in sizes:
            continue
        nlab = np.full(len(sizes), 2)
        gs = GroupSweeps(np.arange(int(seg[-1])), seg, nlab, n_jobs=2)
        for half in gs.run_halves:
            ends = {int(seg[b]) for _, b in half}
            starts = {int(seg[a]) for a, _ in half}
            assert not ends & starts
        gs.close()


@pytest.mark.kernel
def test_many_label_sweep_from_the_sorts_scores_equals_the_gathering_one():
    # loss_at_scores (one group) lets the sort write s[order] where the many-label
    # sweep keeps it; sweep_sorted gathers them: the same bits
    rng = np.random.default_rng(12)
    n = 3000
    X = rng.normal(size=(n, 4))
    y = np.round(rng.normal(size=n), 3)
    s = X @ rng.normal(size=4)
    obj = PairObjective(X, y, None, rng.uniform(0.5, 2.0, n))
    assert obj.single and obj.nlab[0] > 2
    loss = obj.loss_at_scores(s)
    got = (obj.grad_s.copy(), obj.diag.copy(), obj.levels.copy())
    obj.work[5] = np.nan  # nothing left over from the sort
    assert obj.sweep_sorted(s) == loss
    for a, b in zip(got, (obj.grad_s, obj.diag, obj.levels)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.kernel
@pytest.mark.parametrize("labels", [[0.0] * 5, [1.0] * 5, [1.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                                    [1.0, 1.0, 0.0, 1.0]])
def test_two_label_ranks_with_one_label_or_one_row_of_a_label(labels):
    # no upper row, no lower row, or one of either: the rank table of no or one
    # threshold; every row's gradient, diagonal and Hessian product against brute force
    y = np.array(labels)
    n = len(y)
    X = np.eye(n)
    w = np.linspace(-0.7, 0.9, n)
    v = np.arange(1.0, n + 1.0)
    obj = PairObjective(X, y)
    assert obj.two_label is not None
    loss = obj.loss_at_scores(w)
    ref = pair_objective(w, X, y, 1.0) - 0.5 * float(w @ w)
    assert abs(loss - ref) <= 1e-12 * max(1.0, abs(ref))
    assert _rel(obj.grad_s, pair_grad(w, X, y, 1.0) - w) <= 1e-12
    assert _rel(obj.diag, pair_score_hess_diag(w, X, y)) <= 1e-12
    assert _rel(obj.hess_scores(v), pair_hess_vec(w, v, X, y, 1.0) - v) <= 1e-12
    if len(set(labels)) == 1:  # no pair at all
        assert loss == 0.0 and not np.any(obj.grad_s) and not np.any(obj.diag)


def _two_label_scores(case, n, rng):
    """Scores that put the threshold ranks' buckets on their edges (see the test below)."""
    if case == "spread":
        return rng.normal(size=n)
    if case == "equal":  # every threshold equal, every lower row above them (w = 0)
        return np.zeros(n)
    if case == "crowded":  # a bucket of many equal thresholds: bisected
        return np.where(rng.random(n) < 0.6, 0.25, rng.normal(size=n))
    if case == "margin":  # many pairs exactly at the margin (s_j = s_i - 1: inactive)
        return rng.integers(-2, 3, n).astype(float)
    if case == "wide":  # a range beyond float64 (hi - lo overflows): one bucket
        return rng.choice([-1e308, -1.0, 0.0, 2.0, 1e308], n)
    # "narrow": thresholds a few ulps apart (the scale overflows): one bucket
    return 1.0 + rng.integers(0, 4, n) * np.spacing(1.0)


@pytest.mark.kernel
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", ["spread", "equal", "crowded", "margin", "wide", "narrow"])
def test_two_label_ranks_match_bruteforce_and_each_other_for_any_n_jobs(monkeypatch, weighted,
                                                                        case):
    # one group of two labels: each lower row is ranked among the upper rows' thresholds
    # (threshold_sweep), on threads in parts with n_jobs (forced on small data); X the
    # identity, so the scores are w itself and the brute force sees exactly these scores
    import birank.solvers.two_label_sweep as two_label_sweep

    monkeypatch.setattr(two_label_sweep, "TWO_LABEL_THREADS_MIN", 0)
    n = 45
    rng = np.random.default_rng(["spread", "equal", "crowded", "margin", "wide",
                                 "narrow"].index(case) + 10 * weighted)
    X = np.eye(n)
    y = (rng.random(n) < 0.4).astype(float)
    sw = rng.uniform(0.2, 2.0, n) if weighted else None
    w = _two_label_scores(case, n, rng)
    v = rng.normal(size=n)
    huge = case == "wide"
    for kind, name in [(SQUARED_HINGE, "squared_hinge"), (HINGE, "hinge")]:
        got = []
        for n_jobs in (None, 1, 2):
            obj = PairObjective(X, y, None, sw, C=0.37, loss_kind=kind, n_jobs=n_jobs)
            assert obj.two_label is not None
            assert obj.two_label.threads.n == (2 if n_jobs == 2 else 1)
            f = obj.loss_at_scores(w)
            got.append((f, obj.grad_s.copy(), obj.diag.copy(), obj.hess_scores(v).copy()))
        for other in got[1:]:  # the same bits for every n_jobs
            assert other[0] == got[0][0] or (np.isnan(other[0]) and np.isnan(got[0][0]))
            for a, b in zip(other[1:], got[0][1:]):
                np.testing.assert_array_equal(a, b)
        loss, grad_s, diag, hv = got[0]
        assert _rel(diag, pair_score_hess_diag(w, X, y, None, sw, name)) <= 1e-12
        if huge:  # the squares overflow; the active set is still exact (the diagonal)
            continue
        ref = pair_objective(w, X, y, 1.0, None, sw, name) - 0.5 * float(w @ w)
        assert abs(loss - ref) <= 1e-12 * max(1.0, abs(ref))
        # the score gradient is (grad f - w) / C of the oracle, with X the identity
        assert _rel(grad_s, pair_grad(w, X, y, 1.0, None, sw, name) - w) <= 1e-12
        if kind == SQUARED_HINGE:
            assert _rel(hv, pair_hess_vec(w, v, X, y, 1.0, None, sw) - v) <= 1e-12
