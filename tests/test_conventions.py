"""One convention per concern: loss codes, solver results, the bias name, the registry,
and the public API of docs/conventions.md over every estimator in ``birank.__all__``:

- every constructor parameter is in the estimator's row of the allowed-names
  table (one name per concept), and no retired name comes back;
- every parameter after the first is keyword-only;
- fitted on two classes, ``predict`` returns labels from ``classes_``;
- binary rankers have ``predict_proba``: values in [0, 1], rows summing to 1,
  non-decreasing in ``decision_function``.
"""

import ast
import inspect
import warnings
from pathlib import Path

import numpy as np
import pytest
from _public import make_fast, public_estimator_classes

import birank
from birank import _registry
from birank._calibration import platt_fit, platt_objective, platt_proba, platt_targets
from birank._kernels import losses
from birank.datasets import load_heart

SRC = Path(birank.__file__).parent


def _assigned_names(path):
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_loss_codes_are_defined_in_one_module_only():
    owners = [p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py")
              if _assigned_names(p) & {"HINGE", "SQUARED_HINGE"}]
    assert owners == ["_kernels/losses.py"]
    assert losses.loss_code("hinge") == losses.HINGE != losses.SQUARED_HINGE
    with pytest.raises(ValueError, match="loss must be one of 'hinge', 'squared_hinge'"):
        losses.loss_code("log")


def test_no_warning_capture_to_detect_non_convergence():
    """A solver says it did not converge in its result, never through a warning its caller
    captures. The reproductions (``experiments/``) are the one place that records the
    warnings of the learners they run, and only to print them in the report."""
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).parts[0] == "experiments":
            continue
        text = path.read_text()
        assert "catch_warnings(record=True)" not in text, path


def test_every_solver_driver_returns_the_one_result_type():
    import scipy.sparse as sp

    from birank.solvers._result import SolverResult
    from birank.solvers.ball_quadratic import solve_ball_quadratic
    from birank.solvers.dual_cd import PairDualCD
    from birank.solvers.newton import solve_rows

    Z = sp.csr_matrix(np.array([[1.0, 0.0], [0.5, -1.0], [-0.2, 0.3]]))
    for loss in ("hinge", "squared_hinge"):  # newton_cg and hinge_by_smoothing behind it
        res = solve_rows(Z, np.ones(3), loss, tol=1e-8)
        assert isinstance(res, SolverResult) and res.converged and res.coef.shape == (2,)
        assert np.isfinite(res.objective) and res.n_iter >= 1
    ball = solve_ball_quadratic(np.eye(2), np.ones(2), 0.5)
    assert isinstance(ball, SolverResult)
    assert np.linalg.norm(ball.coef) == pytest.approx(0.5) and ball.w is ball.coef
    cd = PairDualCD(np.eye(2), tol=1e-8, random_state=0)
    cd.add_rows([0], [1], 1.0)
    assert cd.solve() is True
    res = cd.result()
    assert isinstance(res, SolverResult) and res.converged
    assert res.objective == pytest.approx(res.lower_bound, abs=1e-8)


@pytest.mark.parametrize("name", birank.__all__)
def test_estimators_use_the_common_names(name):
    params = inspect.signature(getattr(birank, name)).parameters
    # a learned bias is fit_intercept; gamma is left for the sklearn (RBF) meaning
    reserved = {"threshold", "fit_threshold", "gamma"}
    if "kernel" in params:  # an RBF estimator: gamma has exactly the sklearn meaning
        reserved.discard("gamma")
    assert not reserved & set(params), name


def test_active_ranksvm_pair_weight_and_fit_intercept():
    from birank import ActiveRankSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    m = ActiveRankSVM(budget=60, batch_size=20, pair_weight=0.5, fit_intercept=True,
                      random_state=0).fit(X, y)
    assert m.pair_weight_ == 0.5 and m.n_pseudo_pairs_ > 0 and m.intercept_ != 0.0
    with pytest.raises(ValueError, match="pair_weight"):
        ActiveRankSVM(pair_weight=2.0).fit(X, y)


# ----------------------------------------------------------------- the registry
@pytest.mark.parametrize("name", birank.__all__)
def test_every_public_estimator_is_registered(name):
    cls = getattr(birank, name)
    assert _registry.estimator_name(cls) == name
    assert _registry.estimator_name(cls()) == name
    assert _registry.estimator_class(name) is cls
    # model files written before the registry name "module:Class"
    assert _registry.estimator_class(f"{cls.__module__}:{cls.__name__}") is cls
    assert _registry.estimator_class(f"birank:{name}") is cls


@pytest.mark.parametrize("target", ["os:system", "birank.metrics:roc_auc", "builtins:eval",
                                    "sklearn.svm:LinearSVC", "NoSuchModel", ""])
def test_registry_resolves_nothing_else(target):
    with pytest.raises(ValueError, match="not a registered birank estimator"):
        _registry.estimator_class(target)


def test_registry_unregistered():
    with pytest.raises(ValueError, match="not a registered"):
        _registry.estimator_name(dict)


def test_cli_models_and_experiment_methods_name_registered_estimators():
    from birank.experiments import gultekin_paisley

    for name, (target, params, _) in _registry.MODELS.items():
        assert _registry._registered_name(target) is not None, name
        assert _registry.make_model(name).get_params().items() >= params.items()
    for name, method in gultekin_paisley.METHODS.items():
        assert _registry._registered_name(method.target) is not None, name
    with pytest.raises(ValueError, match="not a registered"):
        gultekin_paisley.register_method("X", "os:system")


# ------------------------------------------------- public API (docs/conventions.md)
#: the allowed-names table of docs/conventions.md (keep the two in step)
ALLOWED = {
    "RankSVM": {"C", "loss", "tol", "max_iter", "verbose", "n_jobs"},
    "ActiveRankSVM": {"budget", "batch_size", "strategy", "pair_weight", "fit_intercept",
                      "bias_correction", "C", "loss", "tol", "round_tol", "round_max_iter",
                      "max_iter", "max_draws", "random_state", "verbose"},
    "WeightedSVM": {"C", "class_weight", "budget", "loss", "fit_intercept", "tol", "max_iter",
                    "random_state", "solver", "n_jobs", "verbose"},
    "CombinedRanking": {"alpha", "rank_probability", "max_iter", "loss", "projection",
                        "fit_intercept", "random_state", "verbose"},
    "BBR": {"radius", "solver", "tol", "max_iter", "verbose"},
    "LCBR": {"n_pairs", "radius", "solver", "tol", "max_iter", "random_state", "verbose"},
    "PrunedRankSVM": {"n_closest", "n_random", "kernel", "gamma", "C", "loss", "tol",
                      "max_iter", "cache_size", "solver", "random_state", "verbose"},
    "CBR": {"covariance", "buffer", "buffer_size", "confidence", "C", "feature_budget",
            "shuffle", "random_state", "verbose"},
    "OAM": {"variant", "buffer", "buffer_size", "C", "shuffle", "random_state", "verbose"},
    "AdaOAM": {"eta0", "delta", "alpha", "shuffle", "random_state", "verbose"},
    "OPAUC": {"rank", "eta0", "alpha", "shuffle", "random_state", "verbose"},
    "OnlineUniExp": {"eta0", "max_exponent", "shuffle", "random_state", "verbose"},
    "SPAM": {"eta0", "power_t", "penalty", "alpha", "l1_ratio", "shuffle", "random_state",
             "verbose"},
    "PGD": {"eta0", "power_t", "loss", "alpha", "buffer", "buffer_size", "shuffle",
            "random_state", "verbose"},
    "ActiveRankLearner": {"estimator", "strategy", "per_query", "above_threshold_weight",
                          "relevance_threshold", "relevance", "random_state"},
}
#: names retired before 0.1.0 (CHANGELOG.md): one concept, one name
RETIRED = {"lam", "reg", "eta", "learning_rate", "n_iter", "beta", "beta1"}
#: the one meaning of names shared by several estimators (docs/conventions.md)
SHARED_MEANING = {"C", "alpha", "eta0", "power_t", "max_iter", "tol", "loss", "gamma",
                  "random_state", "verbose", "fit_intercept", "solver", "shuffle", "buffer",
                  "buffer_size", "budget", "strategy", "radius", "n_jobs"}
#: not a classifier: an active-learning loop (selects rows to label; no predict)
NO_PREDICT = {"ActiveRankLearner"}

CLASSES = public_estimator_classes()
IDS = [c.__name__ for c in CLASSES]


def _params(cls):
    return list(inspect.signature(cls.__init__).parameters.values())[1:]


def test_table_covers_every_public_estimator():
    assert set(IDS) == set(ALLOWED), "add the new estimator to ALLOWED and docs/conventions.md"
    assert set(birank.__all__) >= set(IDS)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_parameter_names_are_allowed(cls):
    names = {p.name for p in _params(cls)}
    assert names <= ALLOWED[cls.__name__], names - ALLOWED[cls.__name__]
    assert not names & RETIRED
    # the validation table names exactly the constructor's parameters
    assert set(getattr(cls, "_parameter_constraints", names)) == names


def test_names_used_by_two_estimators_are_in_the_glossary():
    seen = {}
    for cls in CLASSES:
        for p in _params(cls):
            seen.setdefault(p.name, set()).add(cls.__name__)
    shared = {n for n, owners in seen.items() if len(owners) > 1}
    assert shared <= SHARED_MEANING, shared - SHARED_MEANING
    # gamma is only the RBF width (PrunedRankSVM)
    assert seen.get("gamma", set()) <= {"PrunedRankSVM"}


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_keyword_only_after_the_first(cls):
    params = _params(cls)
    assert params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:]), \
        [p.name for p in params[1:] if p.kind is not inspect.Parameter.KEYWORD_ONLY]


#: the positional parameters scikit-learn gives each method after X and y
SKLEARN_POSITIONAL = {"fit": ["sample_weight"], "partial_fit": ["classes", "sample_weight"],
                      "score": ["sample_weight"]}


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_fit_and_score_take_only_sklearn_positions_positionally(cls):
    """Fails on the old main: RankSVM.fit(X, y, w) read the weights as query ids (RankSVM,
    PrunedRankSVM and ActiveRankLearner took groups third, the others sample_weight)."""
    for method, allowed in SKLEARN_POSITIONAL.items():
        fn = getattr(cls, method, None)
        if fn is None:
            continue
        params = list(inspect.signature(fn).parameters.values())[1:]  # (self)
        assert [p.name for p in params[:2]] == ["X", "y"], (method, params)
        positional = [p.name for p in params[2:] if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert positional == allowed[:len(positional)], (method, positional)


def _binary_data():
    X, y = load_heart()
    y = np.where(y > 0, 7, 3)  # labels that are not {0, 1}: predict must map back
    return X[:200], y[:200], X[200:], y[200:]


def _fit(cls, X, y):
    est = make_fast(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


@pytest.mark.parametrize("cls", [c for c in CLASSES if c.__name__ not in NO_PREDICT],
                         ids=[i for i in IDS if i not in NO_PREDICT])
def test_predict_labels_and_proba_on_two_classes(cls):
    X, y, Xt, yt = _binary_data()
    est = _fit(cls, X, y)
    assert est.classes_.tolist() == [3, 7]
    pred = est.predict(Xt)
    assert set(np.unique(pred)) <= {3, 7}
    s = est.decision_function(Xt)
    np.testing.assert_array_equal(pred, np.where(s > 0, 7, 3))
    proba = est.predict_proba(Xt)
    assert proba.shape == (Xt.shape[0], 2)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.classes_[proba.argmax(axis=1)], pred)  # sklearn's rule
    order = np.argsort(s, kind="stable")
    assert np.all(np.diff(proba[order, 1]) >= 0), "P(classes_[1]) must not fall as the score rises"
    # a model that learned something gives different probabilities to different scores
    assert proba[:, 1].max() > proba[:, 1].min()
    # accuracy_score works on predict (it once failed for RankSVM: scores, not labels)
    assert np.mean(pred == yt) > 0.6


@pytest.mark.parametrize("cls", [birank.RankSVM, birank.PrunedRankSVM],
                         ids=["RankSVM", "PrunedRankSVM"])
def test_graded_labels_predict_scores_and_have_no_proba(cls):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = np.round(X @ [1.0, -1.0, 0.5] + rng.normal(scale=0.3, size=80))  # many grades
    est = _fit(cls, X, y)
    assert not hasattr(est, "classes_")
    np.testing.assert_array_equal(est.predict(X), est.decision_function(X))
    assert not hasattr(est, "predict_proba")
    # and a refit on two classes brings them back
    est.fit(X, (y > 0).astype(int))
    assert hasattr(est, "predict_proba") and est.predict_proba(X).shape == (80, 2)


def test_no_predict_is_really_absent():
    for name in NO_PREDICT:
        assert not hasattr(getattr(birank, name)(), "predict")


def test_platt_fit_minimizes_its_objective():
    # oracle: a brute-force scan of each side's slope finds nothing lower
    rng = np.random.default_rng(1)
    s = rng.normal(size=400)
    y01 = (s + rng.normal(size=400) > 0.3).astype(int)
    w = rng.uniform(0.5, 2.0, size=400)
    a_neg, a_pos = platt_fit(s, y01, w)
    t = platt_targets(y01, w)
    for a, side in ((a_neg, s < 0), (a_pos, s > 0)):
        best = platt_objective(a, s[side], t[side], w[side])
        grid = np.linspace(0.0, 3.0 * a + 1.0, 2001)
        assert min(platt_objective(g, s[side], t[side], w[side]) for g in grid) >= best - 1e-9
    # below chance: slope 0 (probability 1/2 there), never a decreasing probability
    assert platt_fit(-s, y01) == (0.0, 0.0)
    p = platt_proba(np.array([-1.0, -1e-300, 0.0, 1e-300, 1.0]), 0.0, 0.0)[:, 1]
    assert np.all(np.diff(p) >= 0) and (p[:3] <= 0.5).all() and (p[3:] > 0.5).all()


def _documented_attributes(cls):
    """The names of the class docstring's Attributes section: its unindented lines
    (``a_, b_ : type``; an entry's names may go on over the next line)."""
    doc = inspect.getdoc(cls) or ""
    if "Attributes\n----------\n" not in doc:
        return set()
    lines = doc.split("Attributes\n----------\n", 1)[1].splitlines()
    names = set()
    for line, after in zip(lines, lines[1:] + [""]):
        if after.strip() and set(after.strip()) == {"-"}:
            break  # the next section's title
        if line.strip() and not line.startswith(" "):
            names |= {n.strip() for n in line.split(" : ", 1)[0].split(",") if n.strip()}
    return names


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_fitted_attributes_are_documented(cls):
    """Every public attribute a fit sets (on a DataFrame: feature_names_in_ too; by
    partial_fit where there is one) is in the class docstring's Attributes section."""
    import pandas as pd

    X, y, _, _ = _binary_data()
    frame = pd.DataFrame(X.toarray() if hasattr(X, "toarray") else X,
                         columns=[f"f{i}" for i in range(X.shape[1])])
    fitted = [_fit(cls, frame, y)]
    if hasattr(cls, "partial_fit"):
        fitted.append(make_fast(cls).partial_fit(frame, y))
    public = {k for est in fitted for k in vars(est) if k.endswith("_") and k[0] != "_"}
    missing = public - _documented_attributes(cls)
    assert not missing, f"{cls.__name__} does not document {sorted(missing)}"


SEEDED = [c for c in CLASSES if "random_state" in inspect.signature(c).parameters]


@pytest.mark.parametrize("cls", SEEDED, ids=[c.__name__ for c in SEEDED])
def test_random_state_int_or_randomstate_gives_the_same_model_bit_for_bit(cls):
    """scikit-learn's random_state: an int, or a fresh numpy RandomState seeded alike,
    gives the same model each time (the online learners with shuffle=True, so that it
    draws)."""
    X, y, Xt, _ = _binary_data()

    def fitted(seed):
        est = make_fast(cls, random_state=seed)
        if "shuffle" in est.get_params():
            est.set_params(shuffle=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return est.fit(X, y)

    for make_seed in (lambda: 3, lambda: np.random.RandomState(3)):
        a, b = fitted(make_seed()), fitted(make_seed())
        np.testing.assert_array_equal(a.coef_, b.coef_)
        np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))
