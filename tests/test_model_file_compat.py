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
