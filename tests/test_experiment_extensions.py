"""Experiment pieces beyond the papers' tables: LossMin ablations, gultekin's bound arithmetic, label noise."""

import numpy as np
import pytest

from birank._kernels.rank_selection import lossmin_ablation_scores, lossmin_scores


def _sig(z):
    return 1.0 / (1.0 + np.exp(-z))


@pytest.mark.parametrize("normalized,calibrated", [(True, True), (False, True), (True, False),
                                                   (False, False)])
def test_lossmin_ablations_match_their_formulas(normalized, calibrated):
    rng = np.random.default_rng(0)
    s = np.sort(rng.normal(size=25))
    qptr = np.array([0, 25], dtype=np.int64)
    got = np.empty(25)
    lossmin_ablation_scores(s, qptr, 0.6, normalized, calibrated, got)
    i_hat = int(np.argmax(np.diff(s))) + 1  # Fig. 2: the largest gap
    theta = i_hat + 0.5
    c = s[i_hat - 1] if calibrated else 0.0
    r = np.arange(1, 26)
    lo, hi = np.maximum(0, 0.5 - (r - theta)), np.maximum(0, 0.5 + (r - theta))
    if normalized:  # eq. (7)
        ref = _sig(s - c) * lo / (theta - 1) * 0.4 + _sig(c - s) * hi / (25 - theta) * 0.6
    else:  # eq. (6)
        ref = _sig(s - c) * lo + _sig(c - s) * hi
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)
    if normalized and calibrated:
        paper = np.empty(25)
        lossmin_scores(s, qptr, 0.6, paper)
        np.testing.assert_allclose(got, paper, rtol=1e-12, atol=1e-15)


def test_variant_learners_and_unknown_name():
    from birank.experiments.donmez_extensions import VARIANTS, make_learner

    rng = np.random.default_rng(1)
    X, g = rng.normal(size=(60, 3)), np.repeat([0, 1], 30)
    y = np.digitize(X[:, 0], [0.0, 0.8]).astype(float)
    kw = {"per_query": 2, "relevance_threshold": 1, "random_state": 0}
    for v in VARIANTS:
        res = make_learner(v, **kw).simulate(X, y, g, X, y, g, n_rounds=1,
                                             n_initial_nonrelevant=3)
        assert len(res["map"]) == 2 and res["n_labeled"][1] > res["n_labeled"][0]
    assert make_learner("lossmin-multilevel", **kw).relevance == "graded"
    with pytest.raises(ValueError, match="unknown variant"):
        make_learner("lossmin-x", **kw)


def test_gultekin_bound_arithmetic():
    from birank.experiments import gultekin_theory as th

    # Lemma 2 (ii) in closed form: its probability at the returned epsilon is delta
    e = th.bound_lemma2(1000, 5.0, 3.0, 1.0, 2)[1]
    p = 2 * np.exp(-0.5 * (e * np.sqrt(1000) / (2 * 3.0 * 1.0) - 1) ** 2)
    assert p == pytest.approx(th.DELTA)
    # eq. (11) / (17): more S for a smaller epsilon, (17) stricter than (11)
    s = [th.s_required(eps, 5.0, 3.0, 1.0, 2, "11") for eps in (0.1, 0.01)]
    assert s[1] > s[0] > 0
    assert th.s_required(0.01, 5.0, 3.0, 1.0, 2, "17") > s[1]
    # the bisection returns the smallest epsilon meeting delta for a decreasing probability
    eps = th._solve_eps(lambda x: np.exp(-x))
    assert eps == pytest.approx(-np.log(th.DELTA), rel=1e-6)


def test_label_noise_flips_the_stated_fraction_reproducibly():
    from birank.experiments.shen_lin import _flip_labels

    y = np.r_[np.ones(30, np.int8), np.zeros(70, np.int8)]
    a, b = _flip_labels(y, 0.1, 3, 0), _flip_labels(y, 0.1, 3, 0)
    assert np.array_equal(a, b) and np.count_nonzero(a != y) == 10
    assert not np.array_equal(a, _flip_labels(y, 0.1, 4, 0))
