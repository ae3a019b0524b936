"""The reproductions' statistics helper (tests over independent units) and grid-edge search."""

import warnings

import numpy as np
import pytest

from birank.experiments import _grid, _stats, khalid


def test_paired_comparison_known_answers():
    # differences 1..5: mean 3, sd sqrt(2.5), t = 3 / (sqrt(2.5) / sqrt(5)) = 4.2426 on 4
    # degrees of freedom, two-sided p = 0.013236; every difference positive, so the exact
    # Wilcoxon p is 2 / 2^5 = 0.0625
    r = _stats.paired_comparison([1.0, 2, 3, 4, 5], np.zeros(5))
    assert r["n_units"] == 5 and r["mean_diff"] == 3.0 and r["wins"] == 5
    assert r["t_p"] == pytest.approx(0.013236, abs=1e-6)
    assert r["wilcoxon_p"] == pytest.approx(0.0625)
    # the bootstrap interval of the mean of 1..5 lies inside [1, 5] and covers 3
    assert 1.0 <= r["ci_low"] < 3.0 < r["ci_high"] <= 5.0


def test_paired_comparison_degenerate_cases():
    same = _stats.paired_comparison([0.5, 0.6, 0.7], [0.5, 0.6, 0.7])
    assert same["t_p"] == 1.0 and same["mean_diff"] == 0.0
    shift = _stats.paired_comparison([1.5, 1.6], [0.5, 0.6])
    assert shift["t_p"] == 0.0 and shift["ci_low"] == shift["ci_high"] == pytest.approx(1.0)
    one = _stats.paired_comparison([1.0, np.nan], [0.0, 1.0])  # NaN pairs are dropped
    assert one["n_units"] == 1 and np.isnan(one["t_p"])
    with pytest.raises(ValueError, match="not matched"):
        _stats.paired_comparison([1.0, 2.0], [1.0])


def test_bootstrap_interval_covers_the_true_mean_about_95_percent():
    rng = np.random.default_rng(0)
    hits = 0
    for k in range(200):
        d = rng.normal(0.3, 1.0, size=30)
        r = _stats.paired_comparison(d, np.zeros(30), n_boot=2000, random_state=k)
        hits += r["ci_low"] <= 0.3 <= r["ci_high"]
    assert 0.88 <= hits / 200 <= 0.99


def test_correlated_rounds_do_not_count_as_units():
    # 5 units x 20 rounds; within a unit the rounds repeat the unit's value plus tiny noise.
    # Over all 100 values the test would be wildly significant; over the 5 unit means it is
    # the test of 5 numbers with a mean near zero.
    rng = np.random.default_rng(1)
    unit_effect = np.array([0.02, -0.015, 0.01, -0.012, 0.004])
    units = np.repeat(np.arange(5), 20)
    a = unit_effect[units] + 1e-4 * rng.normal(size=100)
    ids, means = _stats.unit_means(a, units)
    assert ids.tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(means, unit_effect, atol=1e-4)
    r = _stats.paired_comparison(means, np.zeros(5))
    assert r["n_units"] == 5 and r["t_p"] > 0.5


def test_search_grid_extends_past_an_edge_and_warns_when_still_there():
    # optimum at 2^-13: below the grid 2^[-10:0]; two extensions of 2 values reach it
    best, rec = _grid.search_grid(lambda p: -abs(np.log2(p) + 13), [2.0 ** k for k in
                                                                       range(-10, 1)])
    assert best == 2.0 ** -13 and rec["at_edge"] is None and rec["extended"] == 2
    assert rec["initial_edge"] == "low"
    # a score still rising at the top: the grid grows by 3 x 2 values, then a warning
    with pytest.warns(_grid.GridEdgeWarning, match="high edge"):
        best, rec = _grid.search_grid(lambda p: p, [1.0, 2.0, 4.0], max_extensions=3)
    assert best == 256.0 and rec["at_edge"] == "high" and rec["extended"] == 3
    # no extension allowed: the edge is reported
    with pytest.warns(_grid.GridEdgeWarning):
        assert _grid.search_grid(lambda p: -p, [1.0, 10.0], max_extensions=0)[1]["at_edge"] \
            == "low"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an interior optimum never warns
        assert _grid.search_grid(lambda p: -abs(p - 4.0), [1.0, 2.0, 4.0, 8.0])[0] == 4.0


def test_khalid_select_parameter_extends_and_warns_its_users():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(160, 4))
    y01 = (X[:, 0] + 0.3 * rng.normal(size=160) > 0).astype(np.int8)

    def make(p, seed):  # a "learner" whose CV score rises as p falls: optimum below any grid
        class M:
            def fit(self, X, y):
                return self

            def decision_function(self, X):
                return X[:, 0] + p * 10.0 * rng.normal(size=X.shape[0])
        return M()

    grid = (2.0 ** -2, 2.0 ** 0, 2.0 ** 2)
    with pytest.warns(_grid.GridEdgeWarning, match="low edge"):
        best, scores, rec = khalid.select_parameter(make, X, y01, grid, random_state=0,
                                                    max_extensions=1, return_record=True)
    assert min(scores) < min(grid) and rec["extended"] == 1 and best == min(scores)


def test_donmez_tests_use_one_number_per_fold():
    from birank.experiments import donmez

    # 2 folds x 2 seeds, 3 rounds: rounds >= 1 are averaged per split, seeds per fold
    rec = {"splits": [{"split": s} for s in ("fold1-seed0", "fold1-seed1", "fold2-seed0",
                                              "fold2-seed1")],
           "runs": {"lossmin": [{"map": [0.0, 0.4, 0.6]}, {"map": [0.0, 0.2, 0.2]},
                                {"map": [0.0, 0.5, 0.5]}, {"map": [0.0, 0.1, 0.3]}],
                    "random": [{"map": [0.0, 0.1, 0.1]}] * 4}}
    vals = donmez.unit_values(rec, "map")
    np.testing.assert_allclose(vals["lossmin"], [0.35, 0.35])
    np.testing.assert_allclose(vals["random"], [0.1, 0.1])
    r = donmez.paired_tests(vals, "lossmin", "random")
    assert r["n_units"] == 2 and r["mean_diff"] == pytest.approx(0.25)


def test_welch_greater_known_answer():
    # a = 1, 2, 3 against a constant 0: t = 2 / sqrt(1 / 3) = 3.4641 on 2 degrees of freedom
    # (Welch-Satterthwaite, all variance from a), one-sided p = 0.03709
    assert _stats.welch_greater([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]) == pytest.approx(0.03709,
                                                                                   abs=1e-5)
    assert _stats.welch_greater([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]) > 0.9
    assert np.isnan(_stats.welch_greater([1.0], [0.0, 1.0]))


def test_gultekin_cv_extends_the_decade_grid_through_the_shared_helper():
    from birank.experiments import gultekin_paisley as gp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=200) > 0).astype(int)

    class Noisy:  # validation AUC falls as C grows: the best C lies below any grid
        def __init__(self, C=1.0):
            self.C = C

        def fit(self, X, y):
            self.classes_ = np.array([0, 1])
            return self

        def decision_function(self, X):
            noise = np.random.default_rng(0).normal(size=X.shape[0])
            return X[:, 0] + self.C * 100.0 * noise

    method = gp.Method("Noisy", mode="subset", cv_param=("C",), cv_grid=(1e-2, 1e-1, 1.0))
    r = gp._cv_method(method, Noisy, X, y, seed=0)
    # two tenfold extensions below 1e-2 (CV_EXTEND = 2); the choice is still at the edge
    assert r["grid"] == pytest.approx([1e-4, 1e-3, 1e-2, 1e-1, 1.0])
    assert r["value"] == pytest.approx(1e-4) and r["at_edge"] is True

    class Interior(Noisy):  # best at C = 0.1: no extension, not at an edge
        def decision_function(self, X):
            noise = np.random.default_rng(0).normal(size=X.shape[0])
            return X[:, 0] + 100.0 * abs(np.log10(self.C) + 1) * noise

    r = gp._cv_method(method, Interior, X, y, seed=0)
    assert r["value"] == pytest.approx(0.1) and r["at_edge"] is False
    assert r["grid"] == pytest.approx([1e-2, 1e-1, 1.0])


def test_donmez_verdict_needs_more_than_one_unit():
    from birank.experiments import donmez

    one = {"n_units": 1, "mean_diff": 0.02, "t_p": float("nan"), "ci_low": float("nan"),
           "ci_high": float("nan"), "wilcoxon_p": float("nan")}
    res = {"datasets": {"X": {"summary": {"lossmin_vs": {
        m: {"random": dict(one), "entropy": dict(one)} for m in ("auc", "map", "ndcg")}}}}}
    lines = donmez._claims(res)
    assert len(lines) == 1 and "No claim tested" in lines[0]
    five = dict(one, n_units=5, t_p=0.01, ci_low=0.01, ci_high=0.03)
    res["datasets"]["X"]["summary"]["lossmin_vs"] = {
        m: {"random": dict(five), "entropy": dict(five)} for m in ("auc", "map", "ndcg")}
    assert "LossMin beats Random (Figs. 3, Table 1): holds." in donmez._claims(res)[0]
