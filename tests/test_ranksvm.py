"""RankSVM: exact all-pairs solution vs brute force, a9a reference, sklearn API."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from birank import RankSVM
from birank.metrics import roc_auc
from oracles_pairs import all_pairs, fit_bruteforce, pair_grad, pair_objective


def _data(seed, labels="binary", n=30, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(X.shape) < 0.3] = 0.0
    if labels == "binary":
        y = (X @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(float)
    elif labels == "graded":
        y = rng.integers(0, 3, n).astype(float)
    else:
        y = X @ rng.normal(size=d) + rng.normal(size=n)
    return X, y


_BRUTEFORCE = {}


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
@pytest.mark.parametrize("labels", ["binary", "graded", "real"])
@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_solution_matches_bruteforce(layout, loss, labels, grouped, weighted):
    seed = 3 * ["binary", "graded", "real"].index(labels) + 2 * grouped + weighted
    X, y = _data(seed, labels)
    rng = np.random.default_rng(100 + seed)
    groups = rng.integers(0, 3, len(y)) if grouped else None
    sw = rng.uniform(0.3, 2.0, len(y)) if weighted else None
    C = 0.5
    # hinge: certified relative gap 1e-7 (smaller is below float precision of the bound)
    tol = 1e-10 if loss == "squared_hinge" else 1e-7
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = RankSVM(C=C, loss=loss, tol=tol, max_iter=5000).fit(
            layout(X), y, groups=groups, sample_weight=sw)
    key = (loss, labels, grouped, weighted)
    if key not in _BRUTEFORCE:  # shared by the dense and the CSR run
        _BRUTEFORCE[key] = fit_bruteforce(X, y, C, groups, sw, loss)[1]
    f_ref = _BRUTEFORCE[key]
    f = pair_objective(model.coef_, X, y, C, groups, sw, loss)
    assert model.objective_ == pytest.approx(f, rel=1e-12)
    assert abs(f - f_ref) <= 1e-6 * max(1.0, abs(f_ref))
    assert model.n_pairs_ == len(all_pairs(y, groups)[0])
    if loss == "squared_hinge":  # smooth: the gradient vanishes at the optimum
        g = pair_grad(model.coef_, X, y, C, groups, sw)
        assert np.linalg.norm(g) <= 1e-7 * max(1.0, np.linalg.norm(pair_grad(0 * g, X, y, C,
                                                                               groups, sw)))


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_integer_sample_weight_equals_repeated_rows(loss):
    X, y = _data(7, "graded", n=25)
    k = np.random.default_rng(7).integers(1, 4, len(y))
    tol = 1e-10 if loss == "squared_hinge" else 1e-7
    a = RankSVM(C=0.3, loss=loss, tol=tol).fit(X, y, sample_weight=k)
    b = RankSVM(C=0.3, loss=loss, tol=tol).fit(np.repeat(X, k, 0), np.repeat(y, k))
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-6)
    if loss == "squared_hinge":
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-5, atol=1e-7)
    else:
        # strong convexity: |w - w*|^2 <= 2 (P(w) - P*) <= 2 tol P for both fits
        bound = 2 * np.sqrt(2 * tol * a.objective_)
        assert np.linalg.norm(a.coef_ - b.coef_) <= bound


def test_groups_only_pair_within_a_group():
    # two groups whose label scales disagree: pooled pairs would mix them
    X, y = _data(11, "graded", n=40)
    groups = np.repeat([0, 1], 20)
    y2 = y + 10 * groups
    per_group = RankSVM(C=0.3, tol=1e-10).fit(X, y2, groups=groups)
    pooled = RankSVM(C=0.3, tol=1e-10).fit(X, y2)
    same_as_shifted = RankSVM(C=0.3, tol=1e-10).fit(X, y, groups=groups)
    np.testing.assert_allclose(per_group.coef_, same_as_shifted.coef_, rtol=1e-8, atol=1e-10)
    assert per_group.n_pairs_ < pooled.n_pairs_
    assert not np.allclose(per_group.coef_, pooled.coef_)


def test_binary_labels_set_classes_and_score_is_auc():
    X, y = _data(3, "binary", n=60)
    labels = np.where(y > 0, 7, -3)  # (graded rankers take numeric labels only)
    model = RankSVM(C=0.1).fit(X, labels)
    assert list(model.classes_) == [-3, 7]
    assert model.score(X, labels) == pytest.approx(roc_auc(labels == 7,
                                                           model.decision_function(X)))
    # two classes: predict gives labels, graded labels: the scores
    s = model.decision_function(X)
    np.testing.assert_array_equal(model.predict(X), np.where(s > 0, 7, -3))
    graded = RankSVM(C=0.1).fit(X, np.arange(60) % 3)
    assert not hasattr(graded, "classes_")
    np.testing.assert_array_equal(graded.predict(X), graded.decision_function(X))


def test_refit_on_graded_labels_forgets_the_two_class_sigmoid(tmp_path):
    """A two-class fit's probability_ must not outlive a refit on graded labels: a model
    file (birank.model_io) would save it as if the graded model had a sigmoid."""
    import json

    from birank.model_io import save_model

    X, y = _data(3, "binary", n=60)
    graded = np.arange(60) % 3
    model = RankSVM(C=0.1).fit(X, y).fit(X, graded)
    fresh = RankSVM(C=0.1).fit(X, graded)
    assert sorted(k for k in vars(model) if k.endswith("_")) == \
        sorted(k for k in vars(fresh) if k.endswith("_"))
    save_model(model, tmp_path / "m.json")
    assert "probability" not in json.loads((tmp_path / "m.json").read_text())


def test_deterministic_and_dense_equals_sparse():
    X, y = _data(5, "real", n=80, d=6)
    a = RankSVM(C=0.2).fit(X, y)
    b = RankSVM(C=0.2).fit(X, y)
    c = RankSVM(C=0.2).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_allclose(a.coef_, c.coef_, rtol=1e-9, atol=1e-12)


def test_convergence_warning_and_verbose(capsys):
    X, y = _data(2, "real", n=200, d=5)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        RankSVM(C=10.0, tol=1e-12, max_iter=1).fit(X, y)
    with pytest.warns(ConvergenceWarning):
        RankSVM(C=10.0, loss="hinge", tol=1e-12, max_iter=2).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = RankSVM(C=0.1, verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert err.count("RankSVM(squared_hinge)") >= model.n_iter_ >= 1


def test_hinge_progress_counts_the_running_newton_steps(capsys):
    # the hinge progress reported the steps of the finished smoothing stages only: "step 0"
    # through the first stage, then a jump
    X, y = _data(2, "real", n=200, d=5)
    model = RankSVM(C=10.0, loss="hinge", tol=1e-8, verbose=True).fit(X, y)
    steps = [int(ln.split()[2]) for ln in capsys.readouterr().err.splitlines()
             if ln.startswith("RankSVM(hinge) step ")]
    assert steps[0] == 1 and steps[-1] == model.n_iter_ > 2
    # one more per Newton step (a stage that ends on its own test certifies its last again)
    assert all(b - a in (0, 1) for a, b in zip(steps, steps[1:]))


@pytest.mark.parametrize("params, match", [
    ({"C": 0.0}, "'C'"),
    ({"C": -1}, "'C'"),
    ({"loss": "l1"}, "'loss'"),
    ({"tol": 0}, "'tol'"),
    ({"max_iter": 0}, "'max_iter'"),
])
def test_bad_parameters(params, match):
    X, y = _data(0)
    with pytest.raises(ValueError, match=match):
        RankSVM(**params).fit(X, y)


def test_bad_inputs():
    X, y = _data(0)
    with pytest.raises(ValueError, match="groups"):
        RankSVM().fit(X, y, groups=np.zeros(3))
    with pytest.raises(ValueError, match="sample_weight"):
        RankSVM().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="sample_weight"):
        RankSVM().fit(X, y, sample_weight=np.ones(4))
    with pytest.raises(ValueError, match="numeric"):
        RankSVM().fit(X[:3], np.array(["a", "b", "c"]))


@pytest.mark.slow
def test_a9a_hinge_certified():
    from birank.datasets import load_a9a

    X, y = load_a9a()
    Xt, yt = load_a9a(subset="test")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # the gap must be certified
        model = RankSVM(C=1.0, loss="hinge").fit(X, y)
    assert model.objective_ == pytest.approx(
        pair_objective_a9a_hinge(model.coef_, X, y), rel=1e-12)
    auc = roc_auc(yt == 1, model.decision_function(Xt))
    assert abs(auc - 0.902) <= 0.001


def pair_objective_a9a_hinge(w, X, y):
    # independent of the solver's bookkeeping: a fresh sweep at w
    from birank._kernels.losses import HINGE
    from birank.solvers.newton import PairObjective

    return PairObjective(X, (y == 1).astype(float), C=1.0, loss_kind=HINGE).fun_grad(w)[0]


@pytest.mark.slow
def test_a9a_reaches_liblinear_ranksvm_objective_and_auc():
    from birank.datasets import load_a9a

    X, y = load_a9a()
    Xt, yt = load_a9a(subset="test")
    model = RankSVM(C=1.0).fit(X, y)
    # liblinear-ranksvm `train -s 8 -c 1` stops at 54954596.45 (../shared/reference)
    assert model.objective_ <= 54954596.45 * (1 + 1e-4)
    assert model.n_pairs_ == 7841 * 24720
    auc = roc_auc(yt == 1, model.decision_function(Xt))
    assert abs(auc - 0.902) <= 0.001
