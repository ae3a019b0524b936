"""birank active-learn, birank reproduce donmez (end to end on generated data) and fetch_letor."""

import json

import numpy as np
import pytest

from birank.cli import main
from birank.datasets import dump_svmlight, fetch_letor, letor_fold_parts


def _letor_like(n_queries, per, seed, n_features=6):
    rng = np.random.default_rng(seed)
    n = n_queries * per
    X = rng.random((n, n_features))
    g = np.repeat(np.arange(1, n_queries + 1), per)
    y = np.digitize(X @ rng.normal(size=n_features) + 0.2 * rng.normal(size=n),
                    np.quantile(X @ np.ones(n_features), [0.6, 0.85]))
    return X, y.astype(float), g


def _write(path, X, y, g):
    path.parent.mkdir(parents=True, exist_ok=True)
    dump_svmlight(X, y, str(path), groups=g)
    return path


def test_active_learn_cli_rounds_files_and_no_overwrite(tmp_path, capsys):
    X, y, g = _letor_like(5, 30, 0)
    pool = _write(tmp_path / "pool.svm", X, y, g)
    test = _write(tmp_path / "test.svm", *_letor_like(3, 30, 1))
    out = tmp_path / "rounds"
    args = [str(pool), "--labels", str(pool), "--test", str(test), "--output", str(out),
            "--rounds", "3", "--per-query", "2", "--initial-per-query", "3"]
    assert main(["active-learn", "simulate"] + args) == 0
    chosen = [np.loadtxt(out / f"round-{t:02d}.txt", dtype=np.int64, ndmin=2)
              for t in range(4)]
    rows = np.concatenate([c[:, 0] for c in chosen])
    assert np.unique(rows).size == rows.size  # never a row twice
    assert all(c.shape[0] == 10 for c in chosen[1:])  # 2 per query, 5 queries
    np.testing.assert_array_equal(chosen[1][:, 1], g[chosen[1][:, 0]])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rounds"][-1]["label_reads"] == rows.size
    # the per-round lines are progress: on stderr (as query/teach), standard output free
    out, err = capsys.readouterr()
    assert out == "" and "round  3:" in err and "MAP" in err
    # never overwritten without --force
    assert main(["active-learn", "simulate"] + args) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["active-learn", "simulate"] + args + ["--force", "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")  # -q: silent


def test_simulate_out_dir_is_the_deprecated_name_of_output(tmp_path, capsys):
    """simulate took its folder as --out-dir where demo and reproduce take --output: now
    --output, with --out-dir kept (hidden from --help) saying once on stderr that it is
    deprecated; both together are refused naming both, exit 2, before any work."""
    X, y, g = _letor_like(3, 10, 0)
    pool = _write(tmp_path / "pool.svm", X, y, g)
    base = ["active-learn", "simulate", str(pool), "--labels", str(pool), "--rounds", "1",
            "--per-query", "1", "--initial-per-query", "2", "-q"]
    assert main([*base, "--out-dir", str(tmp_path / "old")]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        "birank active-learn: warning: --out-dir is deprecated and will be removed in 1.0; "
        "use --output (the same folder)"]
    assert main([*base, "--output", str(tmp_path / "new")]) == 0
    assert capsys.readouterr() == ("", "")
    for name in ("round-00.txt", "round-01.txt"):
        assert (tmp_path / "old" / name).read_text() == (tmp_path / "new" / name).read_text()
    assert main([*base, "--output", str(tmp_path / "a"), "--out-dir", str(tmp_path / "b")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "--out-dir and --output both given" in err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert main(base) == 2
    assert "--output" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["active-learn", "simulate", "--help"])
    help_text = capsys.readouterr().out
    assert "--output" in help_text and "--out-dir" not in help_text


def test_simulate_usage_shows_output_as_required(tmp_path, capsys):
    """simulate's usage showed "[--output OUTPUT]" (optional) though the folder is required:
    argparse cannot require it, --out-dir (deprecated) may give it instead. The usage of
    --help and of an error shows it required; the parse still takes --out-dir alone."""
    import re

    with pytest.raises(SystemExit):
        main(["active-learn", "simulate", "--help"])
    usage = capsys.readouterr().out.split("\n\n")[0]
    assert re.search(r" --output OUTPUT\s", usage) and "[--output" not in usage, usage
    assert "--labels LABELS" in usage and "[--rounds ROUNDS]" in usage  # (the others kept)
    with pytest.raises(SystemExit):  # an argparse error prints the usage too
        main(["active-learn", "simulate", "p", "--labels", "l", "--rounds", "x"])
    usage = capsys.readouterr().err
    assert re.search(r" --output OUTPUT\s", usage) and "[--output" not in usage, usage
    X, y, g = _letor_like(3, 10, 0)
    pool = _write(tmp_path / "pool.svm", X, y, g)
    base = ["active-learn", "simulate", str(pool), "--labels", str(pool), "--rounds", "0",
            "--initial-per-query", "2", "-q"]
    assert main([*base, "--out-dir", str(tmp_path / "old")]) == 0
    assert (tmp_path / "old" / "round-00.txt").exists()
    capsys.readouterr()
    assert main(base) == 2
    assert capsys.readouterr().err == ("birank active-learn: error: --output DIR is required: "
                                       "the folder for the round files\n")


def test_active_learn_cli_initial_rows_and_errors(tmp_path, capsys):
    X, y, g = _letor_like(4, 20, 2)
    pool = _write(tmp_path / "pool.svm", X, y, g)
    labels = tmp_path / "labels.txt"
    labels.write_text("\n".join(str(v) for v in y) + "\n")
    init = tmp_path / "init.txt"
    init.write_text("0\n1\n20\n21\n40\n60\n")
    out = tmp_path / "r"
    assert main(["active-learn", "simulate", str(pool), "--labels", str(labels), "--output", str(out),
                 "--initial", str(init), "--rounds", "1", "--per-query", "1", "--quiet",
                 "--strategy", "uncertain"]) == 0
    assert np.loadtxt(out / "round-00.txt", dtype=np.int64)[:, 0].tolist() == \
        [0, 1, 20, 21, 40, 60]
    short = tmp_path / "short.txt"
    short.write_text("1\n0\n")
    assert main(["active-learn", "simulate", str(pool), "--labels", str(short), "--output",
                 str(tmp_path / "x")]) == 2
    assert "has 2 labels" in capsys.readouterr().err
    noqid = _write(tmp_path / "noqid.svm", X, y, None)
    assert main(["active-learn", "simulate", str(noqid), "--labels", str(labels), "--output",
                 str(tmp_path / "y")]) == 2
    assert "qid" in capsys.readouterr().err


def test_reproduce_donmez_end_to_end_on_generated_data(tmp_path):
    data = tmp_path / "data"
    X, y, g = _letor_like(16, 12, 3, n_features=300)
    y = np.minimum(y * 2, 4)  # graded 0, 2, 4: relevant (>= 3) about 15%
    _write(data / "lambdarank-train" / "rank.train", X, y, g)
    Xa, ya, ga = _letor_like(8, 5, 4, n_features=136)
    _write(data / "tfranking_toy" / "train.txt", Xa, ya, ga)
    _write(data / "tfranking_toy" / "test.txt", *_letor_like(3, 5, 5, n_features=136))
    out = tmp_path / "results"
    assert main(["reproduce", "donmez", "--quick", "--quiet", "--data-home", str(data),
                 "--output", str(out), "--methods", "lossmin", "random",
                 "--skip-missing"]) == 0
    res = json.loads((out / "donmez-quick.json").read_text())
    assert set(res["datasets"]) == {"lambdarank-train", "tfranking_toy"}
    assert set(res["missing"]) == {"OHSUMED", "OHSUMED-rel2", "MQ2008"}
    rec = res["datasets"]["lambdarank-train"]
    runs = rec["runs"]["lossmin"][0]
    assert len(runs["map"]) == 4 and runs["n_labeled"][1] > runs["n_labeled"][0]
    assert runs["oracle_reads"] == runs["n_labeled"][-1]
    md = (out / "donmez-quick.md").read_text()
    assert "Table 1 analogue" in md and "Table 2 analogue" in md and "LossMin" in md
    assert (out / "donmez-fig3-lambdarank-train-quick.png").stat().st_size > 1000


def test_letor_folds_and_local_folder(tmp_path):
    assert letor_fold_parts("MQ2008", fold=1, subset="train") == [0, 1, 2]
    assert letor_fold_parts("MQ2008", fold=1, subset="test") == [4]
    assert letor_fold_parts("OHSUMED", fold=1, subset="vali") == [4]
    assert letor_fold_parts("OHSUMED", fold=3, subset="train") == [0, 3, 4]
    for k in range(1, 6):  # train, vali and test partition the five parts
        for name in ("MQ2008", "OHSUMED"):
            parts = sum((letor_fold_parts(name, fold=k, subset=s) for s in ("train", "vali", "test")), [])
            assert sorted(parts) == [0, 1, 2, 3, 4]
    folder = tmp_path / "letor" / "TD2004" / "Fold2"
    folder.mkdir(parents=True)
    (folder / "train.txt").write_text(
        "0 qid:1 1:0.1 2:0.9 3:0 #docid = G08-1\n1 qid:1 1:0.7 2:0.2 3:1 #docid = G08-2\n"
        "0 qid:4 1:0.3 2:0.3 3:0.5 #docid = G08-3\n")
    X, y, qid = fetch_letor("TD2004", fold=2, subset="train", data_home=str(tmp_path))
    assert X.shape == (3, 3) and y.tolist() == [0, 1, 0] and qid.tolist() == [1, 1, 4]
    with pytest.raises(FileNotFoundError, match="RAR"):
        fetch_letor("TD2003", fold=1, subset="train", data_home=str(tmp_path))
    with pytest.raises(ValueError, match="fold must be"):
        fetch_letor("TD2004", fold=6, subset="train", data_home=str(tmp_path))
    with pytest.raises(ValueError, match="unknown LETOR"):
        fetch_letor("TD2005")
    with pytest.raises(FileNotFoundError, match="not in the cache"):
        fetch_letor("MQ2008", fold=1, subset="test", data_home=str(tmp_path),
                    download_if_missing=False)
