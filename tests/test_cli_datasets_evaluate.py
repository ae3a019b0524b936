"""`birank datasets ...` and `birank evaluate` through birank.cli.main."""

import http.server
import json
import lzma
import re
import threading
from importlib import resources

import numpy as np
import pytest

from birank.cli import main
from birank.datasets import dump_svmlight, load_tfranking_toy
from birank.metrics import (
    kendall_tau,
    mean_average_precision,
    ndcg_at_k,
    optroc_accuracy,
    pairwise_accuracy,
    roc_auc,
)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_datasets_list(capsys, tmp_path):
    code, out, err = run(capsys, "datasets", "list", "--data-home", str(tmp_path))
    assert code == 0 and err == ""
    for name in ("heart", "a9a", "tfranking_toy", "covtype.binary", "url", "letter", "housing"):
        assert name in out
    assert "32561" in out and "not on LIBSVM" in out


def test_datasets_info_bundled_and_file(capsys, tmp_path):
    code, out, _ = run(capsys, "datasets", "info", "heart")
    assert code == 0
    assert "rows      270" in out and "features  13" in out and "-1: 150, 1: 120" in out
    X, y, g = load_tfranking_toy()
    path = tmp_path / "toy.txt"
    dump_svmlight(X, y, path, groups=g)
    code, out, _ = run(capsys, "datasets", "info", str(path))
    assert code == 0 and "rows      119" in out and "groups    27" in out


def test_datasets_info_errors(capsys, tmp_path):
    code, out, err = run(capsys, "datasets", "info", "no-such-thing")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "neither an existing file nor a dataset name" in err
    code, _, err = run(capsys, "datasets", "info", "covtype.binary", "--data-home", str(tmp_path))
    assert code == 2 and "birank datasets fetch covtype.binary" in err
    bad = tmp_path / "bad.txt"
    bad.write_text("1 1:1\n0 1:zz\n")
    code, _, err = run(capsys, "datasets", "info", str(bad))
    assert code == 2 and "line 2" in err and err.count("\n") == 1


@pytest.fixture
def heart_server(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    body = lzma.decompress(
        (resources.files("birank.datasets") / "data" / "heart_scale.xz").read_bytes())

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            if self.path != "/binary/heart_scale":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def test_datasets_fetch(capsys, tmp_path, heart_server):
    code, out, err = run(capsys, "datasets", "fetch", "heart", "--data-home", str(tmp_path),
                         "--base-url", heart_server)
    assert code == 0 and "binary__heart_scale" in out
    code, out, _ = run(capsys, "datasets", "info", "heart", "--data-home", str(tmp_path))
    assert code == 0  # bundled name wins; the cached copy is used by fetch_libsvm
    code, _, err = run(capsys, "datasets", "fetch", "german.numer", "--data-home",
                       str(tmp_path), "--base-url", heart_server)
    # pooch's "Downloading ..." line, then exactly one error line, no traceback
    last = err.strip().splitlines()[-1]
    assert code == 2 and last.startswith("birank datasets: error:") and "404" in last
    assert "Traceback" not in err and err.count("error") == 1
    code, _, err = run(capsys, "datasets", "fetch", "bank")
    assert code == 2 and "UCI Bank Marketing" in err


def test_datasets_fetch_progress_quiet_and_no_pooch_advice(capsys, tmp_path, heart_server):
    # no download progress, -q refused, and pooch's "Use this value as the 'known_hash'
    # argument of 'pooch.retrieve'" (advice for pooch's callers, not for birank's users)
    import logging

    import pooch

    records = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append
    pooch.get_logger().addHandler(handler)
    try:
        code, out, err = run(capsys, "datasets", "fetch", "heart", "--data-home",
                             str(tmp_path / "a"), "--base-url", heart_server)
    finally:
        pooch.get_logger().removeHandler(handler)
    assert code == 0 and "binary__heart_scale" in out
    assert "downloading heart_scale" in err and "KiB" in err and "known_hash" not in err
    assert not [r for r in records if "known_hash" in r.getMessage()]
    code, out, err = run(capsys, "datasets", "fetch", "-q", "heart", "--data-home",
                         str(tmp_path / "b"), "--base-url", heart_server)
    assert code == 0 and "binary__heart_scale" in out and err == ""


def _write(path, values):
    path.write_text("\n".join(str(v) for v in values) + "\n")
    return str(path)


def test_evaluate_binary_plain_files(capsys, tmp_path):
    rng = np.random.default_rng(0)
    y = rng.choice([-1, 1], 300)
    s = rng.integers(0, 10, 300) / 10
    lab, sc = _write(tmp_path / "y.txt", y), _write(tmp_path / "s.txt", s)
    code, out, _ = run(capsys, "evaluate", "--labels", lab, "--scores", sc, "--json")
    assert code == 0
    res = json.loads(out)
    assert res["roc_auc"] == pytest.approx(roc_auc(y, s), abs=1e-12)
    assert res["optroc_accuracy"] == pytest.approx(optroc_accuracy(y, s), abs=1e-12)
    assert res["pairwise_accuracy"] == pytest.approx(roc_auc(y, s), abs=1e-12)
    assert "mean_average_precision" not in res  # no groups
    code, out, _ = run(capsys, "evaluate", "--labels", lab, "--scores", sc)
    assert code == 0 and out.startswith("rows") and "roc_auc" in out


def test_evaluate_graded_with_groups_and_libsvm_labels(capsys, tmp_path):
    X, y, g = load_tfranking_toy()
    rng = np.random.default_rng(1)
    s = rng.standard_normal(len(y)).round(3)
    svm = tmp_path / "toy.txt"
    dump_svmlight(X, y, svm, groups=g)
    sc = _write(tmp_path / "s.txt", s)
    code, out, _ = run(capsys, "evaluate", "--labels", str(svm), "--scores", sc, "--json")
    assert code == 0
    res = json.loads(out)
    assert "roc_auc" not in res and res["groups"] == 27
    assert res["pairwise_accuracy"] == pytest.approx(pairwise_accuracy(y, s, groups=g))
    assert res["kendall_tau"] == pytest.approx(kendall_tau(y, s, groups=g))
    # the CLI counts a query without relevant rows as 0 (trec_eval, LETOR): no_relevant="zero"
    assert res["mean_average_precision"] == pytest.approx(
        mean_average_precision(y, s, g, no_relevant="zero"))
    assert res["ndcg@10"] == pytest.approx(ndcg_at_k(y, s, g, k=10, no_relevant="zero"))
    # a separate groups file (string ids) gives the same result
    gfile = _write(tmp_path / "g.txt", [f"q{v}" for v in g])
    lab = _write(tmp_path / "y.txt", y)
    code, out, _ = run(capsys, "evaluate", "--labels", lab, "--scores", sc, "--groups", gfile,
                       "--json", "--k", "5")
    res2 = json.loads(out)
    assert res2["mean_average_precision"] == pytest.approx(res["mean_average_precision"])
    assert res2["ndcg@5"] == pytest.approx(ndcg_at_k(y, s, g, k=5, no_relevant="zero"))


def test_evaluate_errors(capsys, tmp_path):
    lab = _write(tmp_path / "y.txt", [0, 1, 1])
    code, _, err = run(capsys, "evaluate", "--labels", lab, "--scores",
                       _write(tmp_path / "s.txt", [0.1, 0.2]))
    assert code == 2 and "has 2 scores but" in err and err.count("\n") == 1
    code, _, err = run(capsys, "evaluate", "--labels", lab, "--scores",
                       _write(tmp_path / "s2.txt", [0.1, "x", 0.3]))
    assert code == 2 and "s2.txt, line 2: bad score 'x'" in err
    code, _, err = run(capsys, "evaluate", "--labels", lab, "--scores",
                       _write(tmp_path / "s3.txt", [0.1, "nan", 0.3]))
    assert code == 2 and "line 2" in err
    code, _, err = run(capsys, "evaluate", "--labels", str(tmp_path / "missing"), "--scores",
                       lab)
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, "evaluate", "--labels", _write(tmp_path / "c.txt", [1, 1, 1]),
                       "--scores", _write(tmp_path / "s4.txt", [1, 2, 3]))
    assert code == 2 and "single value" in err


def test_evaluate_says_which_column_is_the_label_when_the_header_names_none(capsys,
                                                                           tmp_path):
    """--labels ads.csv whose header names no label column ("age,income,clicked") took
    the first column as the labels silently; one note now names it, as `birank train`
    gives (none when a column is named label, ... or --label-column is given)."""
    ads = tmp_path / "ads.csv"
    ads.write_text("age,income,clicked\n30,1.5,1\n40,2.5,0\n25,1.0,1\n50,3.0,0\n")
    scores = _write(tmp_path / "s.txt", [1, 2, 3, 4])
    for extra in ([], ["--json"]):
        code, out, err = run(capsys, "evaluate", "--labels", str(ads), "--scores", scores,
                             *extra)
        assert code == 0 and out
        assert err.splitlines() == [
            f"note: {ads} (read as csv): the label is column 'age', the first (no column is "
            "named label, y, target, relevance or rel); --label-column COL names another"]
    code, out, err = run(capsys, "evaluate", "--labels", str(ads), "--scores", scores,
                         "--label-column", "clicked", "--json")
    assert code == 0 and err == "" and json.loads(out)["roc_auc"] == 0.25
    named = tmp_path / "named.csv"
    named.write_text("age,label\n30,1\n40,0\n25,1\n50,0\n")
    code, out, err = run(capsys, "evaluate", "--labels", str(named), "--scores", scores)
    assert code == 0 and err == ""


def test_datasets_info_says_which_column_is_the_label_when_the_header_names_none(capsys,
                                                                                tmp_path):
    """`datasets info ads.csv` whose header names no label column took the first column as
    the label silently; the note train and evaluate give now comes on stderr (--json keeps
    stdout pure JSON), none when --label-column names the label."""
    ads = tmp_path / "ads.csv"
    ads.write_text("age,income,clicked\n30,1.5,1\n40,2.5,0\n")
    for extra in ([], ["--json"]):
        code, out, err = run(capsys, "datasets", "info", str(ads), *extra)
        assert code == 0 and out
        assert err.splitlines() == [
            f"note: {ads} (read as csv): the label is column 'age', the first (no column is "
            "named label, y, target, relevance or rel); --label-column COL names another"]
    assert json.loads(out)["labels"] == {"30": 1, "40": 1}
    code, out, err = run(capsys, "datasets", "info", str(ads), "--label-column", "clicked",
                         "--json")
    assert code == 0 and err == "" and json.loads(out)["labels"] == {"0": 1, "1": 1}


def test_a_missing_file_is_named_alike_by_every_command(capsys, tmp_path):
    """evaluate said "X: no such file." where train, predict and active-learn say "no such
    file: X": one form for every file evaluate reads (labels, scores, groups; the labels
    streamed when large too)."""
    from birank.cli import _stream

    missing = str(tmp_path / "nope.txt")
    there = _write(tmp_path / "s.txt", [0.1, 0.2, 0.3])
    for argv in (["train", missing, "-o", str(tmp_path / "m.json")],
                 ["evaluate", "--labels", missing, "--scores", there],
                 ["evaluate", "--labels", there, "--scores", missing],
                 ["evaluate", "--labels", there, "--scores", there, "--groups", missing],
                 ["evaluate", "--labels", there, "--scores", there, "--query-file", missing]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "", argv
        assert err == f"birank {argv[0]}: error: no such file: {missing}\n", err
    with pytest.raises(Exception, match=f"^no such file: {re.escape(missing)}$"):
        _stream.open_stream(missing)


def test_datasets_info_names_standard_input_as_the_other_commands(capsys, tmp_path,
                                                                  monkeypatch):
    """`birank datasets info -` reported its source as "-" (in its text and --json): now
    "<stdin>", as errors and notes of every command name it."""
    import io

    text = b"1 1:0.5 2:1\n0 2:2\n"
    for extra in ([], ["--json"]):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
        code, out, _ = run(capsys, "datasets", "info", "-", *extra)
        assert code == 0
        source = json.loads(out)["source"] if extra else out.splitlines()[0]
        assert source == "<stdin>"


def test_datasets_list_and_info_find_a_download_where_the_fetcher_keeps_it(
        capsys, tmp_path, monkeypatch):
    """`datasets list` (its cached column) and `datasets info NAME` built the cache path
    themselves (the file's path on the mirror with '/' as '__'): they now ask the fetcher's
    own rule, so they follow it wherever it keeps a download."""
    from birank.datasets import _fetch

    def elsewhere(cache_dir, remote):  # another layout than the one the CLI copied
        return str(tmp_path / "libsvm" / "v2" / remote)

    monkeypatch.setattr(_fetch, "_cache_file", elsewhere)
    path = tmp_path / "libsvm" / "v2" / "binary" / "svmguide3"
    path.parent.mkdir(parents=True)
    path.write_text("1 1:0.5 22:1\n-1 2:1\n")
    code, out, err = run(capsys, "datasets", "list", "--data-home", str(tmp_path))
    assert code == 0, err
    line = next(line for line in out.splitlines() if line.split()[:1] == ["svmguide3"])
    # its size, not "-" (not cached)
    assert line.split()[3:5] == [str(path.stat().st_size), "B"], line
    code, out, err = run(capsys, "datasets", "info", "svmguide3", "--data-home",
                         str(tmp_path))
    assert code == 0, err
    assert f"cached LIBSVM train file {path}" in out and "rows      2" in out
