"""Persistence and determinism for every public estimator: pickle,
joblib and JSON model files round-trip; the same random_state gives bit-identical
models in one process and across processes; a numba cache that cannot be written works."""

import hashlib
import io
import os
import pickle
import subprocess
import sys
import warnings

import joblib
import numpy as np
import pytest
from _public import make_fast, public_estimator_classes
from sklearn.base import clone

import birank
from birank.model_io import load_model, save_model

ESTIMATORS = [make_fast(cls) for cls in public_estimator_classes()]
IDS = [type(e).__name__ for e in ESTIMATORS]
each = pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
SRC = os.path.dirname(os.path.dirname(os.path.abspath(birank.__file__)))


def _data(n=150, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X @ np.arange(1, d + 1) + rng.standard_normal(n) > 0).astype(int)
    return X, y


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return clone(est).fit(X, y)


@each
def test_pickle_and_joblib_round_trip(estimator):
    X, y = _data()
    est = _fit(estimator, X, y)
    expected = est.decision_function(X)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.decision_function(X), expected)
    buf = io.BytesIO()
    joblib.dump(est, buf)
    buf.seek(0)
    np.testing.assert_array_equal(joblib.load(buf).decision_function(X), expected)
    assert again.get_params() == est.get_params()


@each
def test_json_model_file_round_trip(estimator, tmp_path):
    X, y = _data()
    est = _fit(estimator, X, y)
    path = save_model(est, tmp_path / "m.json")
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    rebuilt = loaded.estimator()
    assert type(rebuilt) is type(est)
    np.testing.assert_array_equal(rebuilt.decision_function(X), est.decision_function(X))
    if hasattr(est, "classes_"):
        np.testing.assert_array_equal(rebuilt.predict(X), est.predict(X))
    for key, value in est.get_params().items():
        if isinstance(value, (int, float, str, bool, type(None))):
            assert rebuilt.get_params()[key] == value


@pytest.mark.parametrize("labels", ["bool", "str", "float"])
def test_json_model_file_keeps_the_label_type(labels, tmp_path):
    """A model fitted on boolean (``y > 0``), string or float labels saves and loads, and
    the rebuilt estimator predicts those labels."""
    X, y = _data()
    y = {"bool": y > 0, "str": np.where(y > 0, "yes", "no"), "float": y.astype(float)}[labels]
    est = _fit(birank.BBR(), X, y)
    rebuilt = load_model(save_model(est, tmp_path / "m.json")).estimator()
    np.testing.assert_array_equal(rebuilt.classes_, est.classes_)
    np.testing.assert_array_equal(rebuilt.predict(X), est.predict(X))
    assert rebuilt.predict(X).dtype.kind == est.predict(X).dtype.kind


def test_loaded_model_checks_what_it_scores(tmp_path):
    """LinearModel.decision_function refuses what the estimator refuses, with a message
    naming the problem; a sparse X may lack trailing all-zero features, a dense one not."""
    import scipy.sparse as sp

    X, y = _data()
    est = _fit(birank.RankSVM(), X, y)
    model = load_model(save_model(est, tmp_path / "m.json"))
    nan = X.copy()
    nan[3, 1] = np.nan
    for bad, match in [(X[0], "2-D"), (np.array([["a"] * 5]), "numbers"), (nan, "NaN"),
                       (X[:, :4], "4 features, but the model"),
                       (np.zeros((2, 6)), "6 features, but the model"),
                       (sp.csr_matrix(np.zeros((2, 6))), "6 features, but the model")]:
        with pytest.raises(ValueError, match=match):
            model.decision_function(bad)
    narrow = X.copy()
    narrow[:, 4] = 0.0
    np.testing.assert_allclose(model.decision_function(sp.csr_matrix(narrow[:, :4])),
                               est.decision_function(narrow), rtol=1e-12)
    np.testing.assert_array_equal(model.decision_function(X.tolist()), est.decision_function(X))


@each
def test_same_random_state_is_bit_identical_in_process(estimator):
    X, y = _data()
    a, b = _fit(estimator, X, y), _fit(estimator, X, y)
    assert a.coef_.tobytes() == b.coef_.tobytes()
    assert np.float64(a.intercept_).tobytes() == np.float64(b.intercept_).tobytes()


_CHILD = """
import hashlib, sys, warnings
import numpy as np
sys.path.insert(0, {tests!r})
from _public import make_fast, public_estimator_classes
rng = np.random.default_rng(0)
X = rng.standard_normal((150, 5))
y = (X @ np.arange(1, 6) + rng.standard_normal(150) > 0).astype(int)
warnings.simplefilter("ignore")
for cls in public_estimator_classes():
    if {only!r} and cls.__name__ not in {only!r}:
        continue
    est = make_fast(cls).fit(X, y)
    h = hashlib.sha256(np.ascontiguousarray(est.coef_).tobytes()
                       + np.float64(est.intercept_).tobytes()).hexdigest()
    print(cls.__name__, h)
"""


def _child(env_extra, only=()):
    env = dict(os.environ, PYTHONPATH=SRC, **env_extra)
    code = _CHILD.format(tests=os.path.dirname(os.path.abspath(__file__)), only=list(only))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return dict(line.split() for line in res.stdout.strip().splitlines())


def test_bit_identical_across_processes_and_with_an_unwritable_numba_cache(tmp_path):
    X, y = _data()
    here = {}
    for est in ESTIMATORS:
        fitted = _fit(est, X, y)
        here[type(est).__name__] = hashlib.sha256(
            np.ascontiguousarray(fitted.coef_).tobytes()
            + np.float64(fitted.intercept_).tobytes()).hexdigest()
    # another process, another hash seed
    assert _child({"PYTHONHASHSEED": "123"}) == here
    # a numba cache folder that cannot be created (a path under a plain file, which
    # even root cannot make): numba compiles without caching, results unchanged
    # (one estimator: compiling every kernel uncached takes half a minute)
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("")
    one = "WeightedSVM" if "WeightedSVM" in here else sorted(here)[0]
    assert _child({"NUMBA_CACHE_DIR": str(blocker / "cache")}, only=[one]) == {one: here[one]}


def test_parameters_json_cannot_hold_are_named_and_warned(tmp_path):
    """WeightedSVM(class_weight={...}) reloaded silently as class_weight='balanced' (the
    default): the file now names what it could not hold and rebuilding warns."""
    X, y = _data()
    est = _fit(birank.WeightedSVM(class_weight={0: 1.0, 1: 5.0}, random_state=0), X, y)
    path = save_model(est, tmp_path / "m.json")
    model = load_model(path)
    assert model.doc["unsaved_params"] == ["class_weight"]
    with pytest.warns(UserWarning, match="class_weight could not be saved as JSON"):
        rebuilt = model.estimator()
    np.testing.assert_array_equal(rebuilt.decision_function(X), est.decision_function(X))
    plain = load_model(save_model(_fit(birank.WeightedSVM(random_state=0), X, y),
                                  tmp_path / "p.json"))
    assert "unsaved_params" not in plain.doc
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain.estimator()


def test_save_model_paths_and_extra(tmp_path):
    X, y = _data()
    est = _fit(birank.RankSVM(), X, y)
    with pytest.raises(IsADirectoryError, match="is a directory"):
        save_model(est, tmp_path)
    with pytest.raises(ValueError, match="path is empty"):
        save_model(est, "")
    with pytest.raises(TypeError, match=r"extra\['when'\] is a"):
        save_model(est, tmp_path / "a.json", extra={"when": object()})
    assert not (tmp_path / "a.json").exists()
    path = save_model(est, tmp_path / "b.json", extra={"train_file": tmp_path / "x.svm"})
    assert load_model(path).doc["extra"]["train_file"] == str(tmp_path / "x.svm")
    os.chmod(path, 0o600)
    save_model(est, path, overwrite=True)
    assert os.stat(path).st_mode & 0o777 == 0o600
