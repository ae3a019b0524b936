"""``verbose`` of WeightedSVM, PrunedRankSVM and the online learners (docs/conventions.md:
progress is off by default in the API and on in the CLI).

Each estimator is silent by default, writes its progress to stderr only with
``verbose=1``, and fits the same model, bit for bit, either way. The online
learners are also run with their rows split into one-row chunks (a report after
each), the strongest form of the chunking ``verbose`` does.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

import birank.online._stream as stream
from birank import (CBR, OAM, OPAUC, PGD, SPAM, AdaOAM, OnlineUniExp, PrunedRankSVM,
                    WeightedSVM)
from birank.cli import main
from birank.datasets import dump_svmlight, load_heart
from birank.model_io import load_model, save_model

#: (estimator, parameters): every solver path that reports
BATCH = [
    (WeightedSVM, {}),  # dual CD, hinge
    (WeightedSVM, {"loss": "squared_hinge"}),  # Newton
    (WeightedSVM, {"loss": "squared_hinge", "solver": "dual_cd", "fit_intercept": True}),
    (PrunedRankSVM, {}),  # dual CD (finished by Newton if it stalls)
    (PrunedRankSVM, {"loss": "squared_hinge", "solver": "newton"}),
    (PrunedRankSVM, {"kernel": "rbf"}),  # kernel dual CD
    (PrunedRankSVM, {"n_closest": "all"}),  # the exact RankSVM
    (PrunedRankSVM, {"n_closest": "all", "kernel": "rbf", "loss": "squared_hinge"}),
]
ONLINE = [
    (CBR, {}),
    (CBR, {"covariance": "diag", "feature_budget": 5, "buffer": "reservoir"}),
    (OAM, {}),
    (OAM, {"variant": "gra", "buffer": "fifo"}),
    (AdaOAM, {}),
    (OPAUC, {}),
    (OPAUC, {"rank": 3}),
    (OnlineUniExp, {}),
    (SPAM, {}),
    (SPAM, {"penalty": "elasticnet"}),
    (PGD, {}),
    (PGD, {"buffer": "reservoir"}),
]
CASES = BATCH + ONLINE
IDS = [f"{cls.__name__}-{'-'.join(f'{k}={v}' for k, v in p.items()) or 'default'}"
       for cls, p in CASES]


@pytest.fixture(scope="module")
def heart():
    X, y = load_heart()
    return X, np.where(y > 0, 7, 3)


def _fit(cls, params, X, y, **extra):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (convergence notes are not what is tested)
        return cls(random_state=0, **params, **extra).fit(X, y)


def _assert_same_model(a, b, X):
    if hasattr(a, "coef_"):
        np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.intercept_ == b.intercept_
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert getattr(a, "n_iter_", None) == getattr(b, "n_iter_", None)


@pytest.fixture
def one_row_chunks(monkeypatch):
    """Online learners: with verbose, a report (and a kernel call) after every row."""
    monkeypatch.setattr(stream, "REPORT_ROWS", 1)
    monkeypatch.setattr(stream, "REPORT_SECONDS", 0.0)


@pytest.mark.parametrize("cls, params", CASES, ids=IDS)
def test_silent_by_default_stderr_only_when_verbose_same_model(cls, params, heart, capfd,
                                                              one_row_chunks):
    X, y = heart
    assert cls().get_params()["verbose"] is False
    quiet = _fit(cls, params, X, y)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    loud = _fit(cls, params, X, y, verbose=1)
    out, err = capfd.readouterr()
    assert out == ""
    assert err.startswith(cls.__name__)
    _assert_same_model(quiet, loud, X)


@pytest.mark.parametrize("cls, params", ONLINE, ids=IDS[len(BATCH):])
def test_online_partial_fit_reports_each_call(cls, params, heart, capfd, one_row_chunks):
    X, y = heart
    calls = []
    learn = cls._learn

    def spy(self, rows, y01, weight, start, stop):
        calls.append(stop - start)
        return learn(self, rows, y01, weight, start, stop)

    a = cls(random_state=0, **params)
    b = cls(random_state=0, verbose=True, **params)
    for chunk in (slice(0, 100), slice(100, 270)):
        a.partial_fit(X[chunk], y[chunk], classes=[3, 7])
    assert capfd.readouterr().err == ""
    cls._learn = spy
    try:
        for chunk in (slice(0, 100), slice(100, 270)):
            b.partial_fit(X[chunk], y[chunk], classes=[3, 7])
    finally:
        cls._learn = learn
    err = capfd.readouterr().err
    assert calls == [1] * 270  # one row per kernel call (the fixture), a report after each
    assert f"{cls.__name__} [####################] 100/100" in err
    assert f"{cls.__name__} [####################] 170/170" in err
    assert "270 seen" in err
    _assert_same_model(a, b, X)
    assert a.n_seen_ == b.n_seen_ == 270


def test_online_verbose_keeps_the_eval_trace(heart, capfd, one_row_chunks):
    X, y = heart
    kw = {"eval_set": (X[200:], y[200:]), "eval_every": 37}
    a = SPAM(random_state=0).fit(X, y, **kw)
    b = SPAM(random_state=0, verbose=True).fit(X, y, **kw)
    np.testing.assert_array_equal(a.auc_trace_, b.auc_trace_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert capfd.readouterr().err.count("SPAM [") >= 1


def test_default_chunks_are_sized_by_time(heart, monkeypatch):
    """Without the fixture: the first chunk is REPORT_ROWS rows, then sized by the rate."""
    X, y = heart
    X = X.toarray() if hasattr(X, "toarray") else X
    X, y = np.tile(X, (20, 1)), np.tile(y, 20)  # 5400 rows
    sizes = []
    learn = OnlineUniExp._learn

    def spy(self, rows, y01, weight, start, stop):
        sizes.append(stop - start)
        return learn(self, rows, y01, weight, start, stop)

    monkeypatch.setattr(OnlineUniExp, "_learn", spy)
    OnlineUniExp(verbose=True).fit(X, y)
    assert sizes[0] == stream.REPORT_ROWS and sum(sizes) == 5400
    assert all(b <= 4 * a for a, b in zip(sizes, sizes[1:]))
    sizes.clear()
    OnlineUniExp().fit(X, y)
    assert sizes == [5400]  # verbose off: one call, as before


@pytest.mark.parametrize("cls", [WeightedSVM, PrunedRankSVM, CBR, OAM, AdaOAM, OPAUC,
                                 OnlineUniExp, SPAM, PGD])
def test_verbose_is_a_checked_param_and_round_trips(cls, heart, tmp_path, capfd):
    X, y = heart
    est = cls(verbose=2)
    assert est.get_params()["verbose"] == 2
    assert clone(est).verbose == 2
    with pytest.raises(ValueError, match="verbose"):
        cls(verbose=-1).fit(X, y)
    with pytest.raises(ValueError, match="verbose"):
        cls(verbose="yes").fit(X, y)
    fitted = _fit(cls, {}, X, y, verbose=True)
    path = tmp_path / "m.json"
    save_model(fitted, path)
    back = load_model(path).estimator()
    assert back.verbose is True and back.get_params() == fitted.get_params()
    np.testing.assert_array_equal(back.decision_function(X), fitted.decision_function(X))


@pytest.mark.parametrize("model", ["wsvm", "pruned", "cbr", "cbr-diag", "oam", "adaoam",
                                   "opauc", "opaucr", "uniexp", "spam", "pgd"])
def test_cli_train_shows_progress_unless_quiet(model, heart, tmp_path, capfd):
    from birank._registry import MODELS

    X, y = heart
    path = tmp_path / "heart.svm"
    dump_svmlight(X, y, path)
    label = MODELS[model][0].rsplit(":", 1)[-1]
    common = ["train", "-m", model, "--seed", "0", str(path)]
    assert main(common + ["-o", str(tmp_path / "a.json")]) == 0
    out, err = capfd.readouterr()
    # batch models: their own lines; online models streamed from a LIBSVM file: the
    # CLI's one line over the file (it keeps the learner's verbose off while streaming)
    assert out == "" and "trained" in err
    assert err.startswith(label if model in ("wsvm", "pruned") else f"train {model} ["), err
    assert main(common + ["-q", "-o", str(tmp_path / "b.json")]) == 0
    assert capfd.readouterr() == ("", "")
    a, b = load_model(tmp_path / "a.json").doc, load_model(tmp_path / "b.json").doc
    assert a["coef"] == b["coef"] and a["intercept"] == b["intercept"]


def test_cli_online_model_read_whole_shows_the_learners_progress(heart, tmp_path, capfd):
    """A file that is not streamed (.npz): one partial_fit, with the learner's own lines."""
    X, y = heart
    path = tmp_path / "heart.npz"
    np.savez(path, X=X.toarray() if hasattr(X, "toarray") else X, y=y)
    common = ["train", "-m", "cbr", "--seed", "0", str(path)]
    assert main(common + ["-o", str(tmp_path / "a.json")]) == 0
    out, err = capfd.readouterr()
    assert out == "" and "CBR [####################] 270/270" in err and "trained" in err
    assert main(common + ["-q", "-o", str(tmp_path / "b.json")]) == 0
    assert capfd.readouterr() == ("", "")
    a, b = load_model(tmp_path / "a.json").doc, load_model(tmp_path / "b.json").doc
    assert a["coef"] == b["coef"] and a["intercept"] == b["intercept"]
