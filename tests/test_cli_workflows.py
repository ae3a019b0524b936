"""The command line one step off the happy path: input formats, evaluation conventions,
human-in-the-loop active learning, papercuts, start-up, and the command-line side of the
reliability guarantees (docs/reliability.md). Every test drives the real ``birank`` entry point in a
subprocess (``python -m birank``) on small files; each docstring says what it pins and how
main at c3714f3 failed it.
"""

import gzip
import json
import math
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

ENV = dict(os.environ, PYTHONWARNINGS="ignore")


def birank(*args, input=None, cwd=None, env=None, check=None):
    """Run ``python -m birank ARGS`` -> CompletedProcess (text)."""
    proc = subprocess.run([sys.executable, "-m", "birank", *map(str, args)], input=input,
                          capture_output=True, text=True, cwd=cwd, env=env or ENV, timeout=600)
    if check is not None:
        assert proc.returncode == check, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def _data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _coef(path):
    return np.array(json.loads(open(path).read())["coef"])


# ---------------------------------------------------------------------------- input (29.1)
def test_sklearn_zero_based_file_csv_npz_compressed_stdin_and_fifo_train(tmp_path):
    """29.1: a file from sklearn's dump_svmlight_file (0-based) trains (main: "pass
    zero_based=True", a Python argument no command had); a CSV with a quoted header and ';'
    trains (main: "bad label '\\"age\\";...'"); .npz trains (main: binary bytes in the
    error); '-' reads stdin (main: "no such file: -"); a FIFO is read (main: "no such file").
    All give the same model as the LIBSVM file, and --zero-based no names the fix."""
    from sklearn.datasets import dump_svmlight_file

    X, y = _data()
    sk = tmp_path / "sk.svm"
    dump_svmlight_file(X, y, str(sk))  # zero_based=True by default
    assert sk.read_text().split()[1].startswith("0:")
    csv = tmp_path / "d.csv"
    csv.write_text('"x0";"x1";"x2";"label"\n'
                   + "".join(f"{a!r};{b!r};{c!r};{t}\n" for (a, b, c), t in zip(X.tolist(), y)))
    np.savez(tmp_path / "d.npz", X=X, y=y)
    with gzip.open(tmp_path / "d.csv.gz", "wt") as fh:
        fh.write(csv.read_text())
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w") as fh:
            fh.write(sk.read_text())

    coefs = []
    for name in ("sk.svm", "d.csv", "d.npz", "d.csv.gz"):
        birank("train", "-m", "wsvm", "--seed", "0", "-q", tmp_path / name, "-o",
               tmp_path / f"{name}.json", check=0)
        coefs.append(_coef(tmp_path / f"{name}.json"))
    birank("train", "-m", "wsvm", "--seed", "0", "-q", "-", "-o", tmp_path / "stdin.json",
           input=sk.read_text(), check=0)
    coefs.append(_coef(tmp_path / "stdin.json"))
    t = threading.Thread(target=feed)
    t.start()
    birank("train", "-m", "wsvm", "--seed", "0", "-q", fifo, "-o", tmp_path / "fifo.json",
           check=0)
    t.join()
    coefs.append(_coef(tmp_path / "fifo.json"))
    # order: sk.svm, csv, npz, csv.gz, stdin, fifo. The same bytes give the same model; the
    # text of sklearn's file rounds X by 1 ulp, which moves wsvm within its tolerance only
    for k in (4, 5):
        np.testing.assert_array_equal(coefs[k], coefs[0])
    for k in (2, 3):
        np.testing.assert_array_equal(coefs[k], coefs[1])
    np.testing.assert_allclose(coefs[1], coefs[0], rtol=0.02)
    bad = birank("train", "-q", sk, "-o", tmp_path / "x.json", "--zero-based", "no", check=2)
    assert "line 1" in bad.stderr and "--zero-based yes" in bad.stderr


def test_csv_columns_without_header_and_junk_named(tmp_path):
    """29.1: --label-column/--qid-column on a header-less TSV give per-query training; binary
    junk is refused naming what was tried (main: the raw bytes in a 'bad label' error)."""
    X, y = _data(30)
    q = np.repeat([7, 8, 9], 10)
    tsv = tmp_path / "d.tsv"
    tsv.write_text("".join(f"{a}\t{qq}\t{t}\t{b}\n" for a, b, qq, t in zip(X[:, 0], X[:, 1], q, y)))
    r = birank("train", "-q", tsv, "-o", tmp_path / "m.json", "--label-column", "2",
               "--qid-column", "1", "--json", check=0)
    info = json.loads(r.stdout)
    assert info["groups"] is True and info["n_features"] == 2 and info["n_samples"] == 30
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 4)
    r = birank("train", junk, "-o", tmp_path / "j.json", check=2)
    assert "LIBSVM" in r.stderr and "CSV" in r.stderr and "\\x" not in r.stderr
    cat = tmp_path / "cat.csv"
    cat.write_text("label,age,job\n1,30,admin\n0,40,tech\n")
    r = birank("train", cat, "-o", tmp_path / "c.json", check=2)
    assert "line 2" in r.stderr and "'job'" in r.stderr and "read as csv" in r.stderr


def test_warnings_are_one_line_naming_the_command(tmp_path):
    # a fit's warning reads like the command's errors, not like Python's (source path and
    # code line); --traceback keeps Python's form
    one = tmp_path / "one.svm"
    one.write_text("1 1:1\n1 1:2\n")
    env = dict(os.environ, PYTHONWARNINGS="")  # (the other tests silence warnings)
    r = birank("train", one, "-o", tmp_path / "m.json", check=0, env=env)
    assert "birank train: warning: RankSVM: no pair of rows has different labels" in r.stderr
    assert ".py:" not in r.stderr and "model.fit" not in r.stderr
    r = birank("--traceback", "train", one, "-o", tmp_path / "m2.json", check=0, env=env)
    assert "UserWarning: RankSVM: no pair" in r.stderr


def test_csv_row_of_another_width_named_by_its_line():
    # numpy's own wording ("at row 3; use `usecols`") is not the reader's: the file line,
    # both widths, and the way out when the first line made a LIBSVM file look like CSV
    from birank.datasets._formats import load_table

    with pytest.raises(ValueError, match=r"t\.csv \(read as csv\), line 5: 2 column\(s\) "
                                         r"where the first data line has 3$"):
        load_table(b"a,b,y\n1,2,0\n# c\n\n3,4\n", "t.csv")
    with pytest.raises(ValueError, match=r"line 2: 1 column\(s\) .* line 2 looks like LIBSVM "
                                         r".*--format libsvm"):
        load_table(b"1,2,3\n-1 1:0.2 2:0.2\n", "f.svm")


# ------------------------------------------------------------------------ evaluation (29.2)
def _three_queries(tmp_path):
    # q1: labels 1 0 1 scored in that order; q2: 0 1; q3: no relevant document
    (tmp_path / "q.svm").write_text("1 qid:1 1:1\n0 qid:1 1:2\n1 qid:1 1:3\n0 qid:2 1:1\n"
                                    "1 qid:2 1:2\n0 qid:3 1:1\n0 qid:3 1:2\n")
    (tmp_path / "s.txt").write_text("0.9\n0.8\n0.7\n0.5\n0.4\n0.3\n0.2\n")
    return tmp_path / "q.svm", tmp_path / "s.txt"


def test_evaluate_counts_queries_without_relevant_as_zero_like_trec_eval(tmp_path):
    """29.2: on 3 queries, one without a relevant document, MAP is trec_eval's (that query
    counts 0) and the report says how many such queries there were and which conventions it
    used (main: MAP over the 2 others only, no note). By hand:
    AP(q1) = (1/1 + 2/3)/2 = 5/6, AP(q2) = 1/2, AP(q3) = 0 -> MAP = 4/9; skip -> 2/3."""
    labels, scores = _three_queries(tmp_path)
    res = json.loads(birank("evaluate", "--labels", labels, "--scores", scores, "--json",
                            "--per-group", check=0).stdout)
    assert res["mean_average_precision"] == pytest.approx(4 / 9, abs=1e-12)
    assert res["groups"] == 3 and res["groups_without_relevant"] == 1
    assert res["conventions"]["no_relevant"] == "counted as 0"
    # pooled and per-query AUC, both labelled. Pooled: 3 positives x 4 negatives, by hand
    # 9 of 12 pairs ordered -> 0.75; per query: q1 (1 of 2) 0.5, q2 0.0, mean 0.25 (2 queries)
    assert res["roc_auc"] == pytest.approx(0.75) and "pooled" in res["roc_auc_scope"]
    assert res["roc_auc_per_group_mean"] == pytest.approx(0.25)
    assert res["roc_auc_per_group_queries"] == 2
    res = json.loads(birank("evaluate", "--labels", labels, "--scores", scores, "--json",
                            "--no-relevant", "skip", check=0).stdout)
    assert res["mean_average_precision"] == pytest.approx(2 / 3, abs=1e-12)
    text = birank("evaluate", "--labels", labels, "--scores", scores, check=0).stdout
    assert "groups_without_relevant" in text and "conventions:" in text


def test_evaluate_letor_preset_matches_the_letor_script_by_hand(tmp_path):
    """29.2: --letor gives the LETOR evaluation script's numbers (main: no such option; its
    NDCG discounts position 2 and scores short queries). LETOR NDCG@3 by hand: q1 ranks gains
    1, 0, 1 -> DCG 1 + 0 + 1/log2(3), ideal 1 + 1 (positions 1-2 undiscounted) -> 0.8155;
    q2 has 2 < 3 documents -> 0; q3 no relevant -> 0; mean 0.27182. Ties in file order: with
    q1's three scores tied, the script's order is the file's, AP(q1) = 5/6 as before."""
    labels, scores = _three_queries(tmp_path)
    res = json.loads(birank("evaluate", "--labels", labels, "--scores", scores, "--json",
                            "--letor", "--k", "3", check=0).stdout)
    ndcg_q1 = (1 + 1 / math.log2(3)) / 2
    assert res["ndcg@3"] == pytest.approx(ndcg_q1 / 3, abs=1e-12)
    assert res["mean_average_precision"] == pytest.approx(4 / 9, abs=1e-12)
    tied = tmp_path / "tied.txt"
    tied.write_text("0.5\n0.5\n0.5\n0.5\n0.4\n0.3\n0.2\n")
    res = json.loads(birank("evaluate", "--labels", labels, "--scores", tied, "--json",
                            "--letor", "--k", "3", check=0).stdout)
    assert res["mean_average_precision"] == pytest.approx((5 / 6 + 1 / 2) / 3, abs=1e-12)
    assert "file order" in res["conventions"]["ties"]
    # linear gains: labels 2 and 1 give gains 2 and 1 (exp: 3 and 1)
    g2 = tmp_path / "g2.svm"
    g2.write_text("1 qid:1 1:1\n2 qid:1 1:2\n")
    two = tmp_path / "two.txt"
    two.write_text("0.9\n0.1\n")
    lin = json.loads(birank("evaluate", "--labels", g2, "--scores", two, "--json",
                            "--ndcg-gain", "linear", "--k", "2", check=0).stdout)
    assert lin["ndcg@2"] == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_evaluate_reads_labels_as_the_api_does(tmp_path):
    """29.2: labels 2/1 are both relevant (label > 0) as in birank.metrics (main re-coded any
    two-valued labels to 0/1: MAP 0.5 on the CLI, 1.0 in the API)."""
    from birank.metrics import mean_average_precision

    f = tmp_path / "l.svm"
    f.write_text("2 qid:1 1:1\n1 qid:1 1:2\n")
    s = tmp_path / "s.txt"
    s.write_text("0.1\n0.9\n")
    res = json.loads(birank("evaluate", "--labels", f, "--scores", s, "--json", check=0).stdout)
    assert res["mean_average_precision"] == 1.0 == mean_average_precision([2, 1], [0.1, 0.9],
                                                                          [1, 1])


# -------------------------------------------------------------------- active learning (29.4)
def _pool(tmp_path, hidden_seed):
    rng = np.random.default_rng(3)
    n = 45
    X = rng.normal(size=(n, 3))
    q = np.repeat([1, 2, 3], 15)
    pool = tmp_path / "pool.svm"
    lines = [f"? qid:{q[i]} " + " ".join(f"{j + 1}:{X[i, j]:.5f}" for j in range(3))
             for i in range(n)]
    lines[1] = lines[1].replace("? ", "", 1)  # an absent label is unlabeled too
    pool.write_text("\n".join(lines) + "\n")
    hidden = np.random.default_rng(hidden_seed).integers(0, 2, size=n)
    return pool, hidden


def _cycle(tmp_path, hidden_seed, taught_rows_labels=None):
    pool, hidden = _pool(tmp_path, hidden_seed)
    state, ask = tmp_path / "state.json", tmp_path / "ask.tsv"
    outs = []
    labels_given = taught_rows_labels if taught_rows_labels is not None else {}
    for _ in range(2):
        birank("active-learn", "query", pool, "--state", state, "-o", ask, "--force",
               "--per-query", "2", "--initial-per-query", "3", "-q", check=0)
        rows = [line.split("\t") for line in ask.read_text().splitlines()
                if not line.startswith("#")]
        outs.append([int(r[0]) for r in rows])
        for r in rows:  # the person: labels from their own list, never from the pool
            labels_given.setdefault(int(r[0]), int(hidden[int(r[0])]))
        ask.write_text("".join(f"{r[0]}\t{r[1]}\t{labels_given[int(r[0])]}\n" for r in rows))
        birank("active-learn", "teach", "--state", state, ask, "-q", check=0)
    return outs, json.loads(state.read_text()), labels_given


def test_active_learn_query_teach_query_never_reads_a_hidden_label(tmp_path):
    """29.4: a person labels through query/teach/query; the pool holds '?' (or no label) and
    the run depends only on the labels taught: changing the hidden labels of every row never
    taught changes nothing (main: `active-learn` needed every label up front, '?' was a bad
    label, and its initial set was drawn by looking at the labels)."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    outs_a, state_a, given = _cycle(a, hidden_seed=0)
    outs_b, state_b, _ = _cycle(b, hidden_seed=99, taught_rows_labels=dict(given))
    assert outs_a == outs_b
    assert len(outs_a[0]) == 9 and len(outs_a[1]) == 6  # 3 then 2 per query
    assert not set(outs_a[0]) & set(outs_a[1])
    assert {int(k) for k in state_a["labels"]} == set(outs_a[0]) | set(outs_a[1])
    helps = birank("active-learn", "simulate", "--help", check=0).stdout
    for opt in ("--rounds", "--per-query", "--above-threshold-weight", "--seed",
                "--initial-per-query"):
        assert opt in helps
    assert helps.count("default") >= 8


# ---------------------------------------------------------------------- papercuts (29.5)
def test_papercuts_refused_before_work_and_did_you_mean(tmp_path):
    """29.5: each used to be silent or late on main: --checkpoint with a batch model was
    ignored; -c 2 --param C=3 used 2; pruned with kernel=rbf trained, then refused to save;
    --modle took the model name as the training file; no `python -m birank`; no --json for
    train / datasets info; no did-you-mean for models and datasets."""
    X, y = _data(20)
    f = tmp_path / "d.svm"
    f.write_text("".join(f"{t} 1:{a} 2:{b}\n" for (a, b, _), t in zip(X, y)))
    out = tmp_path / "m.json"
    r = birank("train", f, "-o", out, "-m", "wsvm", "--checkpoint", tmp_path / "ck", check=2)
    assert "online models only" in r.stderr
    assert "disagree" in birank("train", f, "-o", out, "-c", "2", "--param", "C=3",
                                check=2).stderr
    r = birank("train", f, "-o", out, "-m", "pruned", "--param", "kernel='rbf'", check=2)
    assert "kernel='rbf'" in r.stderr and not out.exists()
    r = birank("train", "--modle", "ranksvm", f, "-o", out, check=2)
    assert "did you mean '--model'" in r.stderr
    assert "did you mean 'ranksvm'" in birank("train", f, "-o", out, "-m", "ranksv",
                                              check=2).stderr
    assert "did you mean 'german.numer'" in birank("datasets", "info", "german_numer",
                                                   check=2).stderr.lower()
    info = json.loads(birank("datasets", "info", f, "--json", check=0).stdout)
    assert info["rows"] == 20
    assert birank("--version", check=0).stdout.startswith("birank")


def test_did_you_mean_never_suggests_a_hidden_deprecated_option(capsys):
    """`birank reproduce gultekin --datadir x` answered "did you mean '--data-dir'?", the
    deprecated name hidden from --help; the current name is suggested instead."""
    from birank.cli import main

    for argv, wanted, hidden in (
            (["reproduce", "gultekin", "--datadir", "x"], "--data-home", "--data-dir"),
            (["active-learn", "simulate", "p", "--labels", "l", "--outdir", "x"], "--output",
             "--out-dir")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert hidden not in err and f"did you mean {wanted!r}" in err, err


def test_did_you_mean_suggests_only_an_option_of_the_command_run(capsys):
    """The suggestion was drawn from every command's options: `reproduce gultekin
    --datasetz x` answered "did you mean '--datasets'?", an option of other reproductions
    that gultekin refuses; now only the options of the command run are suggested (an exact
    option of another command is still said to be one)."""
    from birank.cli import main

    def error(*argv):
        with pytest.raises(SystemExit) as exc:
            main(list(argv))
        assert exc.value.code == 2
        return capsys.readouterr().err

    for argv, foreign in ((["reproduce", "gultekin", "--datasetz", "x"], "--datasets"),
                          (["train", "d.svm", "-o", "m.json", "--labls", "l"], "--labels")):
        err = error(*argv)
        assert f"unrecognized argument {argv[-2]!r}" in err and foreign not in err, err
    assert "did you mean '--datasets'?" in error("reproduce", "khalid", "--datasetz", "x")
    assert "did you mean '--json'?" in error("datasets", "info", "heart", "--jsn")
    assert "an option of another command" in error("train", "d.svm", "-o", "m.json",
                                                   "--labels", "l")


def test_traceback_flag_and_debug_env(tmp_path):
    """29.5: an error is one line by default; `birank --traceback` and BIRANK_DEBUG=1 show
    the Python traceback (main: no way to see it)."""
    missing = tmp_path / "nope.svm"
    r = birank("train", missing, "-o", tmp_path / "m.json", check=2)
    assert "Traceback" not in r.stderr and "no such file" in r.stderr
    r = birank("--traceback", "train", missing, "-o", tmp_path / "m.json")
    assert r.returncode != 0 and "Traceback" in r.stderr
    r = birank("train", missing, "-o", tmp_path / "m.json", env=dict(ENV, BIRANK_DEBUG="1"))
    assert "Traceback" in r.stderr


# ----------------------------------------------------------------- start-up (29.6)
def test_evaluate_imports_only_what_it_needs(tmp_path):
    """29.6: `birank evaluate` does not import scikit-learn (main: it paid for scikit-learn's
    import, about 1 s, through the metrics' validation helper)."""
    X, y = _data(20)
    f = tmp_path / "d.svm"
    f.write_text("".join(f"{t} 1:{a} 2:{b}\n" for (a, b, _), t in zip(X, y)))
    (tmp_path / "s.txt").write_text("".join(f"{v}\n" for v in X[:, 0]))
    code = ("import sys; from birank.cli import main; rc = main(sys.argv[1:]); "
            "print(' '.join(m for m in ('numba', 'sklearn') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code, "evaluate", "--labels", str(f), "--scores",
                        str(tmp_path / "s.txt")], capture_output=True, text=True, env=ENV)
    assert r.returncode == 0 and "sklearn" not in r.stdout.splitlines()[-1].split(), r.stdout
    # nor numba: on a small file every metric is computed with numpy (numba's start-up
    # alone, import and first kernel call, is about 1.2 s)
    assert "numba" not in r.stdout.splitlines()[-1].split(), r.stdout


def test_first_kernel_use_says_once_that_it_compiles(tmp_path):
    """29.6: the first run says once, on stderr, that kernels are being compiled and where
    the cache lives; it says so when a command first needs a kernel, and only then (a small
    binary file is evaluated without kernels, so without the notice)."""
    cache = tmp_path / "cache"
    env = dict(ENV, NUMBA_CACHE_DIR=str(cache))
    rng = np.random.default_rng(0)
    binary, graded = tmp_path / "b.txt", tmp_path / "g.txt"
    binary.write_text("".join(f"{v}\n" for v in rng.integers(0, 2, 50)))
    graded.write_text("".join(f"{v}\n" for v in rng.normal(size=50)))  # 50 levels: Fenwick
    scores = tmp_path / "s.txt"
    scores.write_text("".join(f"{v}\n" for v in rng.normal(size=50)))
    r = birank("evaluate", "--labels", binary, "--scores", scores, env=env, check=0)
    assert "compiling" not in r.stderr, r.stderr
    r = birank("evaluate", "--labels", graded, "--scores", scores, env=env, check=0)
    notice = [line for line in r.stderr.splitlines() if "compiling numba kernels" in line]
    assert len(notice) == 1 and str(cache) in notice[0], r.stderr
    assert "pairwise_accuracy" in r.stdout
    r = birank("evaluate", "--labels", graded, "--scores", scores, env=env, check=0)
    assert "compiling" not in r.stderr, r.stderr  # cached now: said once
    r = birank("evaluate", "--json", "--labels", graded, "--scores", scores,
               env=dict(ENV, NUMBA_CACHE_DIR=str(tmp_path / "other")), check=0)
    assert "compiling" not in r.stderr  # --json keeps stderr for errors only


def test_predict_imports_neither_numba_nor_sklearn(tmp_path):
    """29.6: `birank predict` with a linear model file scores ``X @ coef + intercept`` from
    the file; it must not pay for importing numba (kernels) or scikit-learn (about 1.5 s)."""
    X, y = _data(30)
    f = tmp_path / "d.svm"
    f.write_text("".join(f"{t} 1:{a} 2:{b} 3:{c}\n" for (a, b, c), t in zip(X, y)))
    birank("train", "-q", "-m", "ranksvm", f, "-o", tmp_path / "m.json", check=0)
    code = ("import sys; from birank.cli import main; rc = main(sys.argv[1:]); "
            "print(' '.join(m for m in ('numba', 'sklearn') if m in sys.modules), "
            "file=sys.stderr); sys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code, "predict", str(tmp_path / "m.json"),
                        str(f)], capture_output=True, text=True, env=ENV)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.split()) == 30  # one score a row: the command did its work
    assert "numba" not in r.stderr and "sklearn" not in r.stderr, r.stderr  # (and progress)


# ------------------------------------------------------------ reliability guarantees
def test_absurd_feature_index_refused_before_allocating(tmp_path):
    """24.3: `1 2147483646:0.5` made a two-line file that was OOM-killed at 22 GB on main; now
    the memory estimate refuses it naming the line and --n-features; the API has the guard."""
    import scipy.sparse as sp

    from birank import RankSVM

    f = tmp_path / "big.svm"
    f.write_text("1 2147483646:0.5\n-1 1:0.2\n")
    r = birank("train", f, "-o", tmp_path / "m.json", check=2)
    assert "line 1" in r.stderr and "--n-features" in r.stderr and "GiB" in r.stderr
    X = sp.csr_matrix((np.array([0.5, 0.2]), np.array([2147483645, 0]), np.array([0, 1, 2])),
                      shape=(2, 2147483646))
    with pytest.raises(ValueError, match="GiB"):
        RankSVM().fit(X, [1, -1])


def test_file_with_huge_values_is_refused_not_trained_to_zero(tmp_path):
    """24.4: a file with `1:1e308` trained with exit 0 on main and wrote coef [0, 0]; now the
    scale check refuses it (exit 2, a hint to scale the features) and writes no model."""
    f = tmp_path / "huge.svm"
    f.write_text("1 1:1e308 2:1\n-1 1:0.5 2:-1\n1 1:2 2:0.3\n-1 1:-1 2:0.2\n")
    for model in ("ranksvm", "oam"):
        r = birank("train", "-q", "-m", model, f, "-o", tmp_path / "m.json", check=2)
        assert "Scale the features" in r.stderr and "1e+308" in r.stderr, r.stderr
    assert not (tmp_path / "m.json").exists()


def test_resume_refuses_a_changed_file_or_changed_options(tmp_path):
    """24.5: after a checkpoint, shuffling the training file or passing another --param and
    resuming exited 0 on main with a mixed model; now both are refused (--force continues
    with a changed --param, with a warning, and applies it), while a file that only grew
    resumes. Options that fix how the file is cut and read or the stream's random state
    (--chunk-size, --seed) are refused even with --force."""
    X, y = _data(60)
    f = tmp_path / "d.svm"
    lines = [f"{2 * t - 1} 1:{a} 2:{b} 3:{c}\n" for (a, b, c), t in zip(X, y)]
    f.write_text("".join(lines[:30]))
    ck = tmp_path / "ck.pkl"
    base = ["train", "-q", "-m", "oam", f, "--chunk-size", "10", "--checkpoint", ck,
            "--checkpoint-every", "1", "--seed", "0"]
    birank(*base, "-o", tmp_path / "m0.json", check=0)  # 3 chunks consumed
    f.write_text("".join(lines))  # the file grew: the consumed part is unchanged
    r = birank(*base, "-o", tmp_path / "m1.json", "--resume", "--param", "C=100")
    assert r.returncode == 2 and "options differ" in r.stderr and "C" in r.stderr
    for other in (["--chunk-size", "7"], ["--seed", "1"], ["--zero-based", "yes"]):
        changed = [*base, *other] if other[0] != "--chunk-size" else \
            [*base[:base.index("--chunk-size")], *other, *base[base.index("--chunk-size") + 2:]]
        r = birank(*changed, "-o", tmp_path / "mx.json", "--resume", "--force")
        assert r.returncode == 2 and "cannot change on resume" in r.stderr, (other, r.stderr)
    assert not (tmp_path / "mx.json").exists()
    r = birank(*base, "-o", tmp_path / "m2.json", "--resume", "--param", "C=100", "--force")
    assert r.returncode == 0 and "warning" in r.stderr
    assert json.loads((tmp_path / "m2.json").read_text())["params"]["C"] == 100
    f.write_text("".join(lines[:30]))
    # a fresh run does not replace an existing checkpoint unless asked (--force)
    r = birank(*base, "-o", tmp_path / "m3.json")
    assert r.returncode == 2 and "--resume to continue" in r.stderr
    birank(*base, "-o", tmp_path / "m3.json", "--force", check=0)  # a fresh checkpoint
    f.write_text("".join(lines))
    birank(*base, "-o", tmp_path / "m4.json", "--resume", check=0)
    f.write_text("".join(lines[:30]))
    birank(*base, "-o", tmp_path / "m5.json", "--force", check=0)
    f.write_text("".join(lines[::-1]))  # shuffled (and longer)
    r = birank(*base, "-o", tmp_path / "m6.json", "--resume")
    assert r.returncode == 2 and "changed" in r.stderr and not (tmp_path / "m6.json").exists()


def test_outputs_exclusive_fifo_symlink_closed_stdout_and_checkpoint_cleanup(tmp_path):
    """24.7: overwrite=False was check-then-replace (5 of 40 concurrent writers 'succeeded'),
    `-o fifo --force` replaced the FIFO with a file, `-o link --force` replaced the link, a
    closed stdout gave a traceback (`train -o -` too), `--checkpoint DIR` trained fully and
    then failed, a Ctrl-C while checkpointing left `.ck.pkl.PID.tmp`."""
    from birank.model_io import atomic_write_text

    target = tmp_path / "race.txt"
    wins, barrier = [], threading.Barrier(40)

    def write(k):
        barrier.wait()
        try:
            atomic_write_text(target, f"{k}\n")
            wins.append(k)
        except FileExistsError:
            pass

    threads = [threading.Thread(target=write, args=(k,)) for k in range(40)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert len(wins) == 1 and target.read_text() == f"{wins[0]}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["race.txt"]

    X, y = _data(20)
    f = tmp_path / "d.svm"
    f.write_text("".join(f"{t} 1:{a} 2:{b}\n" for (a, b, _), t in zip(X, y)))
    m = tmp_path / "m.json"
    birank("train", "-q", "-m", "wsvm", f, "-o", m, check=0)
    fifo = tmp_path / "scores.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    birank("predict", m, f, "-o", fifo, "--force", check=0)
    reader.join()
    assert len(got[0].split()) == 20 and os.path.exists(fifo) and not os.path.isfile(fifo)
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    birank("predict", m, f, "-o", link, "--force", check=0)
    assert link.is_symlink() and len(real.read_text().split()) == 20
    for cmd in (f"predict {m} {f}", f"train -q -m wsvm {f} -o -"):
        r = subprocess.run(f"{sys.executable} -m birank {cmd} >&-", shell=True,
                           capture_output=True, text=True, env=ENV)
        assert r.returncode == 2 and "standard output is closed" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr

    # --checkpoint naming a folder: refused before any work (main trained fully, then failed)
    r = birank("train", "-m", "oam", f, "-o", tmp_path / "o.json", "--checkpoint", tmp_path)
    assert r.returncode == 2 and "is a directory" in r.stderr and "trained" not in r.stderr
    # Ctrl-C while the checkpoint is written, in the real entry point: exit 130, no .tmp left
    ck = tmp_path / "ckpt"
    ck.mkdir()
    code = ("import sys, pickle\n"
            "def interrupted(*a, **k):\n"
            "    raise KeyboardInterrupt\n"
            "pickle.dump = interrupted\n"
            "from birank.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    r = subprocess.run([sys.executable, "-c", code, "train", "-q", "-m", "oam", str(f), "-o",
                        str(ck / "o.json"), "--checkpoint", str(ck / "ck.pkl")],
                       capture_output=True, text=True, env=ENV)
    assert r.returncode == 130 and "interrupted" in r.stderr, r.stderr
    assert sorted(p.name for p in ck.iterdir()) == []  # no checkpoint, no .ck.pkl.PID.tmp


def test_predict_streams_libsvm_in_chunks(tmp_path, monkeypatch, capsys):
    """24.9: predict read the whole file (3.5x its size in memory on main); a LIBSVM file
    is now scored chunk by chunk (the whole-file reader is never called) with the same
    scores, and a 0-based training file's base is remembered for predict."""
    from sklearn.datasets import dump_svmlight_file

    from birank.cli import main
    from birank.datasets import _formats

    X, y = _data(50)
    f = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(f))  # 0-based
    m = tmp_path / "m.json"
    birank("train", "-q", "-m", "wsvm", f, "-o", m, check=0)
    whole = birank("predict", m, f, check=0).stdout
    chunked = birank("predict", m, f, "--chunk-size", "7", check=0).stdout
    assert whole == chunked and len(whole.split()) == 50

    def no_whole_read(*a, **k):
        raise AssertionError("predict read the whole file")

    monkeypatch.setattr(_formats, "read_source", no_whole_read)
    assert main(["predict", str(m), str(f), "--chunk-size", "7"]) == 0
    assert capsys.readouterr().out == whole


def test_reader_refuses_underscores_and_fullwidth_digits_and_reads_cr_only(tmp_path):
    """24.11: `1 1_0:0.5` was read as index 10 and full-width digits as digits (Python's int
    and float accept both); a CR-only file gave "bad feature token '-1'". Now the first two are
    refused naming line and token, the third reads as two rows."""
    for text, token in (("1 1_0:0.5\n-1 1:1\n", "1_0:0.5"),
                        ("1 \uff11:0.5\n-1 1:1\n", "\uff11:0.5")):
        f = tmp_path / "bad.svm"
        f.write_text(text, encoding="utf-8")
        r = birank("datasets", "info", f, check=2)
        assert "line 1" in r.stderr and token in r.stderr
    cr = tmp_path / "cr.svm"
    cr.write_bytes(b"1 1:0.5\r-1 2:1\r1 1:2\r")
    info = json.loads(birank("datasets", "info", cr, "--json", check=0).stdout)
    assert info["rows"] == 3 and info["features"] == 2


def _as_nobody():
    """The setpriv prefix that runs this interpreter as uid 65534, or None (not root, no
    setpriv). Where that user cannot reach the interpreter (it lives in root's private
    folder), the process keeps one capability, CAP_DAC_READ_SEARCH: it may read and traverse
    any folder, but every write is still checked against uid 65534."""
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/setpriv"):
        return None
    cmd = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    path = os.path.realpath(sys.executable)
    parts = path.split(os.sep)
    reachable = all(os.stat(os.sep.join(parts[:k]) or os.sep).st_mode & 0o001
                    for k in range(1, len(parts))) and os.stat(path).st_mode & 0o001
    if not reachable:
        cmd += ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
    probe = subprocess.run([*cmd, sys.executable, "-c", "import os; print(os.getuid())"],
                           capture_output=True, text=True)
    return cmd if probe.stdout.split() == ["65534"] else None


def test_unwritable_numba_cache_warns_once_and_works(tmp_path):
    """24.1: with no writable cache location (non-root user, read-only install, HOME=/nonexistent,
    read-only NUMBA_CACHE_DIR) `import birank` raised "cannot cache function 'two_values': no
    locator available" on main. Now one RuntimeWarning, a working fit, and the temporary cache
    folder is removed at exit. As root the test runs as uid 65534 through setpriv (the
    installed package and numba's in-tree caches are root's, so unwritable for it); only where
    no such user can be made (not root) is every cache write numba tries made to fail with
    EACCES instead."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    tmp_path.chmod(0o755)
    fit = ("import os, warnings, numpy as np\n"
           "with warnings.catch_warnings(record=True) as w:\n"
           "    warnings.simplefilter('always')\n"
           "    from birank import RankSVM\n"
           "from birank._kernels import cache_dir\n"
           "X = np.random.default_rng(0).normal(size=(30, 3)); y = (X[:, 0] > 0).astype(int)\n"
           "c = RankSVM().fit(X, y).coef_\n"
           "print(sum('numba cache' in str(x.message) for x in w), bool(c[0] > 0), os.getuid(),"
           " os.path.dirname(cache_dir()))\n")
    env = dict(os.environ, HOME="/nonexistent", NUMBA_CACHE_DIR=str(ro), PYTHONWARNINGS="")
    nobody = _as_nobody()
    if nobody is not None:
        cmd = [*nobody, sys.executable, "-c", fit]
    else:
        deny = ("import tempfile\n_real = tempfile.TemporaryFile\n"
                "def _deny(*a, dir=None, **k):\n"
                "    if dir is not None and 'birank-numba-cache-' not in str(dir):\n"
                "        raise PermissionError(13, 'Permission denied', dir)\n"
                "    return _real(*a, dir=dir, **k)\n"
                "tempfile.TemporaryFile = _deny\n")
        cmd = [sys.executable, "-c", deny + fit]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    count, positive, uid, folder = r.stdout.split()
    assert [count, positive] == ["1", "True"], r.stdout + r.stderr
    if nobody is not None:
        assert uid == "65534"
    assert "birank-numba-cache-" in folder and not os.path.exists(folder)  # removed at exit


def test_evaluate_reads_scores_piped_from_predict(tmp_path):
    """29.1: `birank predict M DATA | birank evaluate --labels DATA --scores -` (main: "no such
    file: -" for the scores); two inputs on standard input are refused by name."""
    X, y = _data(30)
    f = tmp_path / "d.svm"
    f.write_text("".join(f"{t} qid:{i // 10} 1:{a} 2:{b}\n"
                         for i, ((a, b, _), t) in enumerate(zip(X, y))))
    birank("train", "-q", "-m", "wsvm", "--no-groups", f, "-o", tmp_path / "m.json", check=0)
    scores = birank("predict", tmp_path / "m.json", f, check=0).stdout
    (tmp_path / "s.txt").write_text(scores)
    piped = json.loads(birank("evaluate", "--labels", f, "--scores", "-", "--json",
                              input=scores, check=0).stdout)
    filed = json.loads(birank("evaluate", "--labels", f, "--scores", tmp_path / "s.txt",
                              "--json", check=0).stdout)
    assert piped == filed and piped["rows"] == 30 and "within a query" in piped["conventions"][
        "pairs"]
    r = birank("evaluate", "--labels", "-", "--scores", "-", input=scores, check=2)
    assert "--labels and --scores" in r.stderr


def test_every_option_has_help_stating_its_default():
    """29.4/29.5: every option of every command (the reproductions' too) has help text, and
    an option with a value default says it (main: active-learn's --rounds, --per-query, --lam,
    --seed, --initial-*, the reproductions' --seed and `datasets fetch --subset` had none)."""
    import argparse

    from birank.cli import build_parser

    missing = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, path + [name])
            elif action.option_strings and not isinstance(
                    action, (argparse._HelpAction, argparse._VersionAction)):
                if not action.help:
                    missing.append((path, action.option_strings))
                    continue
                valued = not isinstance(action.default, bool) and action.default not in (None, [])
                line = parser._get_formatter()._get_help_string(action)
                if valued and "default" not in line.lower():
                    missing.append((path, action.option_strings, line))

    walk(build_parser(["reproduce"]), ["birank"])
    assert missing == []
    text = birank("reproduce", "lin-jan-lin", "--help", check=0).stdout
    assert "-q, --quiet" in text and "--no-progress" in text



def test_help_lines_fit_a_terminal(monkeypatch):
    """`birank evaluate --help` and `active-learn simulate --help` printed the input-files
    paragraph (and simulate its description) as one line of 200-250 characters (their raw
    description formatter), `train --help` the 17 model names twice on one 231-character
    option line, and `reproduce donmez --help` its --datasets/--methods choices on lines of
    100-171 characters."""
    import argparse

    from birank.cli import build_parser

    monkeypatch.setenv("COLUMNS", "80")
    long = []

    def walk(parser, path):
        long.extend((" ".join(path), line) for line in parser.format_help().splitlines()
                    if len(line) > 100)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, path + [name])

    walk(build_parser(["reproduce"]), ["birank"])
    assert long == []
    text = build_parser(["train"])._subparsers._group_actions[0].choices["train"].format_help()
    assert "ranksvm-hinge" in text and "(default: ranksvm)" in text
    # (the choices are still listed, in the option's help)
    text = " ".join(birank("reproduce", "donmez", "--help", check=0).stdout.split())
    assert "one or more of OHSUMED, OHSUMED-rel2, MQ2008, lambdarank-train," in text
    assert "one or more of lossmin, entropy, uncertain, diverse, random" in text


def test_active_learn_query_takes_the_index_base(tmp_path):
    """29.1 on active-learn query: a 0-based pool (sklearn's default) is read as written under
    auto and yes, and --zero-based no refuses its index 0 by name."""
    from birank.cli import UserError
    from birank.cli._active_learn import read_pool

    pool = tmp_path / "pool.svm"
    pool.write_text("? qid:1 0:1 1:2\n? qid:1 0:3\n1 qid:2 1:4\n")
    for base in ("auto", "yes"):
        X, y, q, _ = read_pool(str(pool), base)
        assert X.shape == (3, 2) and X[1, 0] == 3 and np.isnan(y[:2]).all() and y[2] == 1
    with pytest.raises(UserError, match="index 0"):
        read_pool(str(pool), "no")
    one = tmp_path / "one.svm"
    one.write_text("? qid:1 1:1 2:2\n")
    assert read_pool(str(one), "no")[0].toarray().tolist() == [[1.0, 2.0]]
    assert read_pool(str(one), "yes")[0].toarray().tolist() == [[0.0, 1.0, 2.0]]
