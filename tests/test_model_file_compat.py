"""Model files keep what a fitted ranker needs: ``predict_proba``'s calibration round-trips,
and files written before the 1.0 renames (CHANGELOG.md) load under the new parameter names."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from _public import make_fast, public_estimator_classes
from sklearn.base import clone

from birank import PGD
from birank.model_io import RENAMED, load_model, save_model

DATA = Path(__file__).parent / "data"
# written by birank 0.1.0.dev0 (before the 1.0 renames) from _data() below, with old parameter names
OLD_FILES = [f for f in sorted(DATA.glob("*_v0_1_0_dev0.json"))
             if json.loads(f.read_text())["estimator"].split(":")[-1] in RENAMED]
BINARY = [make_fast(cls) for cls in public_estimator_classes()
          if cls.__name__ not in ("ActiveRankLearner",)]


def _data(n=150, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X @ np.arange(1, d + 1) + rng.standard_normal(n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("estimator", BINARY, ids=[type(e).__name__ for e in BINARY])
def test_predict_proba_survives_a_model_file(estimator, tmp_path):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = clone(estimator).fit(X, y)
    path = save_model(est, tmp_path / "m.json")
    assert json.loads(path.read_text())["probability"] == list(est.probability_)
    rebuilt = load_model(path).estimator()
    np.testing.assert_array_equal(rebuilt.probability_, est.probability_)
    np.testing.assert_array_equal(rebuilt.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(rebuilt.predict(X), est.predict(X))


def test_a_bad_probability_field_names_the_field(tmp_path):
    X, y = _data()
    est = PGD(random_state=0).fit(X, y)
    path = save_model(est, tmp_path / "m.json")
    doc = json.loads(path.read_text())
    for bad, message in (([1.0], "list of two slopes"), ([1.0, -2.0], r"probability\[1\]"),
                         ([1.0, "x"], r"probability\[1\] must be a number")):
        doc["probability"] = bad
        path.write_text(json.dumps(doc))
        with pytest.raises(ValueError, match=message):
            load_model(path)


def test_old_files_exist_for_every_renamed_estimator_that_saves():
    written = {json.loads(f.read_text())["estimator"].split(":")[-1] for f in OLD_FILES}
    # ActiveRankLearner has no coef_ (it wraps a ranker): it never wrote model files
    assert set(RENAMED) - {"ActiveRankLearner"} <= written


@pytest.mark.parametrize("path", OLD_FILES, ids=[f.stem for f in OLD_FILES])
def test_old_parameter_names_load_as_the_new_ones(path):
    doc = json.loads(path.read_text())
    old = doc["params"]
    name = doc["estimator"].split(":")[-1]
    est = load_model(path).estimator()
    params = est.get_params()
    for key, new in RENAMED[name].items():
        if key in old:
            assert params[new] == old[key]
            assert key not in params
    if name == "SPAM":  # alpha l1_ratio = old beta1, alpha (1 - l1_ratio) = old beta
        l1 = params["l1_ratio"] if params["penalty"] == "elasticnet" else 0.0
        assert params["alpha"] * (1 - l1) == pytest.approx(old["beta"], rel=1e-12)
        if params["penalty"] == "elasticnet":
            assert params["alpha"] * l1 == pytest.approx(old["beta1"], rel=1e-12)
    # the translated parameters are the old model's: refitting reproduces its coefficients
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        refit = clone(est).fit(X, y)
    np.testing.assert_allclose(refit.coef_, doc["coef"], rtol=1e-10, atol=1e-12)


def test_an_old_and_a_new_name_together_are_refused(tmp_path):
    doc = json.loads((DATA / "opauc_v0_1_0_dev0.json").read_text())
    doc["params"]["eta0"] = 0.5
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"params\.eta \(the old name of eta0\)"):
        load_model(path).estimator()


# ------------------------------------------------------------------ feature names
@pytest.mark.parametrize("estimator", BINARY, ids=[type(e).__name__ for e in BINARY])
def test_feature_names_survive_a_model_file(estimator, tmp_path):
    """Fails on the old main: the file dropped feature_names_in_, so a loaded model scored
    a DataFrame with reordered columns by position, silently (the fitted one refuses)."""
    pd = pytest.importorskip("pandas")
    X, y = _data()
    Xd = pd.DataFrame(X, columns=list("abcde"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = clone(estimator).fit(Xd, y)
    model = load_model(save_model(est, tmp_path / "m.json"))
    assert model.doc["feature_names"] == list("abcde")
    rebuilt = model.estimator()
    np.testing.assert_array_equal(rebuilt.feature_names_in_, est.feature_names_in_)
    np.testing.assert_array_equal(model.decision_function(Xd), est.decision_function(Xd))
    reordered = Xd[["b", "a", "c", "d", "e"]]
    for scorer in (est, rebuilt, model):
        with pytest.raises(ValueError, match="feature names should match"):
            scorer.decision_function(reordered)


def test_a_named_model_file_checks_the_columns_as_scikit_learn_does(tmp_path):
    """LinearModel (no scikit-learn import): other names are refused naming them, another
    order is refused, an array without names warns and is scored by position."""
    pd = pytest.importorskip("pandas")
    X, y = _data()
    Xd = pd.DataFrame(X, columns=list("abcde"))
    model = load_model(save_model(PGD(random_state=0).fit(Xd, y), tmp_path / "m.json"))
    assert model.feature_names.tolist() == list("abcde")
    with pytest.raises(ValueError, match=r"unseen at fit time:\n- z\n.*missing:\n- a"):
        model.decision_function(Xd.rename(columns={"a": "z"}))
    with pytest.raises(ValueError, match=r"same order.*X\[model.feature_names\]"):
        model.decision_function(Xd[["e", "d", "c", "b", "a"]])
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        scores = model.decision_function(X)
    np.testing.assert_array_equal(scores, model.decision_function(Xd))
    with pytest.raises(TypeError, match="string names"):
        model.decision_function(pd.DataFrame(X, columns=["a", 1, "c", "d", "e"]))


def test_a_model_file_without_feature_names_scores_any_columns(tmp_path):
    """Files of estimators fitted on arrays, and every older file, have no feature_names:
    they load and score arrays and DataFrames by position, without a warning."""
    pd = pytest.importorskip("pandas")
    X, y = _data()
    path = save_model(PGD(random_state=0).fit(X, y), tmp_path / "m.json")
    model = load_model(path)
    assert "feature_names" not in model.doc and model.feature_names is None
    for old in [path] + OLD_FILES:
        model = load_model(old)
        Xw = X[:, :model.n_features]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(model.decision_function(pd.DataFrame(Xw)),
                                          model.decision_function(Xw))
        assert not hasattr(model.estimator(), "feature_names_in_")
