"""`birank train` / `predict` / `demo` / `reproduce` and the JSON model files."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from birank.cli import main
from birank.datasets import dump_svmlight, load_heart
from birank.model_io import load_model, save_model


@pytest.fixture
def heart_file(tmp_path):
    X, y = load_heart()
    path = tmp_path / "heart.svm"
    dump_svmlight(X, y, path)
    return path, X, y


def test_train_predict_roundtrip_matches_estimator(heart_file, tmp_path, capsys):
    path, X, y = heart_file
    model = tmp_path / "m.json"
    assert main(["train", "-m", "wsvm", "-c", "0.5", "--quiet", str(path), "-o", str(model)]) == 0
    assert main(["predict", str(model), str(path)]) == 0
    scores = np.array(capsys.readouterr().out.split(), dtype=float)
    est = load_model(model).estimator()
    assert est.C == 0.5
    np.testing.assert_allclose(scores, est.decision_function(X), rtol=1e-10, atol=1e-10)
    # the rebuilt estimator predicts labels from the file's classes
    assert set(np.unique(est.predict(X))) <= set(np.unique(y))


def test_train_refuses_to_overwrite_without_force(heart_file, tmp_path, capsys):
    path, _, _ = heart_file
    model = tmp_path / "m.json"
    model.write_text("precious")
    assert main(["train", "-m", "wsvm", "--quiet", str(path), "-o", str(model)]) == 2
    assert "exists" in capsys.readouterr().err
    assert model.read_text() == "precious"
    assert main(["train", "-m", "wsvm", "--quiet", "--force", str(path), "-o", str(model)]) == 0
    assert json.loads(model.read_text())["format"].startswith("birank-linear-model")


@pytest.mark.parametrize("argv, message", [
    (["train", "-m", "wsvm", "/no/such/file.svm", "-o", "x.json"], "no such file"),
    (["train", "-m", "wsvm", "--param", "nonsense=1", "DATA", "-o", "x.json"], "no parameter"),
    (["train", "-m", "wsvm", "--param", "C=-1", "DATA", "-o", "x.json"], "C"),
    (["predict", "MODEL_BAD", "DATA"], "not a birank model"),
])
def test_user_errors_are_one_line_exit_2(argv, message, heart_file, tmp_path, capsys,
                                         monkeypatch):
    path, _, _ = heart_file
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    monkeypatch.chdir(tmp_path)
    argv = [str(path) if a == "DATA" else str(bad) if a == "MODEL_BAD" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]


def test_malformed_data_file_names_the_line(tmp_path, capsys):
    data = tmp_path / "bad.svm"
    data.write_text("1 1:0.5 2:1\n0 1:zz\n")
    assert main(["train", "-m", "wsvm", str(data), "-o", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert "bad.svm" in err and "line 2" in err


def test_predict_rejects_wider_data(heart_file, tmp_path, capsys):
    path, X, y = heart_file
    model = tmp_path / "m.json"
    main(["train", "-m", "wsvm", "--quiet", str(path), "-o", str(model)])
    wide = tmp_path / "wide.svm"
    dump_svmlight(sp.hstack([X, sp.csr_matrix(np.ones((X.shape[0], 2)))]).tocsr(), y, wide)
    assert main(["predict", str(model), str(wide)]) == 2
    assert "features" in capsys.readouterr().err


def test_save_model_refuses_overwrite(tmp_path):
    from birank.batch.weighted_svm import WeightedSVM

    X, y = load_heart()
    est = WeightedSVM().fit(X, y)
    path = tmp_path / "m.json"
    save_model(est, path)
    with pytest.raises(FileExistsError):
        save_model(est, path)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.coef, est.coef_)


def test_train_ranksvm_uses_query_groups(tmp_path, capsys):
    from birank import RankSVM
    from birank.datasets import load_tfranking_toy

    X, y, groups = load_tfranking_toy()
    path = tmp_path / "toy.svm"
    dump_svmlight(X, y, path, groups=groups)
    model = tmp_path / "rank.json"
    assert main(["train", "-m", "ranksvm", "-c", "0.1", "--quiet", str(path),
                 "-o", str(model)]) == 0
    expected = RankSVM(C=0.1).fit(X, y, groups=groups)
    np.testing.assert_allclose(load_model(model).coef, expected.coef_, rtol=1e-12, atol=1e-12)
    flat = RankSVM(C=0.1).fit(X, y)
    assert not np.allclose(flat.coef_, expected.coef_)
    # a model that cannot use groups says so instead of silently ignoring them
    assert main(["train", "-m", "wsvm", "--quiet", str(path), "-o", str(tmp_path / "w.json")]) == 2
    assert "per-query" in capsys.readouterr().err


def test_demo_writes_table_and_png(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--scale", "0.1", "-q", "--output", str(out)]) == 0
    table = (out / "results.md").read_text()
    for name in ("LinearSVC", "LogisticRegression", "ranksvm", "active", "Ridge", "oam",
                 "Panel 1 (a9a): "):
        assert name in table
    res = json.loads((out / "results.json").read_text())
    assert {r["panel"] for r in res["results"]} == {"a9a", "graded", "stream"}
    assert all(0.5 < r["value"] <= 1.0 for r in res["results"])
    # panel 1 compares the four methods on the same bundled a9a split, CPU and wall timed
    a9a = {r["method"]: r for r in res["results"] if r["panel"] == "a9a"}
    assert set(a9a) == {"ranksvm", "active", "LinearSVC", "LogisticRegression"}
    assert all(r["fit_seconds"] > 0 and r["wall_seconds"] > 0 for r in a9a.values())
    png = (out / "comparison.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_demo_caption_follows_the_measurements():
    """Panel 1's caption says birank is ahead only when the numbers say so."""
    from birank.cli._demo import _verdict

    def row(method, group, auc, sec):
        return {"method": method, "group": group, "value": auc, "fit_seconds": sec}

    ref, ours = "reference (scikit-learn)", "pairwise (birank)"
    slow_ref = [row("active", ours, 0.90, 0.1), row("LinearSVC", ref, 0.901, 1.0)]
    assert _verdict(slow_ref).startswith("birank ahead: active 0.10s vs LinearSVC 1.00s")
    # a reference with a better AUC is named even when birank is ahead on time
    assert "LinearSVC has the best AUC (+0.0010)" in _verdict(slow_ref)
    better_lr = slow_ref + [row("LogisticRegression", ref, 0.903, 2.0)]
    assert "Best AUC: LogisticRegression 0.9030 (+0.0030) in 2.00s" in _verdict(better_lr)
    ours_best = _verdict([row("active", ours, 0.903, 0.1), row("LinearSVC", ref, 0.901, 1.0)])
    assert ours_best.startswith("birank ahead") and "best auc" not in ours_best.lower()
    # a faster reference, a near tie, or a birank method far below the best AUC: not ahead
    assert "not ahead" in _verdict([row("active", ours, 0.90, 1.0),
                                    row("LinearSVC", ref, 0.90, 0.1)])
    assert "not ahead" in _verdict([row("active", ours, 0.90, 1.0),
                                    row("LinearSVC", ref, 0.90, 1.1)])
    assert "not ahead" in _verdict([row("active", ours, 0.80, 0.1),
                                    row("LinearSVC", ref, 0.90, 1.0)])


def test_reproduce_lists_both_papers(capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    text = capsys.readouterr().out
    assert "shen-lin" in text and "gultekin" in text
