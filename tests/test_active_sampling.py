"""Active sampling pieces of shen-lin against their formulas and brute force."""

import numpy as np
import pytest

from birank.batch._active_sampling import (JointSpace, SoftSampler, acceptance_probability,
                                           crc_weights, hard_select)
from birank.pairs import ChosenSet


def _ext(s):
    return np.append(np.asarray(s, dtype=np.float64), 0.0)


def _rows(s):
    """Scores ``s`` as the kernels' rows argument: X = s as one column, w = [1], intercept 0."""
    return np.ascontiguousarray(np.asarray(s, dtype=np.float64)[:, None]), np.ones(1), 0.0


def test_acceptance_probabilities_equal_paper_formulas():
    m = np.linspace(-30, 30, 601)
    close = 2.0 / (1.0 + np.exp(np.abs(m)))  # shen-lin 3.3, soft closeness
    correct = 1.0 - 2.0 / (1.0 + np.exp(np.maximum(1.0 - m, 0.0)))  # soft correctness
    np.testing.assert_allclose(acceptance_probability(m, "soft-close"), close, rtol=1e-12,
                               atol=1e-15)
    np.testing.assert_allclose(acceptance_probability(m, "soft-correct"), correct, rtol=1e-12,
                               atol=1e-15)
    assert np.all(acceptance_probability(m, "random") == 1.0)
    # shape: closeness is 1 at margin 0; correctness is 0 once the pair is 1-correct
    assert acceptance_probability(0.0, "soft-close") == 1.0
    assert np.all(acceptance_probability(np.array([1.0, 5.0]), "soft-correct") == 0.0)
    # no overflow far out
    with np.errstate(all="raise"):
        acceptance_probability(np.array([-1e6, 1e6]), "soft-close")
        acceptance_probability(np.array([-1e6, 1e6]), "soft-correct")
    with pytest.raises(ValueError, match="strategy"):
        acceptance_probability(m, "hard-close")


def test_crc_weights_equal_formula():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.01, 1, 50)
    gam = np.where(rng.random(50) < 0.5, 0.3, 0.7)
    C = 0.1
    Z = np.sum(1.0 / p)
    expected = gam * 50 / (p * Z) * C  # shen-lin 4.1: C_crc = Gamma |L*| / (p Z) C
    np.testing.assert_allclose(crc_weights(p, gam, C), expected, rtol=1e-13)
    np.testing.assert_allclose(crc_weights(p, gam, C, bias_correction=False), gam * C)
    # with gamma = 1 the costs sum to C |L*|, as section 4.1 intends
    assert np.isclose(crc_weights(p, np.ones(50), C).sum(), C * 50)


def _brute_hard(space, s, need, strategy, chosen):
    ids = np.arange(space.lo, space.hi)
    ids = ids[~chosen.contains(ids)]
    d = space.margins(_ext(s), ids)
    if strategy == "hard-close":
        key = np.abs(d)
    else:
        # correctness -[1 - d]_+, ties broken by the margin d, then the id
        corr = -np.maximum(1.0 - d, 0.0)
        order = sorted(range(ids.size), key=lambda t: (corr[t], d[t], ids[t]))
        return ids[order][:need]
    order = sorted(range(ids.size), key=lambda t: (key[t], ids[t]))
    return ids[order][:need]


@pytest.mark.kernel
@pytest.mark.parametrize("strategy", ["hard-close", "hard-correct"])
@pytest.mark.parametrize("seed", range(12))
def test_hard_strategies_equal_brute_force(strategy, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 25))
    y = rng.integers(0, 2, n)
    y[0], y[1] = 1, 0
    # coarse scores give many exact ties (as duplicate rows do in real data)
    s = rng.integers(-4, 5, n) * 0.5 if seed % 2 else rng.normal(size=n)
    gamma = [1.0, 0.0, 0.5][seed % 3]
    space = JointSpace(y, gamma)
    n_chosen = int(rng.integers(0, space.n_active // 2 + 1))
    chosen = ChosenSet(rng.choice(np.arange(space.lo, space.hi), n_chosen, replace=False))
    need = int(rng.integers(1, space.n_active - n_chosen + 2))  # may exceed what is left
    got = hard_select(space, _ext(s), need, strategy, chosen)
    want = _brute_hard(space, s, need, strategy, chosen)
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("strategy", ["soft-close", "soft-correct", "random"])
@pytest.mark.parametrize("budget", [4, 100000])  # dense and sparse candidate modes
def test_soft_sampling_follows_acceptance_probabilities(strategy, budget):
    """One draw per call: P(item) is proportional to Gamma * p over the unchosen pool."""
    rng = np.random.default_rng(0)
    y = np.array([1, 1, 0, 0, 0])
    s = np.array([0.3, -0.8, 0.1, 1.2, -2.0])
    space = JointSpace(y, 0.7)
    chosen = ChosenSet([1, 7])
    sampler = SoftSampler(space, strategy, budget=budget, max_draws=10**6)
    assert sampler.dense == (budget == 100000)
    n_draw = 20000
    counts = np.zeros(space.n_active)
    rejected = 0
    for _ in range(n_draw):
        ids, p, n_rej, n_drawn, exhausted = sampler.sample(*_rows(s), 1, chosen, rng)
        assert not exhausted and ids.size == 1
        counts[ids[0]] += 1
        rejected += n_rej
    ids = np.arange(space.n_active)
    weight = space.big_gamma(ids) * acceptance_probability(space.margins(_ext(s), ids), strategy)
    weight[chosen.to_array()] = 0
    expected = weight / weight.sum()
    assert counts[chosen.to_array()].sum() == 0
    np.testing.assert_allclose(counts / n_draw, expected, atol=0.012)
    # rejections are geometric: mean = (1 - q) / q with q the mean acceptance over U*
    q = weight.sum() / (space.n_active - len(chosen))
    assert abs(rejected / n_draw - (1 - q) / q) < 0.1 * (1 - q) / q + 0.02


def test_soft_sampling_returns_distinct_unchosen_items_and_reports_p():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 40)
    s = rng.normal(size=40)
    space = JointSpace(y, 1.0)
    chosen = ChosenSet(space.initial(30, rng))
    sampler = SoftSampler(space, "soft-correct", budget=200, max_draws=10**6)
    ids, p, _, _, _ = sampler.sample(*_rows(s), 50, chosen, rng)
    assert ids.size == np.unique(ids).size == 50
    assert not chosen.contains(ids).any()
    np.testing.assert_array_equal(
        p, acceptance_probability(space.margins(_ext(s), ids), "soft-correct"))
    assert np.all(p > 0)


def test_soft_sampling_reports_exhaustion_instead_of_looping():
    # every pair already 1-correct: soft-correct accepts nothing
    y = np.array([1, 1, 0, 0])
    s = np.array([5.0, 6.0, 0.0, -1.0])
    rng = np.random.default_rng(0)
    for budget in (2, 10**6):
        sampler = SoftSampler(JointSpace(y, 1.0), "soft-correct", budget=budget,
                              max_draws=5000)
        ids, _, _, _, exhausted = sampler.sample(*_rows(s), 3, ChosenSet(), rng)
        assert exhausted and ids.size == 0


def test_joint_space_parts():
    y = np.array([1, 0, 0, 1, 0])
    assert (JointSpace(y, 1.0).lo, JointSpace(y, 1.0).hi) == (0, 6)
    assert (JointSpace(y, 0.0).lo, JointSpace(y, 0.0).hi) == (6, 11)
    sp_ = JointSpace(y, 0.25)
    assert (sp_.lo, sp_.hi) == (0, 11)
    np.testing.assert_array_equal(sp_.big_gamma([0, 5, 6, 10]), [0.25, 0.25, 0.75, 0.75])
    # margins: pair (i, j) -> s_i - s_j; pseudo (k, -1) -> s_k; (-1, k) -> -s_k
    s = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    m = sp_.margins(_ext(s), np.arange(11))
    assert m.tolist() == [1 - 2, 1 - 4, 1 - 16, 8 - 2, 8 - 4, 8 - 16, 1, -2, -4, 8, -16]


@pytest.mark.kernel
@pytest.mark.parametrize("gamma", [1.0, 0.4, 0.0])
def test_item_margins_equal_numpy(gamma):
    """The sampler's margins of pairs and pseudo-pairs, dense and CSR, with an intercept."""
    import scipy.sparse as sp

    from birank._validation import kernel_rows as xargs

    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 7))
    X[rng.random(X.shape) < 0.5] = 0.0
    y = (rng.random(30) < 0.4).astype(int)
    w = rng.normal(size=7)
    space = JointSpace(y, gamma)
    sampler = SoftSampler(space, "soft-correct", budget=10, max_draws=100)
    ids = rng.integers(space.lo, space.hi, 40)
    s_ext = np.append(X @ w + 0.25, 0.0)
    want = space.margins(s_ext, ids)
    for rows in (xargs(X), xargs(sp.csr_matrix(X))):
        got = sampler.margins(rows, w, 0.25, ids)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # 0/1 rows, their values not read: the same margins as the dense rows, bit for bit
    B = (X != 0).astype(np.float64)
    ones = xargs(sp.csr_matrix(B), indicator=True)
    assert ones[0] is None
    assert (sampler.margins(ones, w, 0.25, ids).tobytes()
            == sampler.margins(xargs(B), w, 0.25, ids).tobytes())


@pytest.mark.kernel
@pytest.mark.parametrize("code_name", ["SOFT_CORRECT", "SOFT_CLOSE"])
def test_soft_sample_same_draws_on_every_rows_layout(code_name):
    """One 0/1 matrix as dense rows, CSR rows and CSR rows whose values are not read
    (``kernel_rows(X, indicator=True)``): the same accepted ids, probabilities and
    counts, bit for bit (the scores are the same sums in the same order)."""
    import scipy.sparse as sp

    from birank._kernels import soft_sample as ks
    from birank._kernels.id_set import new_table, table_insert
    from birank._validation import kernel_rows

    rng = np.random.default_rng(11)
    X = (rng.random((60, 9)) < 0.3).astype(np.float64)
    y = rng.random(60) < 0.4
    pos = np.flatnonzero(y).astype(np.int64)
    neg = np.flatnonzero(~y).astype(np.int64)
    n_pair = pos.size * neg.size
    chosen = new_table(8)
    table_insert(chosen, rng.choice(n_pair + 60, 8, replace=False).astype(np.int64))
    w = rng.normal(size=9)
    csr = sp.csr_matrix(X)
    layouts = [X, kernel_rows(csr), kernel_rows(csr, indicator=True)]
    assert layouts[2][0] is None  # the values are not passed
    runs = [ks.soft_sample(rows, w, 0.3, pos, neg, y, n_pair, 0, n_pair + 60, 0.7,
                           getattr(ks, code_name), chosen, 25, 10_000, 4) for rows in layouts]
    for got in runs[1:]:
        for a, b in zip(runs[0], got):
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    assert runs[0][0].size == 25 and runs[0][2] > 0  # some candidates were rejected


@pytest.mark.kernel
def test_soft_sample_draws_ids_above_2_to_the_31():
    """Pair ids of a large D* (10^5 x 10^5 pairs) are drawn over the whole range."""
    from birank._kernels.id_set import new_table
    from birank._kernels.soft_sample import RANDOM, soft_sample

    n = 100_000
    y = np.r_[np.ones(n, dtype=bool), np.zeros(n, dtype=bool)]
    pos, neg = np.arange(n, dtype=np.int64), np.arange(n, 2 * n, dtype=np.int64)
    X = np.zeros((2 * n, 1))
    ids, p, n_rej, n_drawn, exhausted = soft_sample(
        X, np.ones(1), 0.0, pos, neg, y, n * n, 0, n * n, 1.0, RANDOM,
        new_table(0), 2000, 10**6, 3)
    assert not exhausted and n_rej == 0 and n_drawn == 2000 and np.all(p == 1.0)
    assert np.unique(ids).size == 2000 and ids.min() >= 0 and ids.max() < n * n
    # uniform over [0, 10^10): the mean is near 5e9 and many ids exceed 2^31
    assert abs(ids.mean() / (n * n) - 0.5) < 0.03
    assert np.mean(ids > 2**31) > 0.7


def test_chosen_set_add_keeps_a_sorted_set(rng):
    # sorted insertion of batches equals the set union, duplicates and repeats ignored
    chosen = ChosenSet()
    ref = set()
    for _ in range(20):
        batch = rng.integers(0, 300, size=rng.integers(0, 25))
        chosen.add(batch)
        ref.update(batch.tolist())
        assert chosen.to_array().tolist() == sorted(ref)
        assert len(chosen) == len(ref)
    probe = np.arange(-5, 310)
    np.testing.assert_array_equal(chosen.contains(probe), np.isin(probe, sorted(ref)))
