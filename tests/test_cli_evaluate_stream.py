"""``birank evaluate`` on files above the streaming size: same metrics as the in-memory path."""

import gzip

import numpy as np
import pytest

from birank.cli import _evaluate
from birank.cli import UserError
from birank.cli._stream import stream_column, stream_svmlight_labels


def _write(tmp_path, rng, n=500, qid=True):
    y = rng.integers(0, 3, size=n)
    q = np.repeat(np.arange(n // 50), 50)
    s = np.round(y + rng.normal(size=n), 2)
    lines = [f"{y[i]} {'qid:%d ' % q[i] if qid else ''}1:{rng.normal():.3f} 5:1\n"
             for i in range(n)]
    lab = tmp_path / "test.svm"
    lab.write_text("# header comment\n" + "".join(lines))
    sc = tmp_path / "scores.txt"
    sc.write_text("".join(f"{v}\n" for v in s))
    return lab, sc


@pytest.mark.parametrize("qid", [True, False])
def test_streamed_metrics_equal_in_memory(tmp_path, monkeypatch, qid):
    lab, sc = _write(tmp_path, np.random.default_rng(0), qid=qid)

    def metrics():
        y, g = _evaluate._read_labels(str(lab))
        return _evaluate.compute_metrics(y, _evaluate._read_column(str(sc), "score"), g)

    whole = metrics()
    monkeypatch.setattr(_evaluate, "STREAM_BYTES", 0)  # every file streamed
    assert metrics() == whole


def test_streamed_groups_from_a_query_file_equal_in_memory(tmp_path, monkeypatch):
    lab, sc = _write(tmp_path, np.random.default_rng(1), qid=False)
    (tmp_path / "test.svm.query").write_text("50\n" * 10)

    def groups():
        return _evaluate._read_labels(str(lab))[1]

    whole = groups()
    assert whole is not None and np.unique(whole).size == 10
    monkeypatch.setattr(_evaluate, "STREAM_BYTES", 0)  # every file streamed
    assert (groups() == whole).all()


def test_stream_reads_gzip_and_names_bad_lines(tmp_path):
    p = tmp_path / "s.svm.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("1 1:2\n0 2:1\n")
    y, q = stream_svmlight_labels(str(p))
    assert y.tolist() == [1.0, 0.0] and q is None
    bad = tmp_path / "bad.txt"
    bad.write_text("0.5\n\nnan\n")
    with pytest.raises(UserError, match="line 3"):
        stream_column(str(bad), "score")
    mixed = tmp_path / "mixed.svm"
    mixed.write_text("1 qid:1 1:1\n0 1:1\n")
    with pytest.raises(UserError, match="line 2"):
        stream_svmlight_labels(str(mixed))


@pytest.mark.parametrize("name, text", [
    ("label.svm", "1 1:1\nx 1:2\n"),
    ("nan.svm", "1 1:1\nnan 1:2\n"),
    ("underscore.svm", "1 1:1\n1_0 1:2\n"),
    ("qid_then_none.svm", "1 qid:1 1:1\n0 1:1\n"),
    ("none_then_qid.svm", "1 1:1\n0 qid:1 1:1\n"),
    ("qid.svm", "1 qid:a 1:1\n0 qid:1 1:1\n"),
    # feature tokens are checked too: streamed files were read for their labels only
    ("feature.svm", "1 1:1\n0 2:x\n"),
    ("index.svm", "1 1:1\n0 -2:1\n"),
    ("duplicate.svm", "1 1:1\n0 2:1 2:3\n"),
    ("empty.svm", "# only a comment\n\n"),
    ("word.txt", "1\nx\n"),
    ("two.txt", "1\n2 3\n"),
    ("inf.txt", "1\nInf\n"),
    ("empty.txt", "# only a comment\n"),
])
def test_streamed_labels_are_refused_in_the_in_memory_words(tmp_path, monkeypatch, capsys,
                                                           name, text):
    """A labels file over STREAM_BYTES said "t.svm, line 2: bad label 'x'." where the same
    file read whole says "t.svm (read as libsvm), line 2: bad label 'x' (expected a finite
    number)."; one wording, whatever the file's size."""
    from birank.cli import main

    lab = tmp_path / name
    lab.write_text(text)
    scores = tmp_path / "s.txt"
    scores.write_text("0.1\n0.2\n")

    def error():
        assert main(["evaluate", "--labels", str(lab), "--scores", str(scores)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith(f"birank evaluate: error: {lab}")
        return err

    whole = error()
    if name.endswith(".svm") and name != "empty.svm":
        assert f"{lab} (read as libsvm), line " in whole
    monkeypatch.setattr(_evaluate, "STREAM_BYTES", 0)  # every file streamed
    assert error() == whole
