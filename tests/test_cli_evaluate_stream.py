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
