"""One convention per concern: loss codes, solver results, the bias name, the registry."""

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

import birank
from birank import _registry
from birank._kernels import losses

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
    for path in SRC.rglob("*.py"):
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
    assert res.objective == pytest.approx(res.info["dual"], abs=1e-8)


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


def test_registry_unavailable_and_unregistered():
    _registry.ESTIMATORS["Future"] = "birank.not_written_yet:Future"
    try:
        assert _registry.estimator_class("Future", missing_ok=True) is None
        with pytest.raises(ValueError, match="not available"):
            _registry.estimator_class("Future")
    finally:
        del _registry.ESTIMATORS["Future"]
    with pytest.raises(ValueError, match="not a registered"):
        _registry.estimator_name(dict)


def test_cli_models_and_experiment_methods_name_registered_estimators():
    from birank.experiments import gultekin_paisley

    for name, (target, params, _) in _registry.MODELS.items():
        assert _registry._registered_name(target) is not None, name
        if name in _registry.available_models():
            assert _registry.make_model(name).get_params().items() >= params.items()
    for name, method in gultekin_paisley.METHODS.items():
        assert _registry._registered_name(method.target) is not None, name
    with pytest.raises(ValueError, match="not a registered"):
        gultekin_paisley.register_method("X", "os:system")
