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
