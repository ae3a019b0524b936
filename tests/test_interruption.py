"""Interruption: Ctrl-C during a long CLI run or a write leaves no
half-written output. (Checkpoint/resume of online training belongs to the online CLI.)"""

import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import birank
from birank.datasets import dump_svmlight, load_heart

SRC = os.path.dirname(os.path.dirname(os.path.abspath(birank.__file__)))


def test_ctrl_c_during_cli_fit_exits_130_and_writes_nothing(tmp_path):
    X, y = load_heart()
    data = tmp_path / "h.svm"
    dump_svmlight(X, y, data)
    before = sorted(os.listdir(tmp_path))
    env = dict(os.environ, PYTHONPATH=SRC, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "birank.cli", "train", "-m", "crr", "--param",
         "max_iter=1000000000", str(data), "-o", str(tmp_path / "m.json")],
        stderr=subprocess.PIPE, text=True, env=env,
        # a runner started in the background ignores SIGINT, and children inherit
        # that; a terminal's Ctrl-C reaches a process with the default handler
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = proc.stderr.readline()  # the first progress line: the fit is running
        assert "CombinedRanking" in line, line
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "interrupted" in err
    assert sorted(os.listdir(tmp_path)) == before  # no model, no temporary file


def test_dump_svmlight_interrupted_leaves_nothing(tmp_path, monkeypatch):
    from birank.datasets import _svmlight

    def boom(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(_svmlight.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        dump_svmlight(np.eye(3), [1, 0, 1], tmp_path / "d.svm")
    assert os.listdir(tmp_path) == []


def test_interrupted_parse_in_the_cli_is_reported(tmp_path, monkeypatch, capsys):
    from birank.cli import main
    from birank.datasets import _svmlight

    X, y = load_heart()
    data = tmp_path / "h.svm"
    dump_svmlight(X, y, data)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_svmlight, "load_svmlight_bytes", interrupted)
    assert main(["train", "-q", str(data), "-o", str(tmp_path / "m.json")]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


class _Terminal:
    """sys.stderr as a terminal: a progress line is redrawn in place ("\\r")."""

    def __init__(self):
        import io

        self.buf = io.StringIO()

    def write(self, text):
        return self.buf.write(text)

    def flush(self):
        pass

    def isatty(self):
        return True


@pytest.mark.parametrize("exc, code, said", [
    (KeyboardInterrupt, 130, "birank train: interrupted"),
    (ValueError("bad value"), 2, "birank train: error: bad value"),
    (RuntimeError("a bug"), 1, "birank train: internal error"),
    (None, 0, "birank train: warning"),
    (None, 0, "trained ranksvm"),
])
def test_cli_ends_the_progress_line_before_it_says_anything(tmp_path, monkeypatch, exc, code,
                                                             said):
    # a terminal's progress line (no total: RankSVM's Newton steps) is ended before the
    # interruption, an error, a warning or the closing line: none is glued onto it
    import warnings

    from birank.batch import ranksvm
    from birank.cli import main

    X, y = load_heart()
    data = tmp_path / "h.svm"
    dump_svmlight(X, y, data)
    solve = ranksvm.solve_all_pairs

    def solve_then(*args, report=None, **kwargs):
        report(1, None, "a first Newton step")
        if exc is not None:
            raise exc
        warnings.warn("something to say")
        return solve(*args, report=report, **kwargs)

    monkeypatch.setattr(ranksvm, "solve_all_pairs", solve_then)
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(["train", str(data), "-o", str(tmp_path / "m.json")]) == code
    err = term.buf.getvalue()
    assert "RankSVM" in err and said in err
    assert "\n" + said in err, repr(err)  # on a line of its own
    assert err.endswith("\n")
