"""The trust edges a new user hit: each test here failed before its fix (a fit that
succeeded silently, a warning that was missing)."""

import json
import os
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

from birank import LCBR, CombinedRanking, RankSVM, WeightedSVM
from birank.cli import main
from birank.datasets import dump_svmlight, load_heart, load_svmlight, load_tfranking_toy
from birank.datasets import _svmlight
from birank.model_io import load_model, save_model

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__import__("birank").__file__)))


@pytest.fixture(scope="module")
def heart_model(tmp_path_factory):
    X, y = load_heart()
    path = tmp_path_factory.mktemp("m") / "wsvm.json"
    save_model(WeightedSVM(random_state=0).fit(X, y), path)
    return path


def _edit_model(src, dst, **changes):
    doc = json.loads(src.read_text())
    doc.update(changes)
    dst.write_text(json.dumps(doc))
    return dst


# --- model files -------------------------------------------------------------------
def test_model_file_cannot_make_us_import_a_module(heart_model, tmp_path, monkeypatch):
    (tmp_path / "planted_mod.py").write_text("import sys\nsys.modules['planted_ran'] = 1\n"
                                             "class Thing:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    bad = _edit_model(heart_model, tmp_path / "evil.json", estimator="planted_mod:Thing")
    # refused when the file is read, before anything is scored or built
    with pytest.raises(ValueError, match=r"evil\.json: estimator: 'planted_mod:Thing' is not "
                                         r"a registered birank estimator"):
        load_model(bad)
    assert "planted_ran" not in sys.modules and "planted_mod" not in sys.modules
    # birank's own classes still load
    assert type(load_model(heart_model).estimator()) is WeightedSVM


@pytest.mark.parametrize("field, value, message", [
    ("coef", [float("nan")] * 13, r"coef\[0\] is not a finite float64 number"),
    ("coef", [1.0] * 12 + [float("inf")], r"coef\[12\] is not a finite float64 number"),
    ("intercept", float("nan"), "intercept is not a finite float64 number"),
    ("coef", ["a"] * 13, r"coef\[0\] must be a number"),
    ("n_features", "13", r"n_features must be an integer in \[0, "),
    ("classes", [1], "classes must be a list of two labels"),
    ("estimator", 5, "estimator must be a registered estimator name"),
])
def test_corrupted_model_fields_are_refused(heart_model, tmp_path, field, value, message):
    bad = _edit_model(heart_model, tmp_path / "bad.json", **{field: value})
    with pytest.raises(ValueError, match=r"bad\.json: " + message):
        load_model(bad)


def test_binary_or_missing_model_file(tmp_path):
    gz = tmp_path / "m.json.gz"
    gz.write_bytes(b"\x1f\x8b\x08\x00\xff\xfe binary")
    with pytest.raises(ValueError, match=r"m\.json\.gz: not a birank model file \(binary data"):
        load_model(gz)
    with pytest.raises(IsADirectoryError, match="is a directory, not a model file"):
        load_model(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such model file"):
        load_model(tmp_path / "none.json")


def test_save_model_refuses_a_diverged_model(tmp_path):
    X, y = load_heart()
    est = WeightedSVM(random_state=0).fit(X, y)
    est.coef_[3] = np.nan
    with pytest.raises(ValueError, match="non-finite coefficients"):
        save_model(est, tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()


# --- interruptible parsing with progress --------------------------------------------
def _big_text(n_rows=40000):
    rng = np.random.default_rng(0)
    idx = np.cumsum(rng.integers(1, 30, size=(n_rows, 6)), axis=1)  # increasing, no repeats
    lines = [f"{i % 2} " + " ".join(f"{j}:{v:.3f}" for j, v in zip(r, rng.random(6)))
             for i, r in enumerate(idx)]
    return ("\n".join(lines) + "\n").encode()


def test_ctrl_c_stops_parsing_within_a_chunk():
    data = _big_text()
    seen = []

    def progress(done, total, message):
        seen.append(done)
        if len(seen) == 1:  # Ctrl-C arrives while the second chunk is parsed
            signal.setitimer(signal.ITIMER_REAL, 1e-4)

    def on_alarm(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, on_alarm)
    try:
        with pytest.raises(KeyboardInterrupt):
            _svmlight.load_svmlight_bytes(data, name="big", progress=progress, chunk_bytes=64 << 10)
            time.sleep(1)  # (not reached on a parse that honours the interrupt)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    n_chunks = len(data) // (64 << 10)
    assert 1 <= len(seen) < n_chunks // 2  # stopped long before the end of the file


@pytest.mark.parametrize("fast", [True, False])
def test_chunked_parse_equals_one_pass(fast, monkeypatch):
    monkeypatch.setattr(_svmlight, "_SMALL_BYTES", 0 if fast else 1 << 40)
    data = _big_text(3000) + b"# trailing comment\n\n"
    seen = []
    X, y, q = _svmlight.load_svmlight_bytes(data, progress=lambda d, t, m: seen.append(d),
                                            chunk_bytes=4096)
    X1, y1, q1 = _svmlight._slow_parse(data, "t", None, False, "error")
    assert (X != X1).nnz == 0 and X.shape == X1.shape and q is None and q1 is None
    np.testing.assert_array_equal(y, y1)
    assert len(seen) > 10 and seen == sorted(seen) and seen[-1] == len(data)


def test_cli_shows_parsing_progress_for_big_files(tmp_path, monkeypatch, capsys):
    from birank.cli import _common

    path = tmp_path / "d.svm"
    X, y = load_heart()
    dump_svmlight(X, y, path)
    monkeypatch.setattr(_common, "_PROGRESS_BYTES", 0)
    assert main(["train", "-m", "wsvm", str(path), "-o", str(tmp_path / "m.json")]) == 0
    assert "reading d.svm" in capsys.readouterr().err


def test_a_file_read_in_blocks_shows_progress_as_a_whole_one(tmp_path, monkeypatch, capsys):
    """train's block reader (a plain LIBSVM file of 256 KiB and more) and evaluate's labels
    file read whole (below its streaming size) show the "reading" line, as the whole-text
    read and the streamed labels do; load_svmlight_path reports every block, in order."""
    from birank.cli import _common

    data = _big_text(20000)
    assert len(data) > _svmlight._SMALL_BYTES
    path = tmp_path / "d.svm"
    path.write_bytes(data)
    seen = []
    X, y, _ = _svmlight.load_svmlight_path(path, progress=lambda d, t, m: seen.append((d, t)))
    assert X.shape[0] == 20000 and len(seen) == 1 and seen[-1] == (len(data), len(data))
    blocks = []
    with open(path, "rb") as fh:
        _svmlight._kernel_parse_file(fh, False, 50_000, lambda d, t, m: blocks.append(d))
    assert len(blocks) > 10 and blocks == sorted(blocks)
    assert blocks[-1] == len(data)
    monkeypatch.setattr(_common, "_PROGRESS_BYTES", 0)
    assert main(["train", "-m", "wsvm", str(path), "-o", str(tmp_path / "m.json")]) == 0
    assert "reading d.svm" in capsys.readouterr().err
    scores = tmp_path / "s.txt"
    scores.write_text("\n".join(map(str, np.arange(20000) % 7)) + "\n")
    assert main(["evaluate", "--labels", str(path), "--scores", str(scores)]) == 0
    assert "reading d.svm" in capsys.readouterr().err


# --- duplicated feature indices -----------------------------------------------------
@pytest.fixture
def toy_file(tmp_path):
    from birank.datasets._bundled import _read

    path = tmp_path / "tfranking_toy.txt.xz"
    path.write_bytes(_read("tfranking_toy_train.txt.xz"))
    return path


def test_duplicates_option_on_every_command(toy_file, tmp_path, capsys):
    model, scores = tmp_path / "m.json", tmp_path / "s.txt"
    assert main(["train", "-q", str(toy_file), "-o", str(model)]) == 2
    err = capsys.readouterr().err
    assert "appears twice" in err and "use --duplicates sum or --duplicates last" in err
    assert "duplicates='sum'" not in err  # advice the CLI user can act on
    assert main(["train", "-q", "--duplicates", "last", str(toy_file), "-o", str(model)]) == 0
    assert main(["predict", str(model), str(toy_file), "-o", str(scores)]) == 2
    assert "--duplicates" in capsys.readouterr().err
    assert main(["predict", "--duplicates", "last", str(model), str(toy_file),
                 "-o", str(scores)]) == 0
    # evaluate reads the labels file with the same rule
    assert main(["evaluate", "--labels", str(toy_file), "--scores", str(scores)]) == 2
    assert "--duplicates" in capsys.readouterr().err
    capsys.readouterr()
    assert main(["evaluate", "--duplicates", "last", "--labels", str(toy_file),
                 "--scores", str(scores), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    # ... and the scores are those of the bundled loader's matrix (which keeps the last value)
    Xb, yb, gb = load_tfranking_toy()
    est = load_model(model).estimator()
    np.testing.assert_allclose(np.loadtxt(scores), est.decision_function(Xb), rtol=1e-10)
    assert res["groups"] == len(np.unique(gb))
    Xc, yc, gc = load_svmlight(toy_file, query_id=True, duplicates="last")
    assert (Xc != Xb).nnz == 0


# --- output paths -------------------------------------------------------------------
def test_output_directory_with_force_is_refused_cleanly(tmp_path, capsys):
    X, y = load_heart()
    data = tmp_path / "h.svm"
    dump_svmlight(X, y, data)
    out = tmp_path / "outdir"
    out.mkdir()
    before = set(os.listdir(tmp_path))
    assert main(["train", "-q", "-m", "wsvm", "--force", str(data), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out} is a directory" in err and ".tmp" not in err
    assert set(os.listdir(tmp_path)) == before and os.listdir(out) == []
    assert main(["predict", "--force", str(tmp_path / "none.json"), str(data), "-o",
                 str(out)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_dash_output_is_stdout(tmp_path, capsys, monkeypatch):
    X, y = load_heart()
    data = tmp_path / "h.svm"
    dump_svmlight(X, y, data)
    monkeypatch.chdir(tmp_path)
    assert main(["train", "-q", "-m", "wsvm", str(data), "-o", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"].startswith("birank-linear-model") and not (tmp_path / "-").exists()


def test_interrupted_write_leaves_no_file(tmp_path, monkeypatch):
    from birank import model_io

    def boom(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(model_io.os, "replace", boom)
    monkeypatch.setattr(model_io.os, "link", boom)  # overwrite=False publishes by hard link
    with pytest.raises(KeyboardInterrupt):
        model_io.atomic_write_text(tmp_path / "m.json", "{}")
    with pytest.raises(KeyboardInterrupt):
        model_io.atomic_write_text(tmp_path / "m.json", "{}", overwrite=True)
    assert os.listdir(tmp_path) == []


# --- --seed and --param -------------------------------------------------------------
def test_seed_for_a_deterministic_model_and_float_written_ints(tmp_path, capsys):
    X, y = load_heart()
    data = tmp_path / "h.svm"
    dump_svmlight(X, y, data)
    assert main(["train", "-m", "ranksvm", "--seed", "3", str(data), "-o",
                 str(tmp_path / "r.json")]) == 0
    assert "--seed is ignored" in capsys.readouterr().err
    assert main(["train", "-q", "-m", "active", "--seed", "0", "--param", "budget=1e3",
                 str(data), "-o", str(tmp_path / "a.json")]) == 0
    params = json.loads((tmp_path / "a.json").read_text())["params"]
    assert params["budget"] == 1000 and isinstance(params["budget"], int)
    assert main(["train", "-q", "-m", "active", "--param", "budget=1000.5", str(data), "-o",
                 str(tmp_path / "b.json")]) == 2
    assert "budget must be an integer" in capsys.readouterr().err


# --- start-up time ------------------------------------------------------------------
def _run(code):
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)


def test_cli_import_does_not_load_heavy_modules():
    res = _run("import sys, birank.cli\n"
               "from birank.cli import build_parser\n"
               "build_parser(['--help'])\n"
               "print(sorted({m.split('.')[0] for m in sys.modules} & "
               "{'numpy', 'scipy', 'sklearn', 'numba'}))")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_predict_on_a_small_file_loads_neither_sklearn_nor_numba(heart_model, tmp_path):
    X, y = load_heart()
    data = tmp_path / "h.svm"
    dump_svmlight(X[:20], y[:20], data)
    res = _run("import sys\n"
               "from birank.cli import main\n"
               f"assert main(['predict', {str(heart_model)!r}, {str(data)!r}, '-o', "
               f"{str(tmp_path / 's.txt')!r}]) == 0\n"
               "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'numba'}))")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"
    assert len((tmp_path / "s.txt").read_text().split()) == 20


def test_help_imports_no_numerical_library():
    """What keeps ``birank --help`` fast: it imports none of numpy, scipy, scikit-learn,
    numba. The time itself is a benchmark (benchmarks/bench_cli_startup.py), not an
    assertion inside the parallel test run."""
    code = ("import sys, contextlib, io\n"
            "from birank.cli import main\n"
            "try:\n"
            "    with contextlib.redirect_stdout(io.StringIO()): main(['--help'])\n"
            "except SystemExit as exc:\n"
            "    assert exc.code == 0\n"
            "print(sorted(m for m in ('numpy', 'scipy', 'sklearn', 'numba') "
            "if m in sys.modules))\n")
    env = dict(os.environ, PYTHONPATH=SRC)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


# --- fits that succeed silently but wrongly -----------------------------------------
def test_weighted_svm_one_positive():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5000, 3))
    y = np.zeros(5000)
    y[0] = 1
    X[0] += 3
    with pytest.warns(UserWarning, match=r"ranks its own training data worse than chance "
                                         r"\(training AUC 0, 1 positive\(s\) in 5000 rows\)"):
        WeightedSVM(class_weight=None, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert WeightedSVM(random_state=0).fit(X, y).score(X, y) > 0.99  # weighted by default


@pytest.mark.parametrize("scale", [1e8, 1e-8])
def test_combined_ranking_warns_on_extreme_scale(scale):
    X, y = load_heart()
    X = X.toarray() * scale
    with pytest.warns(UserWarning, match="not scale invariant"):
        CombinedRanking(max_iter=1000, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        CombinedRanking(max_iter=1000, random_state=0).fit(X / scale, y)


def test_lcbr_on_two_rows():
    rng = np.random.default_rng(0)
    for t in range(20):
        X = rng.standard_normal((2, 5)) * [1e-3, 1.0, 1e3][t % 3]
        model = LCBR(random_state=t).fit(X, [0, 1])
        assert model.score(X, [0, 1]) == 1.0


def test_indefinite_matrix_is_still_refused():
    from birank.solvers.ball_quadratic import solve_ball_quadratic_eigh

    with pytest.raises(ValueError, match="positive semidefinite"):
        solve_ball_quadratic_eigh(np.diag([1.0, -1e-6]), np.ones(2), None)


def test_labels_without_features_are_refused(tmp_path, capsys):
    path = tmp_path / "labels.svm"
    path.write_text("1\n-1\n1\n-1\n")
    assert main(["train", "-q", "-m", "ranksvm", str(path), "-o", str(tmp_path / "m.json")]) == 2
    assert "has labels but no features" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()
    X, _ = load_svmlight(path)
    assert X.shape == (4, 0)
    with pytest.raises(ValueError, match="0 feature"):
        RankSVM().fit(X, [1, -1, 1, -1])
