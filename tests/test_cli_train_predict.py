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
    from birank.cli._demo import OUTPUT_FILES

    out = tmp_path / "demo"
    assert main(["demo", "--scale", "0.1", "--output", str(out)]) == 0
    # its last line names every file it wrote (results.json was left out)
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("wrote ") and all(str(out / name) in last for name in OUTPUT_FILES)
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


# ------------------------------------------------- session 47 audit: wrong output, late checks
def _tiny_svm(path, zero_based):
    base = 0 if zero_based else 1
    rows = ["1 {a}:1.0 {b}:0.5", "-1 {b}:1.0", "1 {a}:0.8 {c}:0.2", "-1 {c}:1.0 {b}:0.3"]
    path.write_text("\n".join(r.format(a=base, b=base + 1, c=base + 2) for r in rows) + "\n")
    return path


def test_predict_refuses_a_table_narrower_than_the_model(tmp_path, capsys):
    """A CSV without its label column lost a column and was scored anyway (exit 0, wrong
    scores): a table must have the model's width; a LIBSVM row may omit trailing zeros."""
    model = tmp_path / "m.json"
    assert main(["train", "-q", str(_tiny_svm(tmp_path / "t.svm", False)), "-o",
                 str(model)]) == 0
    nolabel = tmp_path / "nolabel.csv"
    nolabel.write_text("0.5,1.0,0\n1.5,0,0.2\n")
    assert main(["predict", str(model), str(nolabel)]) == 2
    err = capsys.readouterr().err
    assert "has 2 feature columns, but the model" in err and "label column" in err
    full = tmp_path / "full.csv"
    full.write_text("1,0.5,1.0,0\n-1,1.5,0,0.2\n")
    assert main(["predict", str(model), str(full)]) == 0
    assert len(capsys.readouterr().out.split()) == 2
    short = tmp_path / "short.svm"  # (features 2 and 3 absent: zeros, as LIBSVM means)
    short.write_text("1 1:1.0\n")
    assert main(["predict", str(model), str(short)]) == 0


def test_csv_first_line_with_one_bad_cell_is_data_not_a_header(tmp_path, capsys):
    """The first line was taken as a header when any cell was not a number: a typo there
    silently dropped a row. A header has no number or names the label / query column."""
    bad = tmp_path / "bad.csv"
    bad.write_text("1,0.5,abc,0\n-1,1.5,0,0.2\n")
    assert main(["train", "-q", str(bad), "-o", str(tmp_path / "m.json")]) == 2
    assert "line 1, column 3" in capsys.readouterr().err
    for head in ("label,f1,f2,f3", "y,0,1,2"):  # named header; numbered features
        ok = tmp_path / "ok.csv"
        ok.write_text(head + "\n1,0.5,1,0\n-1,1.5,0,0.2\n0,1,1,1\n")
        assert main(["train", "-q", "--json", "-m", "ranksvm", str(ok), "-o",
                     str(tmp_path / "m.json"), "--force"]) == 0
        assert json.loads(capsys.readouterr().out)["n_samples"] == 3


def test_batch_models_record_the_index_base_for_predict(tmp_path, capsys, monkeypatch):
    """A 0-based training file: predict read 1-based test files (no index 0) shifted by one
    feature, as the online models' files already said which base they used."""
    import io

    model = tmp_path / "m.json"
    assert main(["train", "-q", str(_tiny_svm(tmp_path / "t.svm", True)), "-o",
                 str(model)]) == 0
    assert load_model(model).doc["extra"]["zero_based"] is True
    probe = tmp_path / "probe.svm"  # indices 1 and 2 only: no 0, so "auto" alone says 1-based
    probe.write_text("1 1:1.0\n-1 2:1.0\n")
    est = load_model(model).estimator()
    want = est.decision_function(np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    for source in (str(probe), "-"):  # a file is streamed; standard input is read whole
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(probe.read_bytes())))
        assert main(["predict", str(model), source]) == 0
        np.testing.assert_allclose(np.array(capsys.readouterr().out.split(), dtype=float),
                                   want, rtol=1e-12)



def test_predict_index_past_the_model_names_the_line_and_the_index_base(tmp_path, capsys,
                                                                         monkeypatch):
    """A model trained on a 0-based file (scikit-learn's dump_svmlight_file default) scoring
    a 1-based file said "feature index 3 exceeds n_features=3", or from standard input
    "X has 4 features": the line, the model's indices, and --zero-based no when the file
    may be 1-based."""
    import io

    models = {}
    for zero_based in (True, False):
        models[zero_based] = tmp_path / f"m{int(zero_based)}.json"
        assert main(["train", "-q", str(_tiny_svm(tmp_path / f"t{int(zero_based)}.svm",
                                                  zero_based)),
                     "-o", str(models[zero_based])]) == 0
    one_based = _tiny_svm(tmp_path / "test1.svm", False)  # index 3 on line 3
    four = tmp_path / "four.svm"  # past a 1-based model too: index 4 on line 2
    four.write_text("1 1:0.5\n-1 4:1.0\n")
    cases = [(models[True], one_based, "line 3: feature index 3 exceeds n_features=3",
              "indices 0 to 2; if this file is 1-based, give --zero-based no"),
             (models[False], four, "line 2: feature index 4 exceeds n_features=3",
              "indices 1 to 3)")]
    for model, data, where, hint in cases:
        for source in (str(data), "-"):  # streamed; read whole
            monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data.read_bytes())))
            assert main(["predict", "-q", str(model), source]) == 2, (model, source)
            err = capsys.readouterr().err
            assert len(err.splitlines()) == 1, err
            assert where in err and hint in err, err
            assert f"the model in {model} was trained on 3 features" in err, err
            assert ("--zero-based" in err) == (model == models[True]), err
    # the hint is not given when the base was given
    assert main(["predict", "-q", "--zero-based", "yes", str(models[True]),
                 str(one_based)]) == 2
    assert "give --zero-based" not in capsys.readouterr().err


def test_train_json_to_stdout_conflict_is_refused_before_the_fit(heart_file, capsys):
    path, _, _ = heart_file
    assert main(["train", "-q", str(path), "-o", "-", "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "both write to standard output" in out.err


def test_demo_keeps_existing_files_and_checks_options_first(tmp_path, capsys):
    out = tmp_path / "d"
    out.mkdir()
    (out / "results.md").write_text("my notes")
    assert main(["demo", "-q", "--scale", "0.05", "--output", str(out)]) == 2
    assert "use --force" in capsys.readouterr().err
    assert (out / "results.md").read_text() == "my notes"
    for argv in (["--scale", "nan"], ["--scale", "0"], ["--output", str(out / "results.md")]):
        assert main(["demo", "-q", "--output", str(tmp_path / "e")] + argv) == 2
        assert "error:" in capsys.readouterr().err
    assert not (tmp_path / "e").exists()


def test_small_cli_messages_name_the_right_thing(tmp_path, capsys):
    """--classes -1,1 works as written; a root option after the command says where it goes;
    --n-features errors quote the number given; .npz string labels and a header-only CSV
    get one line each (no numpy text)."""
    one = tmp_path / "one.svm"  # a first chunk of one class: --classes needed
    one.write_text("1 1:1\n1 2:1\n-1 1:0.5\n-1 2:0.1\n")
    assert main(["train", "-q", "-m", "oam", "--chunk-size", "2", str(one), "-o",
                 str(tmp_path / "o.json"), "--classes", "-1,1"]) == 0
    with pytest.raises(SystemExit):
        main(["train", str(one), "-o", str(tmp_path / "x.json"), "--traceback"])
    assert "--traceback goes before the command" in capsys.readouterr().err
    assert main(["train", "-q", str(one), "-o", str(tmp_path / "x.json"),
                 "--n-features", "1"]) == 2
    assert "feature index 2 exceeds n_features=1" in capsys.readouterr().err
    npz = tmp_path / "s.npz"
    np.savez(npz, X=np.eye(4), y=np.array(["a", "b", "a", "b"]))
    assert main(["train", "-q", str(npz), "-o", str(tmp_path / "n.json")]) == 2
    err = capsys.readouterr().err
    assert "'y' must hold numbers" in err and str(npz) in err
    head = tmp_path / "head.csv"
    head.write_text("label,f1,f2\n")
    assert main(["train", "-q", str(head), "-o", str(tmp_path / "h.json")]) == 2
    err = capsys.readouterr().err
    assert "no data lines" in err and "loadtxt" not in err


def test_active_learn_query_checks_its_state_path_before_writing(tmp_path, capsys):
    """The rows to label were written, then saving the state failed: a person would label
    rows that no state had asked for. Both paths are now checked first."""
    pool = tmp_path / "pool.svm"
    pool.write_text("".join(f"? qid:{1 + i // 5} 1:{i / 10:.2f} 2:{(i * 7 % 10) / 10:.2f}\n"
                            for i in range(15)))
    ask = tmp_path / "ask.tsv"
    assert main(["active-learn", "query", str(pool), "--state",
                 str(tmp_path / "missing" / "s.json"), "-o", str(ask), "-q"]) == 2
    assert "does not exist" in capsys.readouterr().err and not ask.exists()
    assert main(["active-learn", "query", str(pool), "--state", str(tmp_path / "s.json"),
                 "-q"]) == 0
    assert len([x for x in capsys.readouterr().out.splitlines()
                if not x.startswith("#")]) > 0
    not_a_dir = tmp_path / "f.txt"
    not_a_dir.write_text("x")
    labels = tmp_path / "l.txt"
    labels.write_text("\n".join(["1", "0", "0", "1", "0"] * 3) + "\n")
    numbered = tmp_path / "numbered.svm"  # simulate reads a pool with numeric labels
    numbered.write_text(pool.read_text().replace("? ", "0 "))
    assert main(["active-learn", "simulate", str(numbered), "--labels", str(labels),
                 "--output", str(not_a_dir)]) == 2
    assert "--output" in capsys.readouterr().err and not_a_dir.read_text() == "x"


def test_utf8_bom_is_skipped_and_outputs_never_overwrite_inputs(tmp_path, capsys):
    """A UTF-8 byte-order mark (Windows editors) was a "bad token" on line 1; and
    `predict M D -o M --force` replaced the model with its scores."""
    plain = _tiny_svm(tmp_path / "plain.svm", False)
    bom = tmp_path / "bom.svm"
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    for name, source in (("a.json", plain), ("b.json", bom)):
        assert main(["train", "-q", str(source), "-o", str(tmp_path / name)]) == 0
    coefs = [load_model(tmp_path / name).doc["coef"] for name in ("a.json", "b.json")]
    assert coefs[0] == coefs[1]
    csv = tmp_path / "bom.csv"
    csv.write_bytes(b"\xef\xbb\xbflabel,a,b,c\n1,1,0.5,0\n-1,0,1,0\n")
    assert main(["predict", str(tmp_path / "a.json"), str(csv)]) == 0
    assert len(capsys.readouterr().out.split()) == 2  # the header was read as a header
    model = tmp_path / "a.json"
    before = model.read_bytes()
    assert main(["predict", str(model), str(plain), "-o", str(model), "--force"]) == 2
    assert "is the input" in capsys.readouterr().err and model.read_bytes() == before
    assert main(["train", "-q", str(plain), "-o", str(plain), "--force"]) == 2
    assert "is the input" in capsys.readouterr().err


def test_active_learn_teach_checks_qids_and_duplicate_rows(tmp_path, capsys):
    pool = tmp_path / "pool.svm"
    pool.write_text("".join(f"? qid:{1 + i // 5} 1:{i / 10:.2f} 2:{(i * 7 % 10) / 10:.2f}\n"
                            for i in range(15)))
    state, ask = tmp_path / "s.json", tmp_path / "ask.tsv"
    assert main(["active-learn", "query", str(pool), "--state", str(state), "-o", str(ask),
                 "-q"]) == 0
    rows = [line.split("\t") for line in ask.read_text().splitlines()
            if not line.startswith("#")]
    r, q = rows[0][0], rows[0][1]
    bad = tmp_path / "bad.tsv"
    bad.write_text(f"{r}\t{int(q) + 1}\t1\n")  # the qid column edited
    assert main(["active-learn", "teach", "--state", str(state), str(bad), "-q"]) == 2
    assert f"row {r} is in query {q}, not {int(q) + 1}" in capsys.readouterr().err
    bad.write_text(f"{r}\t{q}\t1\n{r}\t{q}\t0\n")
    assert main(["active-learn", "teach", "--state", str(state), str(bad), "-q"]) == 2
    assert f"row {r} is labeled twice (also on line 1)" in capsys.readouterr().err
    good = tmp_path / "good.tsv"
    good.write_text("".join(f"{a}\t{b}\t{k % 2}\n" for k, (a, b, _) in enumerate(rows)))
    assert main(["active-learn", "teach", "--state", str(state), str(good), "-q"]) == 0
    assert len(json.loads(state.read_text())["labels"]) == len(rows)


def test_label_column_zero_for_libsvm_and_per_group_without_groups(tmp_path, capsys):
    """--label-column 0 (where LIBSVM has its label) was accepted by the batch models and
    refused by the streamed ones; evaluate --per-group without query ids said nothing."""
    data = _tiny_svm(tmp_path / "t.svm", False)
    for model in ("ranksvm", "oam"):
        assert main(["train", "-q", "-m", model, "--label-column", "0", str(data), "-o",
                     str(tmp_path / f"{model}.json")]) == 0
    assert main(["train", "-q", "-m", "oam", "--label-column", "1", str(data), "-o",
                 str(tmp_path / "x.json")]) == 2
    scores = tmp_path / "s.txt"
    scores.write_text("0.9\n0.1\n0.8\n0.2\n")
    capsys.readouterr()
    assert main(["evaluate", "--labels", str(data), "--scores", str(scores), "--per-group",
                 "--json"]) == 0
    assert "no query ids" in json.loads(capsys.readouterr().out)["roc_auc_per_group_note"]


@pytest.mark.parametrize("model", ["active", "oam"])  # in memory and streamed
def test_same_command_same_seed_same_model_file(model, heart_file, tmp_path, capsys):
    # the model file recorded the fit's wall-clock seconds: never the same bytes twice
    path, _, _ = heart_file
    files = []
    for k in range(2):
        files.append(tmp_path / f"m{k}.json")
        assert main(["train", "-m", model, "--seed", "3", "--json", str(path), "-o",
                     str(files[-1])]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["fit_seconds"] > 0  # the timing stays in the summary
    assert files[0].read_bytes() == files[1].read_bytes()
    assert "fit_seconds" not in json.loads(files[0].read_text())["extra"]


def test_predict_shows_progress_on_a_libsvm_file_unless_quiet(heart_file, tmp_path, capsys):
    path, _, _ = heart_file
    model, scores = tmp_path / "m.json", tmp_path / "s.txt"
    assert main(["train", "-m", "wsvm", "-q", str(path), "-o", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", "--chunk-size", "100", str(model), str(path), "-o",
                 str(scores)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "predict heart.svm" in err and "270 lines" in err and "KiB" in err
    assert main(["predict", "-q", "--force", str(model), str(path), "-o", str(scores)]) == 0
    assert capsys.readouterr().err == ""


# ------------------------------------------------- predict: a model's columns by name
def _named_table(tmp_path):
    """A small table: labels, three features a, b, c and query ids."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3)).round(6)
    y = (X @ [1.0, -2.0, 0.5] > 0).astype(int)
    qid = np.repeat([1, 2, 3], 10)
    return X, y, qid


def _write_csv(path, columns, head=True):
    """``columns``: (name, values) pairs, written in that order (with the header line)."""
    lines = [",".join(name for name, _ in columns)] if head else []
    rows = zip(*(values for _, values in columns))
    lines += [",".join(repr(float(v)) if isinstance(v, float) else str(v) for v in row)
              for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def _scores(capsys):
    out = capsys.readouterr()
    return np.array(out.out.split(), dtype=float), out.err


def test_train_on_a_headed_csv_records_the_feature_names_and_predict_matches_them(
        tmp_path, capsys):
    """A model trained from a CSV with a header knows its columns: predict takes a file's
    columns by name, so a file with its columns in another order scores the same."""
    X, y, qid = _named_table(tmp_path)
    a, b, c = (X[:, k].tolist() for k in range(3))
    train = _write_csv(tmp_path / "train.csv", [("label", y), ("a", a), ("b", b), ("c", c),
                                                  ("qid", qid)])
    model = tmp_path / "m.json"
    for extra in ([], ["-m", "oam", "--no-groups"]):  # fitted in one go; an online model
        assert main(["train", "-q", "--force", *extra, str(train), "-o", str(model)]) == 0
        assert load_model(model).doc["feature_names"] == ["a", "b", "c"]
        assert main(["predict", str(model), str(train)]) == 0
        want, _ = _scores(capsys)
        shuffled = _write_csv(tmp_path / "shuffled.csv", [("c", c), ("qid", qid), ("a", a),
                                                          ("label", y), ("b", b)])
        assert main(["predict", str(model), str(shuffled)]) == 0
        got, err = _scores(capsys)
        np.testing.assert_array_equal(got, want)
        assert err == ""


def test_predict_takes_a_headed_csv_columns_by_the_model_feature_names(tmp_path, capsys,
                                                                      monkeypatch):
    """A model file with feature_names scored a CSV by position, whatever its header said
    (another column order: wrong scores, with a warning at most): the columns are now
    taken by name; the label and query id columns may be anywhere, or absent."""
    import io
    import warnings

    pd = pytest.importorskip("pandas")
    from birank import RankSVM

    X, y, qid = _named_table(tmp_path)
    a, b, c = (X[:, k].tolist() for k in range(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = RankSVM().fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    model = save_model(est, tmp_path / "m.json")
    want = est.decision_function(pd.DataFrame(X, columns=["a", "b", "c"]))
    files = {
        "same.csv": [("label", y), ("a", a), ("b", b), ("c", c)],
        "shuffled.csv": [("c", c), ("label", y), ("a", a), ("b", b)],
        "with_qid.csv": [("b", b), ("qid", qid), ("c", c), ("a", a), ("y", y)],
        "features_only.csv": [("b", b), ("c", c), ("a", a)],  # (its first column: a feature)
        "first_unnamed.csv": [("score", y), ("c", c), ("b", b), ("a", a)],
    }
    for name, columns in files.items():
        path = _write_csv(tmp_path / name, columns)
        assert main(["predict", str(model), str(path)]) == 0, name
        got, err = _scores(capsys)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=name)
        assert err == "", name
    tsv = tmp_path / "t.tsv"
    tsv.write_text((tmp_path / "shuffled.csv").read_text().replace(",", "\t"))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(tsv.read_bytes())))
    assert main(["predict", str(model), "-"]) == 0
    np.testing.assert_allclose(_scores(capsys)[0], want, rtol=1e-10, atol=1e-10)
    # a feature missing, another column, a feature named twice: one line naming them, exit 2
    refused = {
        "missing.csv": ([("label", y), ("c", c), ("a", a)], "no column named b, which the "
                        "model in"),
        "two_missing.csv": ([("label", y), ("a", a)], "no columns named b, c"),
        "extra.csv": ([("label", y), ("a", a), ("b", b), ("c", c), ("d", a)],
                      "column d is not among the features of the model in"),
        "twice.csv": ([("label", y), ("a", a), ("b", b), ("c", c), ("a", b)],
                      "the header names a more than once"),
    }
    for name, (columns, message) in refused.items():
        path = _write_csv(tmp_path / name, columns)
        assert main(["predict", str(model), str(path)]) == 2, name
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1, name
        assert f"{path} (read as csv): {message}" in err, err


def test_predict_input_without_column_names_is_scored_by_position_with_one_note(
        tmp_path, capsys):
    """LIBSVM (streamed or read whole), .npz and a CSV without header give a named model no
    names: scored by position as before, with one note on stderr (none with -q) instead of
    a warning for every chunk."""
    import warnings

    pd = pytest.importorskip("pandas")
    from birank import RankSVM

    X, y, _ = _named_table(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = RankSVM().fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    model = save_model(est, tmp_path / "m.json")
    want = est.decision_function(pd.DataFrame(X, columns=["a", "b", "c"]))
    svm = tmp_path / "t.svm"
    dump_svmlight(X, y, svm)
    np.savez(tmp_path / "t.npz", X=X, y=y)
    plain = _write_csv(tmp_path / "plain.csv", [("label", y)] + [
        (str(k), X[:, k].tolist()) for k in range(3)], head=False)
    for path, fmt in ((svm, "libsvm"), (tmp_path / "t.npz", "npz"), (plain, "csv")):
        assert main(["predict", "--chunk-size", "7", str(model), str(path)]) == 0
        got, err = _scores(capsys)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
        notes = [line for line in err.splitlines() if line.startswith("note:")]
        assert notes == [f"note: {path} (read as {fmt}) has no column names: its columns are "
                         f"taken by position, as the features of the model in {model} in "
                         "order (a, b, c)"]
        assert "warning" not in err
        assert main(["predict", "-q", "--chunk-size", "7", str(model), str(path)]) == 0
        got, err = _scores(capsys)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
        assert err == ""


def test_a_model_file_without_feature_names_scores_a_headed_csv_by_position(tmp_path,
                                                                           capsys):
    """Models trained on LIBSVM files (and every older model file) have no feature names:
    a CSV's columns are taken by position, whatever its header says, without a note."""
    X, y, _ = _named_table(tmp_path)
    svm = tmp_path / "t.svm"
    dump_svmlight(X, y, svm)
    model = tmp_path / "m.json"
    assert main(["train", "-q", str(svm), "-o", str(model)]) == 0
    assert "feature_names" not in load_model(model).doc
    est = load_model(model).estimator()
    a, b, c = (X[:, k].tolist() for k in range(3))
    csv = _write_csv(tmp_path / "t.csv", [("label", y), ("c", c), ("a", a), ("b", b)])
    assert main(["predict", str(model), str(csv)]) == 0
    got, err = _scores(capsys)
    np.testing.assert_allclose(got, est.decision_function(X[:, [2, 0, 1]]), rtol=1e-10,
                               atol=1e-10)
    assert err == ""


# ------------------------------------------------- --ignore-column: columns that are no feature
def _ads_table(tmp_path):
    """The named table with an id (text) first and a timestamp last, and without them."""
    X, y, qid = _named_table(tmp_path)
    a, b, c = (X[:, k].tolist() for k in range(3))
    ids = [f"ad-{i:04d}" for i in range(len(y))]
    stamps = [f"2026-11-{1 + i % 28:02d}T12:00:00" for i in range(len(y))]
    core = [("label", y), ("a", a), ("b", b), ("c", c), ("qid", qid)]
    ads = _write_csv(tmp_path / "ads.csv", [("id", ids), *core, ("timestamp", stamps)])
    plain = _write_csv(tmp_path / "plain.csv", core)
    return ads, plain


def test_ignore_column_drops_ids_by_name_or_number_in_train_and_predict(tmp_path, capsys):
    """An id or timestamp column (text, even) is dropped before the table is read: train
    records the other columns' names, predict scores the file with the same option, and
    the scores are those of the file without the dropped columns."""
    ads, plain = _ads_table(tmp_path)
    ref = tmp_path / "ref.json"
    for extra in ([], ["-m", "oam", "--no-groups"]):  # fitted in one go; an online model
        assert main(["train", "-q", "--force", *extra, str(plain), "-o", str(ref)]) == 0
        assert main(["predict", str(ref), str(plain)]) == 0
        want, _ = _scores(capsys)
        for ignore in (["id", "timestamp"], ["0", "-1"], ["timestamp", "0"]):
            options = [arg for col in ignore for arg in ("--ignore-column", col)]
            model = tmp_path / "m.json"
            assert main(["train", "-q", "--force", *extra, *options, str(ads), "-o",
                         str(model)]) == 0, ignore
            doc = load_model(model).doc
            assert doc["feature_names"] == ["a", "b", "c"]
            assert doc["coef"] == load_model(ref).doc["coef"], ignore
            assert main(["predict", *options, str(model), str(ads)]) == 0
            got, err = _scores(capsys)
            np.testing.assert_array_equal(got, want)
            assert err == ""
    # (and evaluate and datasets info read the file with the option too)
    scores = tmp_path / "s.txt"
    scores.write_text("".join(f"{s!r}\n" for s in want.tolist()))
    options = ["--ignore-column", "id", "--ignore-column", "timestamp"]
    assert main(["evaluate", "--labels", str(ads), "--scores", str(scores), "--json",
                 *options]) == 0
    got_eval = json.loads(capsys.readouterr().out)
    assert main(["evaluate", "--labels", str(plain), "--scores", str(scores), "--json"]) == 0
    assert got_eval == json.loads(capsys.readouterr().out)
    assert main(["datasets", "info", str(ads), *options]) == 0
    assert "features  3" in capsys.readouterr().out


def test_ignore_column_on_headerless_csv_and_npy_by_number(tmp_path, capsys):
    """Without a header, columns are ignored by number; the default label is then the first
    column not ignored, and the scores are those of the file without the column."""
    X, y, _ = _named_table(tmp_path)
    a, b, c = (X[:, k].tolist() for k in range(3))
    ids = list(range(1000, 1000 + len(y)))
    with_id = _write_csv(tmp_path / "id.csv", [("id", ids), ("y", y), ("a", a), ("b", b),
                                                ("c", c)], head=False)
    plain = _write_csv(tmp_path / "plain.csv", [("y", y), ("a", a), ("b", b), ("c", c)],
                       head=False)
    ref = tmp_path / "ref.json"
    assert main(["train", "-q", str(plain), "-o", str(ref)]) == 0
    assert main(["predict", str(ref), str(plain)]) == 0
    want, _ = _scores(capsys)
    np.save(tmp_path / "id.npy", np.c_[ids, y, X])
    for path, options in ((with_id, ["--ignore-column", "0"]),
                          (with_id, ["--ignore-column", "-5", "--label-column", "1"]),
                          (tmp_path / "id.npy", ["--ignore-column", "0"])):
        model = tmp_path / "m.json"
        assert main(["train", "-q", "--force", *options, str(path), "-o", str(model)]) == 0
        assert "feature_names" not in load_model(model).doc
        assert load_model(model).doc["coef"] == load_model(ref).doc["coef"], options
        assert main(["predict", *options, str(model), str(path)]) == 0
        got, err = _scores(capsys)
        np.testing.assert_array_equal(got, want)
        assert err == ""
    # without the option, predict counts one column too many and says what drops it
    assert main(["predict", str(ref), str(with_id)]) == 2
    err = capsys.readouterr().err
    assert "has 4 feature columns, but the model" in err and "--ignore-column" in err


def test_predict_names_ignore_column_as_the_fix_for_an_unknown_column(tmp_path, capsys):
    """A column that is no feature of the model is still refused by name (scikit-learn's
    rule), and the message gives the option that drops it; so does a text cell."""
    X, y, _ = _named_table(tmp_path)
    a, b, c = (X[:, k].tolist() for k in range(3))
    train = _write_csv(tmp_path / "train.csv", [("label", y), ("a", a), ("b", b), ("c", c)])
    model = tmp_path / "m.json"
    assert main(["train", "-q", str(train), "-o", str(model)]) == 0
    numeric = _write_csv(tmp_path / "numeric.csv", [("id", list(range(len(y)))),
                                                    ("label", y), ("a", a), ("b", b),
                                                    ("c", c), ("user id", y)])
    assert main(["predict", str(model), str(numeric)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert (f"{numeric} (read as csv): columns id, user id are not among the features of "
            f"the model in {model}") in err
    assert err.rstrip().endswith("drop them with --ignore-column id --ignore-column 'user id'")
    text = _write_csv(tmp_path / "text.csv", [("id", [f"u{i}" for i in range(len(y))]),
                                              ("label", y), ("a", a), ("b", b), ("c", c)])
    assert main(["predict", str(model), str(text)]) == 2
    err = capsys.readouterr().err
    assert "column 1 ('id'): not a number 'u0'" in err and "--ignore-column id" in err
    # a feature of the model cannot be ignored: named as missing, with the option
    assert main(["predict", "--ignore-column", "b", str(model), str(train)]) == 2
    err = capsys.readouterr().err
    assert "no column named b, which the model in" in err and "--ignore-column drops b" in err


def _without_roles(model):
    """The model file as written before it recorded its training file's column roles."""
    doc = json.loads(model.read_text())
    del doc["extra"]["columns"]
    model.write_text(json.dumps(doc, indent=1) + "\n")


def test_predict_hint_names_the_id_read_as_the_label_by_position(tmp_path, capsys):
    """``id,clicked,a,b,c`` with no label-named column, scored with a model file that does
    not record the training file's columns (older files): the first column (the id) is
    read as the label by position and the real label is the one column left over; the
    message then also gives the fix that names both, which scores the file."""
    X, y, _ = _named_table(tmp_path)
    a, b, c = (X[:, k].tolist() for k in range(3))
    data = _write_csv(tmp_path / "ads.csv", [("id", list(range(1000, 1000 + len(y)))),
                                             ("clicked", y), ("a", a), ("b", b), ("c", c)])
    model = tmp_path / "m.json"
    assert main(["train", "-q", str(data), "--label-column", "clicked", "--ignore-column",
                 "id", "-o", str(model)]) == 0
    capsys.readouterr()
    _without_roles(model)
    assert main(["predict", str(model), str(data)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert err.rstrip().endswith(
        "drop it with --ignore-column clicked (or, if 'clicked' is the label: --label-column "
        "clicked --ignore-column id; 'id' was read as the label because it comes first)")
    assert main(["predict", "-q", str(model), str(data), "--label-column", "clicked",
                 "--ignore-column", "id"]) == 0
    named = capsys.readouterr().out
    assert main(["predict", "-q", str(model), str(data), "--ignore-column", "clicked"]) == 0
    assert capsys.readouterr().out == named  # both fixes score the same features
    # with a label-named column, nothing was read by position: the plain hint only
    other = _write_csv(tmp_path / "other.csv", [("id", list(range(len(y)))), ("label", y),
                                                ("a", a), ("b", b), ("c", c)])
    assert main(["predict", str(model), str(other)]) == 2
    assert capsys.readouterr().err.rstrip().endswith("drop it with --ignore-column id")


@pytest.mark.parametrize("argv, message", [
    (["--ignore-column", "label"], "--ignore-column label drops the label column ('label', "
                                   "column 1; a column named label is the label unless "
                                   "--label-column names another)"),
    (["--ignore-column", "a", "--label-column", "a"],
     "--ignore-column a drops the label column ('a', column 2; named by --label-column a)"),
    (["--ignore-column", "qid"], "--ignore-column qid drops the query id column ('qid', "
                                 "column 5"),
    (["--ignore-column", "-2", "--qid-column", "qid"], "--ignore-column -2 drops the query "
                                                       "id column ('qid', column 5; named "
                                                       "by --qid-column qid)"),
    (["--ignore-column", "idd"], "--ignore-column idd: no such column (columns: id, label, "
                                 "a, b, c, qid, timestamp)"),
    (["--ignore-column", "7"], "--ignore-column 7: no such column, out of range (7 columns"),
    (["--ignore-column", "-8"], "--ignore-column -8: no such column, out of range"),
    (["--ignore-column", "id", "--ignore-column", "0"],
     "--ignore-column 0 and --ignore-column id are the same column ('id', column 0)"),
    (["--ignore-column", "id", "--ignore-column", "id"],
     "--ignore-column id is given twice ('id', column 0)"),
])
def test_ignore_column_errors_name_the_column_exit_2(argv, message, tmp_path, capsys):
    ads, plain = _ads_table(tmp_path)
    model = tmp_path / "m.json"
    assert main(["train", "-q", "--ignore-column", "id", "--ignore-column", "timestamp",
                 str(ads), "-o", str(model)]) == 0
    for command in (["train", "-q", str(ads), "-o", str(tmp_path / "x.json")],
                    ["predict", str(model), str(ads)],
                    ["evaluate", "--labels", str(ads), "--scores", str(plain)]):
        assert main([*command, *argv]) == 2, command
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1, err
        assert f"birank {command[0]}: error: {ads} (read as csv): {message}" in err, err
    assert not (tmp_path / "x.json").exists()


def test_ignore_column_is_refused_for_libsvm_and_npz_input(tmp_path, capsys, monkeypatch):
    """LIBSVM (streamed, read whole, from standard input) and .npz input have no columns to
    ignore: refused by name on every command that reads them, exit 2."""
    import io

    X, y, _ = _named_table(tmp_path)
    svm = tmp_path / "t.svm"
    dump_svmlight(X, y, svm)
    np.savez(tmp_path / "t.npz", X=X, y=y)
    model = tmp_path / "m.json"
    assert main(["train", "-q", str(svm), "-o", str(model)]) == 0
    ignore = ["--ignore-column", "0"]
    cases = [
        (["train", "-q", str(svm), "-o", str(tmp_path / "x.json")], f"{svm} (read as libsvm)"),
        (["train", "-q", "-m", "oam", str(svm), "-o", str(tmp_path / "x.json")],
         f"{svm} (read as libsvm)"),
        (["predict", str(model), str(svm)], f"{svm} (read as libsvm)"),
        (["evaluate", "--labels", str(svm), "--scores", str(svm)], f"{svm} (read as libsvm)"),
        (["train", "-q", "-", "-o", str(tmp_path / "x.json")], "<stdin> (read as libsvm)"),
        (["train", "-q", str(tmp_path / "t.npz"), "-o", str(tmp_path / "x.json")],
         f"{tmp_path / 't.npz'} (read as npz)"),
        (["datasets", "info", "heart"], "heart"),
    ]
    for argv, where in cases:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(svm.read_bytes())))
        assert main([*argv, *ignore]) == 2, argv
        out, err = capsys.readouterr()
        assert len(err.splitlines()) == 1, err
        assert (f"{where}: --ignore-column applies to CSV, TSV and .npy input" in err), err
    assert not (tmp_path / "x.json").exists()


def test_every_command_with_label_column_takes_ignore_column():
    import argparse

    from birank.cli import build_parser

    found = []

    def walk(parser, path):
        options = {s for a in parser._actions for s in a.option_strings}
        if "--label-column" in options:
            found.append(" ".join(path))
            assert "--ignore-column" in options, path
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, path + [name])

    walk(build_parser(), ["birank"])
    assert set(found) == {"birank train", "birank predict", "birank evaluate",
                          "birank datasets info", "birank active-learn simulate"}, found
    args = build_parser().parse_args(["predict", "m", "d", "--ignore-column", "id",
                                      "--ignore-column", "-1"])
    assert args.ignore_column == ["id", "-1"]


@pytest.mark.parametrize("text, message", [
    # every data line one column short of the header (it was read silently, or failed
    # with an IndexError once a header name pointed past the data's columns)
    ("label,a,b\n1,0.5\n0,1\n", "line 2: 2 column(s) where the header has 3"),
    ("label,a,b,qid\n1,0.5,1\n0,1,2\n", "line 2: 3 column(s) where the header has 4"),
    ("label,a\n1,0.5,3\n0,1,4\n", "line 2: 3 column(s) where the header has 2"),
    # the first data line off, the others as wide as the header: that line is named
    ("label,a,b\n1,0.5\n0,1,2\n1,2,3\n", "line 2: 2 column(s) where the header has 3"),
])
def test_csv_data_lines_wider_or_narrower_than_the_header_name_the_line(
        text, message, tmp_path, capsys):
    data = tmp_path / "t.csv"
    data.write_text(text)
    for argv in (["train", "-q", str(data), "-o", str(tmp_path / "m.json")],
                 ["datasets", "info", str(data)]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "internal error" not in err, err
        assert f"t.csv (read as csv), {message}" in err, err
    assert not (tmp_path / "m.json").exists()


def test_ignore_column_past_the_data_lines_width_names_the_line(tmp_path, capsys):
    data = tmp_path / "t.csv"
    data.write_text("label,a,b,id\n1,0.5,1\n0,1,2\n")
    assert main(["datasets", "info", str(data), "--ignore-column", "id"]) == 2
    err = capsys.readouterr().err
    assert err == ("birank datasets: error: "
                   f"{data} (read as csv), line 2: 3 column(s) where the header has 4\n"), err


def test_forced_numpy_format_on_another_kind_of_file_says_what_the_file_is(tmp_path, capsys):
    X, y = np.arange(12.0).reshape(4, 3), np.array([0.0, 1, 0, 1])
    np.save(tmp_path / "d.npy", np.column_stack([y, X]))
    np.savez(tmp_path / "d.npz", X=X, y=y)
    (tmp_path / "d.svm").write_text("1 1:0.5\n0 2:1\n")
    for name, fmt, actual in [("d.npy", "npz", "npy"), ("d.npz", "npy", "npz"),
                              ("d.svm", "npy", "libsvm"), ("d.svm", "npz", "libsvm")]:
        argv = ["train", "-q", "--format", fmt, str(tmp_path / name),
                "-o", str(tmp_path / "m.json")]
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "internal error" not in err, err
        assert "allow_pickle" not in err, err  # (numpy's advice: never for a data file)
        assert f"{name} (read as {fmt}): not a .{fmt} file" in err, err
        assert f"--format {actual}" in err, err


def test_active_learn_query_says_it_takes_a_libsvm_pool(tmp_path, capsys):
    """A CSV/TSV pool got "line 1: bad label 'qid'" (read as LIBSVM without saying so):
    the format it reads as, what `query` takes, and `simulate` for other formats."""
    pool = tmp_path / "pool.tsv"
    pool.write_text("qid\tlabel\ta\tb\n1\t1\t0.5\t1\n1\t0\t1\t2\n")
    npy = tmp_path / "pool.npy"
    np.save(npy, np.eye(3))
    for path, fmt in ((pool, "tsv"), (npy, "npy")):
        state = tmp_path / "s.json"
        assert main(["active-learn", "query", str(path), "--state", str(state)]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1, err
        assert f"{path} reads as {fmt}; active-learn query takes a LIBSVM pool" in err, err
        assert not state.exists()


def test_train_says_which_column_is_the_label_when_the_header_names_none(tmp_path, capsys):
    """A CSV whose header names no label column ("age,income,clicked") was trained with
    its first column as the label and the real label as a feature, silently: one note names
    the column taken and --label-column (none with -q, none when a column is named label or
    --label-column is given)."""
    ads = tmp_path / "ads.csv"
    ads.write_text("age,income,clicked\n30,1.5,1\n40,2.5,0\n25,1.0,1\n50,3.0,0\n")
    out = str(tmp_path / "m.json")
    assert main(["train", str(ads), "-o", out]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "note:" in line]
    assert notes == [f"note: {ads} (read as csv): the label is column 'age', the first (no "
                     "column is named label, y, target, relevance or rel); --label-column "
                     "COL names another"]
    for argv in (["-q"], ["--label-column", "clicked"], ["--label-column", "age"]):
        assert main(["train", str(ads), "-o", out, "--force", *argv]) == 0
        assert "note:" not in capsys.readouterr().err
    named = tmp_path / "named.csv"
    named.write_text("id,y,a\n1,1,0.5\n2,0,1.5\n")
    assert main(["train", str(named), "-o", out, "--force", "--ignore-column", "id"]) == 0
    assert "note:" not in capsys.readouterr().err


def test_train_c_for_a_model_without_c_names_the_option_given(tmp_path, capsys):
    """-c 1 with a model that has no C (bbr: a radius) was reported as a --param error."""
    data = _tiny_svm(tmp_path / "t.svm", False)
    assert main(["train", "-q", "-m", "bbr", "-c", "1", str(data), "-o",
                 str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("birank train: error: -c/--C: model 'bbr' has no parameter 'C'; "
                          "its parameters are max_iter, radius,"), err
    assert "--param" in err and not (tmp_path / "m.json").exists()
    assert main(["train", "-q", "-m", "bbr", "--param", "C=1", str(data), "-o",
                 str(tmp_path / "m.json")]) == 2
    assert capsys.readouterr().err.startswith("birank train: error: --param: model 'bbr' "
                                              "has no parameter 'C'")


def test_label_and_qid_columns_are_refused_where_the_input_has_no_such_column(tmp_path,
                                                                              capsys):
    """--qid-column on a .npy and --label-column/--qid-column on a .npz were ignored
    silently (a .npy's query id column trained on as a feature, without groups)."""
    X, y = np.arange(12.0).reshape(4, 3), np.array([0.0, 1, 0, 1])
    np.save(tmp_path / "d.npy", np.column_stack([y, X]))
    np.savez(tmp_path / "d.npz", X=X, y=y)
    cases = [("d.npy", ["--qid-column", "1"], "--qid-column applies to CSV and TSV input"),
             ("d.npz", ["--qid-column", "1"], "--qid-column applies to CSV and TSV input"),
             ("d.npz", ["--label-column", "1"],
              "--label-column applies to CSV, TSV and .npy input")]
    for name, option, message in cases:
        assert main(["train", "-q", str(tmp_path / name), *option, "-o",
                     str(tmp_path / "m.json")]) == 2, (name, option)
        err = capsys.readouterr().err
        assert f"{name} (read as {name[2:]}): {message}" in err, err
        assert len(err.splitlines()) == 1, err
    assert not (tmp_path / "m.json").exists()
    # a .npy's label column by number stays
    assert main(["train", "-q", str(tmp_path / "d.npy"), "--label-column", "0", "-o",
                 str(tmp_path / "m.json")]) == 0


# ------------------------------------------------- predict reuses the training file's columns
def test_predict_reads_a_file_with_the_column_roles_of_the_training_file(tmp_path, capsys):
    """`birank train ads.csv --label-column clicked --ignore-column id` then `birank predict
    m.json ads.csv` exited 2 (clicked "not among the features"), with --ignore-column id
    too: the model file records the label, query id and ignored columns by name, and
    predict reads a file so by default; the label may be absent (new data to score)."""
    X, y, qid = _named_table(tmp_path)
    a, b, c = (X[:, k].tolist() for k in range(3))
    ids = [f"ad-{i}" for i in range(len(y))]
    ads = _write_csv(tmp_path / "ads.csv", [("id", ids), ("a", a), ("clicked", y),
                                            ("b", b), ("session", qid), ("c", c)])
    model = tmp_path / "m.json"
    train = ["train", "-q", str(ads), "--label-column", "clicked", "--qid-column", "session",
             "--ignore-column", "id", "-o", str(model)]
    assert main(train) == 0
    doc = load_model(model).doc
    assert doc["extra"]["columns"] == {"label": "clicked", "qid": "session",
                                       "ignored": ["id"]}
    assert doc["feature_names"] == ["a", "b", "c"]
    first = model.read_bytes()
    assert main([*train, "--force"]) == 0
    assert model.read_bytes() == first  # (the same command writes the same file)
    want = X @ doc["coef"] + doc["intercept"]
    new = _write_csv(tmp_path / "new.csv", [("c", c), ("id", ids), ("b", b), ("a", a)])
    stamped = _write_csv(tmp_path / "stamped.csv", [("ts", ids), ("id", ids), ("a", a),
                                                    ("clicked", y), ("b", b), ("c", c)])
    for path, options in ((ads, []), (ads, ["--ignore-column", "id"]), (new, []),
                          (stamped, ["--ignore-column", "ts"]),
                          # options given win; the recorded roles still keep the other
                          # columns out of the features
                          (ads, ["--label-column", "session", "--qid-column", "clicked"]),
                          (ads, ["--ignore-column", "clicked"])):
        assert main(["predict", str(model), str(path), *options]) == 0, (path, options)
        got, err = _scores(capsys)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=str(options))
        assert err == "", err
    # a column the training file did not have is still refused by name
    assert main(["predict", str(model), str(stamped)]) == 2
    assert "column 1 ('ts'): not a number" in capsys.readouterr().err
    # a model file without the record (older files) reads as before
    _without_roles(model)
    assert main(["predict", str(model), str(ads)]) == 2
    assert "not a number 'ad-0'" in capsys.readouterr().err


def test_predict_reads_a_headerless_file_with_the_training_files_column_positions(
        tmp_path, capsys):
    """Without a header the record gives positions and the training file's width: a file
    as wide is read so; one column narrower lacks the label (one note says so, none with
    -q); of another width, as before (its columns counted against the model's)."""
    X, y, _ = _named_table(tmp_path)
    ids = np.arange(1000, 1000 + len(y))
    full = np.c_[ids, X[:, :2], y, X[:, 2]]  # id, a, b, label, c
    np.savetxt(tmp_path / "full.csv", full, delimiter=",", fmt="%.17g")
    np.savetxt(tmp_path / "new.csv", np.delete(full, 3, axis=1), delimiter=",", fmt="%.17g")
    np.save(tmp_path / "full.npy", full)
    np.save(tmp_path / "new.npy", np.delete(full, 3, axis=1))
    for kind in ("csv", "npy"):
        model = tmp_path / f"m_{kind}.json"
        assert main(["train", "-q", str(tmp_path / f"full.{kind}"), "--label-column", "-2",
                     "--ignore-column", "0", "-o", str(model)]) == 0
        doc = load_model(model).doc
        assert doc["extra"]["columns"] == {"label": 3, "qid": None, "ignored": [0],
                                           "n_columns": 5}
        want = X @ doc["coef"] + doc["intercept"]
        for name in ("full", "new"):
            path = tmp_path / f"{name}.{kind}"
            assert main(["predict", str(model), str(path)]) == 0, path
            got, err = _scores(capsys)
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
            notes = err.splitlines()
            assert notes == ([] if name == "full" else [
                f"note: {path} (read as {kind}) has 4 columns, one fewer than the file the "
                f"model in {model} was trained on: read as its columns without the label "
                "(column 3)"]), err
        assert main(["predict", "-q", str(model), str(tmp_path / f"new.{kind}")]) == 0
        assert capsys.readouterr().err == ""
    np.savetxt(tmp_path / "narrow.csv", X, delimiter=",", fmt="%.17g")
    assert main(["predict", str(tmp_path / "m_csv.json"), str(tmp_path / "narrow.csv")]) == 2
    assert "has 2 feature columns, but the model" in capsys.readouterr().err


def test_predict_refuses_a_damaged_column_record_naming_the_model_file(tmp_path, capsys):
    """extra.columns, edited by hand into something else, is named (not a traceback)."""
    ads, _ = _ads_table(tmp_path)
    model = tmp_path / "m.json"
    assert main(["train", "-q", str(ads), "--ignore-column", "id", "--ignore-column",
                 "timestamp", "-o", str(model)]) == 0
    for damaged in ({"label": 1, "qid": None, "ignored": ["id"]}, ["id"],
                    {"label": 9, "qid": None, "ignored": [], "n_columns": 4}):
        doc = json.loads(model.read_text())
        doc["extra"]["columns"] = damaged
        model.write_text(json.dumps(doc))
        assert main(["predict", str(model), str(ads)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"birank predict: error: {model}: extra.columns, the training "
                              "file's column roles, is damaged or was edited: "), err
        assert len(err.splitlines()) == 1


def test_streamed_libsvm_errors_name_the_format_as_the_whole_file_reader(tmp_path, capsys,
                                                                         monkeypatch):
    """predict (and train's online models) read a LIBSVM file on disk in chunks; their
    errors said "t.svm, line 2: ..." where the same file read whole (standard input) says
    "<stdin> (read as libsvm), line 2: ...": now the same words, the file's name aside."""
    import io

    good = tmp_path / "good.svm"
    good.write_text("1 1:1 2:2\n0 1:2 2:1\n")
    model = tmp_path / "m.json"
    assert main(["train", "-q", str(good), "-o", str(model)]) == 0
    bad = {"token.svm": "1 1:1 2:2\n0 1:2 2:x\n", "wide.svm": "1 1:1 2:2\n0 1:2 5:1\n",
           "twice.svm": "1 1:1 1:2\n", "zero.svm": "1 1:1\n0 0:1 2:2\n"}
    commands = {"predict": lambda path: ["predict", str(model), path],
                "train": lambda path: ["train", "-q", "-m", "oam", path, "-o",
                                       str(tmp_path / "o.json")]}
    for name, text in bad.items():
        path = tmp_path / name
        path.write_text(text)
        for command, argv in commands.items():
            if command == "train" and name in ("wide.svm", "zero.svm"):
                continue  # (no model to be wider than, nor a base to keep)
            assert main(argv(str(path))) == 2, (name, command)
            streamed = capsys.readouterr().err
            monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
            assert main(argv("-")) == 2
            whole = capsys.readouterr().err
            assert f"{path} (read as libsvm), line " in streamed, streamed
            if name != "zero.svm":  # (a file's base is known, standard input's is not)
                assert streamed == whole.replace("<stdin>", str(path)), (streamed, whole)


def test_label_and_qid_columns_on_libsvm_input_name_where_each_applies(tmp_path, capsys):
    """A LIBSVM file refused both options as applying to "CSV, TSV and .npy input", but a
    .npy has no query id column (--qid-column is refused there too): each option is named
    with the input it applies to, read whole or in chunks alike."""
    data = _tiny_svm(tmp_path / "t.svm", False)
    model = tmp_path / "m.json"
    assert main(["train", "-q", str(data), "-o", str(model)]) == 0
    messages = {"--qid-column": "--qid-column applies to CSV and TSV input; a LIBSVM file "
                                "has its query ids in qid: fields",
                "--label-column": "--label-column applies to CSV, TSV and .npy input; a "
                                  "LIBSVM file has its label first"}
    for option, message in messages.items():
        for argv in (["train", "-q", str(data), "-o", str(tmp_path / "x.json")],  # whole
                     ["train", "-q", "-m", "oam", str(data), "-o", str(tmp_path / "x.json")],
                     ["predict", str(model), str(data)]):  # (these two: in chunks)
            assert main([*argv, option, "1"]) == 2, argv
            err = capsys.readouterr().err
            assert err == f"birank {argv[0]}: error: {data} (read as libsvm): {message}\n", err


def _big_libsvm(rng, rows, zero_based, wide_line=None):
    """LIBSVM text of ``rows`` rows with qid: (more than the compiled reader's 256 KiB);
    ``wide_line``: that 1-based line holds index 10**9."""
    lines = []
    for i in range(rows):
        idx = np.sort(rng.choice(40, size=8, replace=False)) + (0 if zero_based else 1)
        toks = [f"{rng.integers(3)}", f"qid:{i // 10}"]
        toks += [f"{j}:{rng.normal():.5f}" for j in idx]
        if wide_line == i + 1:
            toks.append("1000000000:1")
        lines.append(" ".join(toks))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("zero_based", [False, True])
def test_a_big_plain_libsvm_file_is_read_in_blocks_with_the_file_s_result(
        tmp_path, monkeypatch, zero_based):
    """The commands read a plain LIBSVM file of 256 KiB and more a block at a time (never its
    whole text): the matrix, labels, groups and index base are those of the same text read
    whole (its gzip copy), and an index past --n-features or a width too large for memory
    still names its line (the text then read for the message)."""
    import gzip

    from birank.cli._common import UserError, read_data
    from birank.datasets import _formats

    rng = np.random.default_rng(3)
    text = _big_libsvm(rng, 9_000, zero_based)
    assert len(text) > 256 << 10
    plain, packed = tmp_path / "d.svm", tmp_path / "d.svm.gz"
    plain.write_bytes(text)
    packed.write_bytes(gzip.compress(text))
    got, ref = {}, {}
    with monkeypatch.context() as m:
        m.setattr(_formats, "read_source", lambda path: pytest.fail("read whole"))
        X, y, q = read_data(str(plain), info=got)
    X2, y2, q2 = read_data(str(packed), info=ref)
    assert got == ref and got["zero_based"] == zero_based
    assert (X != X2).nnz == 0 and X.shape == X2.shape
    assert y.tobytes() == y2.tobytes() and (q == q2).all()

    def message(path, **kwargs):
        with pytest.raises(UserError) as exc:
            read_data(str(path), **kwargs)
        return str(exc.value).replace(str(path), "FILE")

    assert "line " in message(plain, n_features=30)
    assert message(plain, n_features=30) == message(packed, n_features=30)
    wide = tmp_path / "w.svm"
    wide.write_bytes(_big_libsvm(rng, 9_000, zero_based, wide_line=4_321))
    monkeypatch.setattr("birank._memory.available_memory", lambda: 2**30)
    assert message(wide, check_memory=True).startswith(
        "FILE, line 4321 (its feature index is the largest): 1000000")


def test_train_reads_a_big_plain_file_on_the_model_s_threads(tmp_path, monkeypatch, capsys):
    """birank train --param n_jobs=2 parses a plain LIBSVM file on the model's two threads
    (the same arrays as on one); a bad n_jobs is left to the model's own message."""
    from birank.cli._common import read_data
    from birank.datasets import _svmlight

    rng = np.random.default_rng(4)
    path = tmp_path / "d.svm"
    path.write_bytes(_big_libsvm(rng, 9_000, False) * 20)  # (several 4 MiB pieces)
    one = read_data(str(path))
    seen = []
    real = _svmlight._kernel_parse_file

    def spy(fh, zero_based, block_bytes=None, progress=None, n_jobs=None):
        seen.append(n_jobs)
        return real(fh, zero_based, block_bytes, progress, n_jobs)

    monkeypatch.setattr(_svmlight, "_kernel_parse_file", spy)
    two = read_data(str(path), n_jobs=2)
    assert (one[0] != two[0]).nnz == 0 and one[1].tobytes() == two[1].tobytes()
    assert (one[2] == two[2]).all() and seen == [2]
    model = tmp_path / "m.json"
    assert main(["train", "-q", "-m", "ranksvm", "--param", "n_jobs=2", str(path),
                 "-o", str(model)]) == 0
    assert seen[-1] == 2
    assert main(["train", "-q", "-m", "ranksvm", "--param", "n_jobs=0", str(path),
                 "-o", str(tmp_path / "bad.json")]) == 2
    assert seen[-1] is None and "n_jobs" in capsys.readouterr().err
