"""Strategy values, threshold and calibration of donmez-carbonell against hand computations."""

import math

import numpy as np
import pytest

from birank.active_learning import (
    calibrated_posterior,
    diverse_scores,
    entropy_scores,
    lossmin_scores,
    rank_thresholds,
    select_per_query,
    sigmoid_posterior,
    uncertain_scores,
    within_query_ranks,
)


def sig(z):
    return 1.0 / (1.0 + math.exp(-z))


# ----------------------------------------------------------------- threshold (Fig. 2)
def test_rank_threshold_is_the_largest_gap_in_ascending_order():
    # sorted: 0.1 0.4 2.5 3.0 -> gaps 0.3 2.1 0.5 -> i = 2 (between ranks 2 and 3)
    ranks, thr = rank_thresholds([0.1, 3.0, 0.4, 2.5])
    assert ranks.tolist() == [2] and thr.tolist() == [0.4]


def test_rank_threshold_per_query_ties_and_single_document():
    # query 5: sorted 1, 2, 3 (gaps 1, 1: the lowest rank wins) ; query 9: one document
    ranks, thr = rank_thresholds([3.0, 7.0, 1.0, 2.0], groups=[5, 9, 5, 5])
    assert ranks.tolist() == [1, -1]
    assert thr[0] == 1.0 and np.isnan(thr[1])


def test_calibrated_posterior_is_a_distribution_centred_on_the_threshold():
    s = np.array([-2.0, 0.4, 1.4, 5.0])
    c = 0.4
    p_pos = calibrated_posterior(s, c)
    # corrected form: P(y|x) = 1 / (1 + exp(-y (f(x) - c)))
    expected_pos = [sig(v - c) for v in s]
    expected_neg = [1.0 / (1.0 + math.exp(+(v - c))) for v in s]
    np.testing.assert_allclose(p_pos, expected_pos, rtol=1e-14)
    np.testing.assert_allclose(1.0 - p_pos, expected_neg, rtol=1e-12)
    assert p_pos[1] == 0.5  # the threshold document sits on the boundary
    # the form as printed, 1/(1+exp(-y f + c)), is not a distribution when c != 0
    # (at the threshold document: 1/2 + sig(-2c), here 0.81)
    printed_sum = [1 / (1 + math.exp(-v + c)) + 1 / (1 + math.exp(v + c)) for v in s[1:3]]
    assert all(abs(t - 1.0) > 0.05 for t in printed_sum)


def test_uncalibrated_posterior_is_eq8():
    np.testing.assert_allclose(sigmoid_posterior([-30.0, 0.0, 1.0]),
                               [sig(-30.0), 0.5, sig(1.0)], rtol=1e-12)


# ----------------------------------------------------------------- lossmin (eq. 7)
@pytest.mark.kernel
def test_lossmin_hand_example_two_queries_shuffled_rows():
    # query 7: scores 0, 1, 3 -> gaps 1, 2 -> i = 2, c = f(x_2) = 1, theta = 2.5,
    #   |r_min - theta| = 1.5, |r_max - theta| = 0.5
    #   rank 1 (s=0): P+ = sig(-1), [1/2 + 1.5]_+ = 2 -> sig(-1) * 2 / 1.5 * 0.4
    #   rank 2 (s=1): P+ = 1/2,     [1/2 + 0.5]_+ = 1 -> 0.5 * 1 / 1.5 * 0.4
    #   rank 3 (s=3): P- = sig(-2), [1/2 + 0.5]_+ = 1 -> sig(-2) * 1 / 0.5 * 0.6
    # query 3: scores 5, 2 -> i = 1, c = 2, theta = 1.5, both distances 0.5
    #   rank 1 (s=2): 0.5 * 1 / 0.5 * 0.4 ; rank 2 (s=5): sig(-3) * 1 / 0.5 * 0.6
    scores = [3.0, 5.0, 0.0, 2.0, 1.0]
    groups = [7, 3, 7, 3, 7]
    got = lossmin_scores(scores, groups, above_threshold_weight=0.6)
    expected = [sig(-2) * 1 / 0.5 * 0.6, sig(-3) * 1 / 0.5 * 0.6, sig(-1) * 2 / 1.5 * 0.4,
                0.5 * 1 / 0.5 * 0.4, 0.5 * 1 / 1.5 * 0.4]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.kernel
def test_lossmin_lambda_weights_the_two_sides():
    # one query 0, 10, 11, 12: gaps 10, 1, 1 -> i = 1, c = 0, theta = 1.5,
    # |1 - theta| = 0.5, |4 - theta| = 2.5. Above the threshold only the P- term.
    s = [0.0, 10.0, 11.0, 12.0]
    for lam in (0.2, 0.6, 0.9):
        got = lossmin_scores(s, None, above_threshold_weight=lam)
        exp = [0.5 * 1 / 0.5 * (1 - lam),
               sig(-10) * 1 / 2.5 * lam, sig(-11) * 2 / 2.5 * lam, sig(-12) * 3 / 2.5 * lam]
        np.testing.assert_allclose(got, exp, rtol=1e-12)


def _lossmin_reference(s, lam):
    """Plain transcription of Fig. 1 step 4 for one query (corrected calibration)."""
    m = len(s)
    if m < 2:
        return np.zeros(m)
    order = sorted(range(m), key=lambda i: (s[i], i))
    srt = [s[i] for i in order]
    gaps = [abs(srt[i] - srt[i + 1]) for i in range(m - 1)]
    i_hat = gaps.index(max(gaps)) + 1
    c, theta = srt[i_hat - 1], i_hat + 0.5
    out = np.zeros(m)
    for r, i in enumerate(order, start=1):
        p = sig(s[i] - c)
        out[i] = (p * max(0.5 - (r - theta), 0) / abs(1 - theta) * (1 - lam)
                  + (1 - p) * max(0.5 + (r - theta), 0) / abs(m - theta) * lam)
    return out


@pytest.mark.kernel
def test_lossmin_matches_reference_on_random_pools():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(1, 40))
        g = rng.integers(0, 4, size=n)
        s = np.round(rng.normal(size=n), 1)  # ties included
        got = lossmin_scores(s, g, above_threshold_weight=0.6)
        for q in np.unique(g):
            ix = np.flatnonzero(g == q)
            np.testing.assert_allclose(got[ix], _lossmin_reference(list(s[ix]), 0.6),
                                       rtol=1e-10, atol=1e-15)


# ----------------------------------------------------------------- uncertain
@pytest.mark.kernel
def test_uncertain_hand_example_takes_the_closest_pair_first():
    s = [0.0, 1.0, 1.25, 3.0, 9.0, 9.5]
    g = [1, 1, 1, 1, 2, 2]
    got = uncertain_scores(s, g)
    assert got.tolist() == [-1.0, -0.25, -0.25, -1.75, -0.5, -0.5]
    assert select_per_query(got, g, k=2).tolist() == [1, 2, 4, 5]
    assert uncertain_scores([4.0]).tolist() == [-np.inf]


@pytest.mark.kernel
def test_uncertain_matches_all_pairs_minimum():
    rng = np.random.default_rng(5)
    s = rng.normal(size=30)
    g = rng.integers(0, 3, size=30)
    got = uncertain_scores(s, g)
    for i in range(30):
        d = [abs(s[i] - s[j]) for j in range(30) if j != i and g[j] == g[i]]
        assert got[i] == pytest.approx(-min(d) if d else -np.inf)


# ----------------------------------------------------------------- entropy
def _h(p):
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


@pytest.mark.kernel
def test_entropy_hand_example():
    # labeled (query 1): non-relevant at 0 and 3, relevant at 1
    # pool x = 0.5: relevant -> 1 of 2 non-relevant above: e+ = 1/2; non-relevant -> 0 of
    #   1 relevant below: e- = 0 -> P+ = sig(e- - e+) = sig(-0.5)
    # pool x = 2: e+ = 1/2, e- = 1 -> P+ = sig(0.5); same entropy
    # pool x = 1 (tied with the relevant one): e+ = 1/2, e- = 1/2 (tie) -> P+ = 1/2 -> 1 bit
    # pool x = 9 in query 2 (nothing labeled there): e+ = e- = 0 -> 1 bit
    got = entropy_scores([0.5, 2.0, 1.0, 9.0], [1, 1, 1, 2], [0.0, 1.0, 3.0],
                         [0, 1, 0], [1, 1, 1])
    np.testing.assert_allclose(got, [_h(sig(-0.5)), _h(sig(0.5)), 1.0, 1.0], rtol=1e-12)


@pytest.mark.kernel
def test_entropy_matches_brute_force_counts():
    rng = np.random.default_rng(8)
    s = np.round(rng.normal(size=25), 1)
    g = rng.integers(0, 3, size=25)
    ls = np.round(rng.normal(size=30), 1)
    lr = rng.random(30) < 0.3
    lg = rng.integers(0, 4, size=30)  # query 3 has labeled documents only
    got = entropy_scores(s, g, ls, lr, lg)
    for i in range(25):
        neg = [v for v, r, q in zip(ls, lr, lg) if q == g[i] and not r]
        pos = [v for v, r, q in zip(ls, lr, lg) if q == g[i] and r]
        e_pos = (sum(v > s[i] for v in neg) + 0.5 * sum(v == s[i] for v in neg)) / len(neg) \
            if neg else 0.0
        e_neg = (sum(v < s[i] for v in pos) + 0.5 * sum(v == s[i] for v in pos)) / len(pos) \
            if pos else 0.0
        assert got[i] == pytest.approx(_h(sig(e_neg - e_pos)), rel=1e-12)


# ----------------------------------------------------------------- diverse
def test_diverse_hand_example():
    # main ranks (normalized) 0, .5, 1; member 1 reverses them: |diff| 1, 0, 1;
    # member 2 scores 0.1, 0.3, 0.2 -> ranks 0, 1, .5: |diff| 0, .5, .5 -> mean .5 .25 .75
    got = diverse_scores([0.1, 0.2, 0.3], [[0.3, 0.2, 0.1], [0.1, 0.3, 0.2]])
    np.testing.assert_allclose(got, [0.5, 0.25, 0.75])
    assert within_query_ranks([2.0, 1.0, 5.0, 4.0], [0, 0, 1, 1]).tolist() == [1, 0, 1, 0]
    with pytest.raises(ValueError, match="committee_scores"):
        diverse_scores([0.1, 0.2], [[0.1, 0.2, 0.3]])


def test_select_per_query_takes_k_best_and_breaks_ties_by_row():
    v = [0.2, 0.9, 0.5, 0.7, 0.1, 0.5]
    g = ["a", "a", "a", "b", "b", "a"]
    assert select_per_query(v, g, k=2).tolist() == [1, 2, 3, 4]  # 0.5 tie: row 2 before 5
    assert select_per_query(v, g, k=1).tolist() == [1, 3]
    assert select_per_query([], [], k=3).tolist() == []


def test_random_values_come_from_the_given_generator():
    from birank.active_learning import random_scores

    np.testing.assert_array_equal(random_scores(4, random_state=np.random.default_rng(11)),
                                  np.random.default_rng(11).random(4))
    # an int seeds a fresh generator; a Generator is drawn from as is (advanced)
    np.testing.assert_array_equal(random_scores(4, random_state=11),
                                  np.random.default_rng(11).random(4))
    rng = np.random.default_rng(3)
    first = random_scores(2, random_state=rng)
    np.testing.assert_array_equal(np.concatenate([first, random_scores(2, random_state=rng)]),
                                  np.random.default_rng(3).random(4))


@pytest.mark.parametrize("groups, k, message", [
    ([0, 0], 1, r"one query id per sample \(3\); got shape \(2,\)"),
    ([0, np.nan, 0], 1, "groups contains NaN"),
    ([0, None, 0], 1, "groups contains None"),
    ([0, 0, 1], 1.5, "k must be an int >= 0"),
    ([0, 0, 1], -1, "k must be an int >= 0"),
])
def test_select_per_query_checks_groups_and_k(groups, k, message):
    """Fails on the old main: a short groups gave lexsort's "array dimensions must agree",
    a NaN id was accepted (a query of its own), k=1.5 picked 2 rows per query."""
    with pytest.raises(ValueError, match=message):
        select_per_query([0.2, 0.9, 0.5], groups, k=k)


def test_select_per_query_refuses_nan_values():
    """NaN sorts last: that row would silently never be picked."""
    with pytest.raises(ValueError, match=r"values contains NaN \(first at index 1\)"):
        select_per_query([0.2, np.nan, 0.5], [0, 0, 0], k=1)
