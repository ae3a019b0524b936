"""ActiveRankSVM (shen-lin ASRankSVM / ASCRC) against exact solutions and its own contract."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

import birank.solvers.dual_cd as dual_cd_solver_module
from birank.batch.active_ranksvm import ActiveRankSVM
from birank.batch.weighted_svm import WeightedSVM
from birank.metrics import roc_auc
from birank.pairs import BipartitePairs

STRATEGIES = ["random", "soft-close", "soft-correct", "hard-close", "hard-correct"]


def _data(n=40, d=4, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ rng.normal(size=d) + rng.normal(size=n) > 0.3).astype(int)
    if sparse:
        X[np.abs(X) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    return X, y


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


def _brute_ranksvm_hinge(X, y, C):
    """All-pairs hinge RankSVM by LinearSVC on materialized +-z rows (tiny data only).

    Rows z (label +1) and -z (label -1) with C/2 each give C * hinge(1 - w.z) per pair.
    """
    a, b = BipartitePairs(y).enumerate()
    Xd = _dense(X)
    Z = Xd[a] - Xd[b]
    ZZ = np.vstack((Z, -Z))
    lab = np.concatenate((np.ones(len(Z)), -np.ones(len(Z))))
    svc = LinearSVC(C=C / 2, loss="hinge", fit_intercept=False, tol=1e-10, max_iter=200000,
                    dual=True).fit(ZZ, lab)
    return svc.coef_.ravel()


def _objective(w, X, y, C):
    a, b = BipartitePairs(y).enumerate()
    s = _dense(X) @ w
    return 0.5 * w @ w + C * np.maximum(0, 1 - (s[a] - s[b])).sum()


@pytest.mark.parametrize("sparse", [False, True])
def test_random_with_budget_covering_all_pairs_is_all_pairs_hinge_ranksvm(sparse):
    X, y = _data(30, 3, seed=1, sparse=sparse)
    n_pairs = int(y.sum() * (len(y) - y.sum()))
    C = 0.05
    with pytest.warns(UserWarning, match="exceeds"):
        model = ActiveRankSVM(budget=10**6, batch_size=37, strategy="random", C=C, tol=1e-9,
                              max_iter=100000, random_state=0).fit(X, y)
    assert model.n_pairs_ == n_pairs == model.budget_ and model.n_pseudo_pairs_ == 0
    w_ref = _brute_ranksvm_hinge(X, y, C)
    assert _objective(model.coef_, X, y, C) == pytest.approx(_objective(w_ref, X, y, C),
                                                            rel=1e-6)
    np.testing.assert_allclose(model.coef_, w_ref, atol=1e-4)


@pytest.mark.parametrize("threshold", [False, True])
def test_pair_weight0_budget_covering_every_point_is_weighted_svm(layout, threshold):
    X, y = _data(50, 4, seed=2)
    X = layout(X)
    C = 0.3
    with pytest.warns(UserWarning, match="exceeds"):
        model = ActiveRankSVM(budget=10**4, batch_size=16, strategy="random", pair_weight=0.0, C=C,
                              fit_intercept=threshold, tol=1e-10, max_iter=100000,
                              random_state=0).fit(X, y)
    assert model.n_pseudo_pairs_ == 50 and model.n_pairs_ == 0
    # every point weighs Gamma |L*| C / (p Z) = C: the same class weights C+ = C- = C
    ref = WeightedSVM(C=C, class_weight=None, fit_intercept=threshold, tol=1e-10,
                      max_iter=100000, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.coef_, ref.coef_, atol=1e-6)
    # with a threshold both learn theta (eq. 8); without, both set the best-accuracy cut
    assert model.intercept_ == pytest.approx(ref.intercept_, abs=1e-6)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


@pytest.mark.parametrize("strategy", ["soft-correct", "soft-close"])
@pytest.mark.parametrize("budget", [400, 20])
def test_zero_one_features_same_model_dense_and_sparse(strategy, budget):
    """0/1 features: the soft sampler reads the CSR rows without their values (all 1;
    budget 400) or with them (budget 20: more than INDICATOR_ROWS_PER_BUDGET rows per
    unit, the check is skipped) and draws what it draws on the dense array (the same
    pairs, the same rejections); the solver then reaches the same model (its dense
    and CSR sums differ in order)."""
    from birank.batch.active_ranksvm import INDICATOR_ROWS_PER_BUDGET

    rng = np.random.default_rng(2)
    n = 400
    X = (rng.random((n, 12)) < 0.3).astype(np.float64)
    y = (X[:, :4].sum(axis=1) + rng.normal(scale=0.7, size=n) > 1.2).astype(int)
    assert (n <= INDICATOR_ROWS_PER_BUDGET * budget) == (budget == 400)
    kw = dict(budget=budget, batch_size=budget // 4, strategy=strategy, random_state=5)
    dense = ActiveRankSVM(**kw).fit(X, y)
    sparse = ActiveRankSVM(**kw).fit(sp.csr_matrix(X), y)
    assert sparse.rejections_.sum() > 0  # the acceptance test ran on scores
    np.testing.assert_array_equal(sparse.chosen_ids_, dense.chosen_ids_)
    np.testing.assert_array_equal(sparse.rejections_, dense.rejections_)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)


@pytest.mark.filterwarnings("ignore:ActiveRankSVM. soft-correct sampling found only")
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("weight", [1.0, 0.5, "uniform"])
def test_same_random_state_same_model(strategy, weight):
    X, y = _data(80, 5, seed=3)
    kw = dict(budget=300, batch_size=20, strategy=strategy, pair_weight=weight)
    m1 = ActiveRankSVM(random_state=7, **kw).fit(X, y)
    m2 = ActiveRankSVM(random_state=7, **kw).fit(X, y)
    np.testing.assert_array_equal(m1.coef_, m2.coef_)
    np.testing.assert_array_equal(m1.chosen_ids_, m2.chosen_ids_)
    np.testing.assert_array_equal(m1.rejections_, m2.rejections_)
    assert m1.intercept_ == m2.intercept_
    if not strategy.startswith("hard"):
        m3 = ActiveRankSVM(random_state=8, **kw).fit(X, y)
        assert not np.array_equal(m1.chosen_ids_, m3.chosen_ids_)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_pool_bookkeeping(strategy):
    X, y = _data(120, 5, seed=4)
    Xe, ye = _data(60, 5, seed=5)
    model = ActiveRankSVM(budget=250, batch_size=30, strategy=strategy, random_state=0)
    model.fit(X, y, eval_set=(Xe, ye))
    # b initial items, then rounds of b, last round tops up to the budget
    sizes = [h["n_chosen"] for h in model.history_]
    assert sizes == [30, 60, 90, 120, 150, 180, 210, 240, 250]
    assert model.budget_ == 250 == model.n_pairs_ and model.n_pseudo_pairs_ == 0
    assert np.unique(model.chosen_ids_).size == 250
    assert model.rejections_.shape == (8,)
    assert [h["rejections"] for h in model.history_[1:]] == model.rejections_.tolist()
    if strategy in ("random",) or strategy.startswith("hard"):
        assert np.all(model.rejections_ == 0)
    else:
        assert model.rejections_.sum() > 0
    last = model.history_[-1]
    assert last["auc"] == pytest.approx(roc_auc(ye, model.decision_function(Xe)))
    secs = [h["seconds"] for h in model.history_]
    assert np.all(np.diff(secs) >= 0)
    assert all(h["select_seconds"] >= 0 and h["solve_seconds"] > 0 for h in model.history_)


def test_hard_rounds_pick_what_hard_select_picks():
    """Each hard round adds the b unchosen pairs with the smallest margin (brute force)."""
    X, y = _data(40, 3, seed=6)
    # round_tol=None: every round solves to tol, so round 2's model is a budget-40 fit's
    model = ActiveRankSVM(budget=60, batch_size=20, strategy="hard-correct", random_state=0,
                          tol=1e-6, round_tol=None, round_max_iter=None).fit(X, y)
    # replay round 2 from round 1's model: refit with budget 40 gives that model
    m40 = ActiveRankSVM(budget=40, batch_size=20, strategy="hard-correct", random_state=0,
                        tol=1e-6, round_tol=None, round_max_iter=None).fit(X, y)
    np.testing.assert_array_equal(model.chosen_ids_[:40], m40.chosen_ids_)
    a, b = BipartitePairs(y).enumerate()
    s = X @ m40.coef_
    d = s[a] - s[b]
    ids = np.arange(len(a))
    free = ~np.isin(ids, m40.chosen_ids_)
    order = np.lexsort((ids[free], d[free]))
    np.testing.assert_array_equal(np.sort(model.chosen_ids_[40:]), np.sort(ids[free][order[:20]]))


def test_pair_weight_mixes_pairs_and_pseudo_pairs():
    X, y = _data(200, 5, seed=8)
    m = ActiveRankSVM(budget=400, batch_size=50, pair_weight=0.5, strategy="random",
                      random_state=0).fit(X, y)
    assert m.n_pairs_ > 0 and m.n_pseudo_pairs_ > 0 and m.n_pairs_ + m.n_pseudo_pairs_ == 400
    n_pos = int(y.sum())
    n_pair = n_pos * (200 - n_pos)
    mu = ActiveRankSVM(budget=100, batch_size=50, pair_weight="uniform", random_state=0).fit(X, y)
    assert mu.pair_weight_ == pytest.approx(n_pair / (n_pair + 200))
    m0 = ActiveRankSVM(budget=100, batch_size=50, pair_weight=0.0, random_state=0).fit(X, y)
    assert m0.n_pairs_ == 0 and m0.n_pseudo_pairs_ == 100


def test_bias_correction_off_gives_constant_weights():
    X, y = _data(100, 4, seed=9)
    m_on = ActiveRankSVM(budget=200, batch_size=50, random_state=0).fit(X, y)
    m_off = ActiveRankSVM(budget=200, batch_size=50, random_state=0,
                          bias_correction=False).fit(X, y)
    # same seed, same first pool and model; sampling then diverges through the weights
    np.testing.assert_array_equal(m_on.chosen_ids_[:50], m_off.chosen_ids_[:50])
    assert not np.allclose(m_on.coef_, m_off.coef_)


def test_soft_correct_reaches_good_auc_on_separable_signal():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 10))
    w = rng.normal(size=10)
    y = (X @ w + 0.5 * rng.normal(size=3000) > 1.0).astype(int)
    m = ActiveRankSVM(budget=1500, random_state=0).fit(X, y)
    rnd = ActiveRankSVM(budget=1500, strategy="random", random_state=0).fit(X, y)
    assert m.score(X, y) > 0.97
    assert m.score(X, y) >= rnd.score(X, y) - 0.005


def test_soft_correct_stops_when_nothing_can_be_accepted():
    X = np.array([[3.0], [4.0], [-3.0], [-4.0]] * 10)
    y = np.array([1, 1, 0, 0] * 10)
    with pytest.warns(UserWarning, match="stopping"):
        m = ActiveRankSVM(budget=300, batch_size=20, C=10.0, random_state=0,
                          max_draws=20000).fit(X, y)
    assert m.budget_ < 300
    assert m.score(X, y) == 1.0


@pytest.mark.parametrize("param,value", [("budget", 0), ("batch_size", -1),
                                         ("strategy", "greedy"), ("pair_weight", 1.5),
                                         ("pair_weight", "balanced"), ("C", 0.0), ("loss", "log"),
                                         ("round_max_iter", 0), ("round_tol", -1.0)])
def test_bad_parameters_name_the_parameter(param, value):
    X, y = _data()
    with pytest.raises(ValueError, match=param):
        ActiveRankSVM(**{param: value}).fit(X, y)


def test_bad_eval_set():
    X, y = _data()
    with pytest.raises(ValueError, match="eval_set"):
        ActiveRankSVM(budget=50).fit(X, y, eval_set=(X, y[:-1]))
    with pytest.raises(ValueError, match="eval_set"):
        ActiveRankSVM(budget=50).fit(X, y, eval_set=X)


def test_eval_set_labels_outside_classes_are_refused():
    """Fails on the old main: eval_set labels not in classes_ (NaN, y + 1) counted as
    negative and history_'s AUC was computed on them, silently (the online learners'
    eval_set refused them)."""
    X, y = _data()
    with_nan = y.astype(float)
    with_nan[0] = np.nan
    for bad, shown in ((with_nan, "nan"), (y + 5, "5, 6")):
        with pytest.raises(ValueError, match=rf"ActiveRankSVM: eval_set's y holds "
                                             rf"label\(s\) \[{shown}\] not in classes_"):
            ActiveRankSVM(budget=50, random_state=0).fit(X, y, eval_set=(X, bad))


def test_one_class_is_an_error():
    X, _ = _data()
    with pytest.raises(ValueError, match="one class"):
        ActiveRankSVM().fit(X, np.ones(X.shape[0]))




# ------------------------------------------------------------------ reproduction harness
def _experiment_args(tmp_path, extra=()):
    import argparse

    from birank.experiments import shen_lin

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 6))
    y = np.where(X @ rng.normal(size=6) + rng.normal(size=600) > 0.8, 2.0, 1.0)
    from birank.datasets import dump_svmlight

    dump_svmlight(X[:450], y[:450], tmp_path / "toy.train")
    dump_svmlight(X[450:], y[450:], tmp_path / "toy.test")
    parser = argparse.ArgumentParser()
    shen_lin.add_arguments(parser)
    return shen_lin, parser.parse_args(
        ["--train", str(tmp_path / "toy.train"), "--test", str(tmp_path / "toy.test"),
         "--positive-class", "2", "--budget", "300", "--batch-size", "50", "--pools", "2",
         "--hard-pools", "2", "--large-budget", "600", "--large-batch-size", "100",
         "--output", str(tmp_path / "out"), "--no-progress", *extra])


@pytest.mark.slow
def test_reproduction_runs_on_any_libsvm_file(tmp_path, capsys):
    import json

    shen_lin, args = _experiment_args(tmp_path, ["--tables", "2,3,4,6,7", "--pair-weights",
                                                 "uniform,0.5,1.0", "--pair-weight-pools",
                                                 "2"])
    assert shen_lin.run(args) == 0
    out = tmp_path / "out"
    res = json.loads((out / "shen-lin.json").read_text())
    methods = res["datasets"]["toy.train"]["methods"]
    for m in ("WSVM", "Random", "Soft-Close", "Soft-Correct", "Hard-Close", "Hard-Correct",
              "Soft-Close no-bc", "Soft-Correct g=uniform-thres"):
        assert len(methods[m]["auc"]) == (1 if m == "WSVM" else 2)
        assert all(0.5 < a <= 1.0 for a in methods[m]["auc"])
    # the JSON numbers are what the estimator gives with the same settings
    Xtr, ytr = _load_toy(tmp_path / "toy.train")
    Xte, yte = _load_toy(tmp_path / "toy.test")
    est = ActiveRankSVM(budget=300, batch_size=50, C=0.1, strategy="soft-correct",
                        round_tol=None, round_max_iter=None, random_state=1).fit(Xtr, ytr == 2)
    assert methods["Soft-Correct"]["auc"][1] == pytest.approx(est.score(Xte, yte == 2))
    md = (out / "shen-lin.md").read_text()
    assert "Table 4" in md and "Table 6" in md and "Table 2" in md and "Table 7" in md
    for fig in ("fig5", "fig6", "fig2"):
        assert (out / f"shen-lin-{fig}.png").stat().st_size > 1000


def _load_toy(path):
    from birank.datasets import load_svmlight

    X, y = load_svmlight(path, n_features=6)
    return X, y


def test_reproduction_rejects_unknown_dataset(tmp_path):
    from birank.cli import UserError

    shen_lin, args = _experiment_args(tmp_path)
    args.train = None
    args.datasets = ["nope"]
    with pytest.raises(UserError, match="nope"):
        shen_lin.run(args)
    args.datasets = ["a9a"]
    args.tables = "4,9"
    with pytest.raises(UserError, match="9"):
        shen_lin.run(args)


def test_random_with_budget_covering_all_pairs_equals_ranksvm_estimator():
    from birank.batch.ranksvm import RankSVM

    X, y = _data(40, 4, seed=11)
    C = 0.02
    with pytest.warns(UserWarning, match="exceeds"):
        model = ActiveRankSVM(budget=10**6, strategy="random", C=C, tol=1e-9, max_iter=100000,
                              random_state=0).fit(X, y)
    ref = RankSVM(C=C, loss="hinge", tol=1e-9).fit(X, y)
    assert model.n_pairs_ == ref.n_pairs_
    obj = _objective(model.coef_, X, y, C)
    assert obj == pytest.approx(ref.objective_, rel=1e-6)
    assert obj <= _objective(ref.coef_, X, y, C) * (1 + 1e-6)
    np.testing.assert_allclose(model.coef_, ref.coef_, atol=1e-3)


@pytest.mark.parametrize("loose_kw", [dict(round_tol=5.0, round_max_iter=None),
                                      dict(round_tol=None, round_max_iter=1), {}])
def test_loose_rounds_only_loosen_intermediate_rounds(loose_kw):
    X, y = _data(300, 5, seed=12)
    tight = ActiveRankSVM(budget=400, batch_size=100, random_state=0, round_tol=None,
                          round_max_iter=None).fit(X, y)
    loose = ActiveRankSVM(budget=400, batch_size=100, random_state=0, **loose_kw).fit(X, y)
    assert sum(h["n_iter"] for h in loose.history_[:-1]) < sum(
        h["n_iter"] for h in tight.history_[:-1])
    if loose_kw.get("round_max_iter", 1) == 1:
        assert all(h["n_iter"] == 1 for h in loose.history_[:-1])
    # the last solve reaches the same tolerance: a near-identical fit quality
    assert abs(loose.score(X, y) - tight.score(X, y)) < 0.01
    # the first round is identical (same pool, same start)
    np.testing.assert_array_equal(loose.chosen_ids_[:100], tight.chosen_ids_[:100])
    # and the last solve meets tol on the loose pool: its projected-gradient test passed
    assert loose.history_[-1]["n_iter"] < loose.max_iter


def test_chosen_weights_are_the_bias_corrected_costs():
    """Rescaled round after round, the pool's costs still equal shen-lin 4.1's formula."""
    from birank.batch._active_sampling import JointSpace, crc_weights

    X, y = _data(300, 5, seed=13)
    for gamma, bc in ((1.0, True), (0.6, True), (0.6, False)):
        model = ActiveRankSVM(budget=500, batch_size=50, pair_weight=gamma, bias_correction=bc,
                              C=0.3, random_state=0).fit(X, y)
        space = JointSpace(y, gamma)
        assert model.acceptance_.shape == model.chosen_ids_.shape
        assert np.all(model.acceptance_[:50] == 1.0)  # the uniform initial pool
        assert np.all((model.acceptance_ > 0) & (model.acceptance_ <= 1))
        want = crc_weights(model.acceptance_, space.big_gamma(model.chosen_ids_), 0.3, bc)
        np.testing.assert_allclose(model.chosen_weights_, want, rtol=1e-12)
        if bc:
            assert model.acceptance_.min() < 1.0  # the correction did something


def test_degenerate_pool_is_finished_by_newton():
    """Many pairs over 3 features: dual CD stops at max_iter, Newton certifies the optimum."""
    from birank.batch._active_sampling import JointSpace

    rng = np.random.default_rng(14)
    X = rng.normal(size=(200, 3))
    y = (X @ [1.0, -1.0, 0.5] + rng.normal(size=200) > 0).astype(int)
    kw = dict(budget=3000, batch_size=500, C=1.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning left for the user
        model = ActiveRankSVM(max_iter=5, **kw).fit(X, y)
    assert model.final_solver_ == "newton"
    ref = ActiveRankSVM(max_iter=200000, tol=1e-4, **kw).fit(X, y)
    assert ref.final_solver_ == "dual_cd"
    np.testing.assert_array_equal(model.chosen_ids_, ref.chosen_ids_)  # same pool, same costs
    a, b = JointSpace(y, 1.0).decode(model.chosen_ids_)
    Z = X[a] - X[b]

    def primal(w):
        return 0.5 * w @ w + model.chosen_weights_ @ np.maximum(0.0, 1.0 - Z @ w)

    # certified to a relative gap of 1e-4, as dual CD at a tight tolerance
    assert primal(model.coef_) <= primal(ref.coef_) * (1 + 1e-4)
    assert primal(ref.coef_) <= primal(model.coef_) * (1 + 1e-4)


def test_newton_finish_skipped_for_a_too_large_dense_pool(monkeypatch):
    rng = np.random.default_rng(14)
    X = rng.normal(size=(200, 3))
    y = (X @ [1.0, -1.0, 0.5] + rng.normal(size=200) > 0).astype(int)
    monkeypatch.setattr(dual_cd_solver_module, "MAX_POOL_MATRIX", 10)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        model = ActiveRankSVM(budget=3000, batch_size=500, C=1.0, max_iter=5,
                              random_state=0).fit(X, y)
    assert model.final_solver_ == "dual_cd"
