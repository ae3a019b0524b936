"""birank._progress on a terminal: cut to the terminal's width, the line cleared and
redrawn in place, and always ended (a newline) before anything else is written."""

import io
import re
import sys

import numpy as np

from birank import RankSVM
from birank._progress import Progress, byte_count, end_line, make_progress


class Terminal(io.StringIO):
    """A stream that says it is a terminal (its width comes from $COLUMNS)."""

    def isatty(self):
        return True


def _redraws(text):
    """The lines a terminal shows being redrawn: the text after each carriage return."""
    return [re.sub(r"\x1b\[K", "", part) for part in text.split("\r") if part]


def test_line_is_cut_to_the_terminal_width_and_cleared_not_padded(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = Terminal()
    report = Progress("fit", stream=out, min_interval=0.0)
    report(1, None, "x" * 200)
    report(2, None, "short")
    text = out.getvalue()
    assert text.count("\x1b[K") == 2  # cleared to the end of the line, not padded
    assert all(len(line) < 80 for line in _redraws(text))  # no wrap on 80 columns
    assert "  " * 20 not in text  # (the old 120-column padding)
    monkeypatch.setenv("COLUMNS", "200")
    report(3, None, "x" * 150)
    assert len(_redraws(out.getvalue())[-1]) > 150  # the width is read at each redraw


def test_line_without_total_is_ended_by_close_end_line_and_collection():
    out = Terminal()
    report = Progress("fit", stream=out, min_interval=0.0)
    report(1)
    assert not out.getvalue().endswith("\n")  # open between redraws
    report.close()
    assert out.getvalue().endswith("\n")
    report.close()  # idempotent
    assert out.getvalue().count("\n") == 1

    out = Terminal()
    report = Progress("fit", stream=out, min_interval=0.0)
    report(1, 10)  # stopped before its total
    end_line()  # what is about to write something else calls this first
    assert out.getvalue().endswith("\n")

    out = Terminal()
    with make_progress(True, "fit", stream=out, min_interval=0.0) as report:
        report(1)
    assert out.getvalue().endswith("\n")

    out = Terminal()
    report = Progress("fit", stream=out, min_interval=0.0)
    report(1)
    del report  # dropped by its owner (a fit that returned): the line ends
    assert out.getvalue().endswith("\n")


def test_a_new_line_ends_the_open_one():
    out = Terminal()
    first = Progress("read", stream=out, min_interval=0.0)
    first(1, 4)
    second = Progress("fit", stream=out, min_interval=0.0)
    second(1)
    assert "\x1b[K\n\rfit" in out.getvalue()
    second.close()


def test_off_the_terminal_every_report_is_a_whole_line():
    out = io.StringIO()
    report = Progress("fit", stream=out, min_interval=0.0)
    report(1)
    report(2, 4, "half")
    report.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("fit step 1") and "2/4" in lines[1]
    assert out.getvalue().count("\n") == 2  # (close adds nothing)
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()


def test_silent_reporter_closes_and_counts_bytes():
    report = make_progress(False)
    report(1, 2)
    report.close()
    with report:
        pass
    assert byte_count(3 << 19, 3 << 20) == "1.5/3.0 MiB"
    assert byte_count(3 << 19, None) == "1.5 MiB" and byte_count(512, 1024) == "0.5/1.0 KiB"


def test_verbose_ranksvm_fit_ends_its_line(monkeypatch):
    # RankSVM reports Newton steps without a total: the line used to stay open, and the
    # next output (a warning, the prompt) was glued to it
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    RankSVM(verbose=True).fit(X, (X[:, 0] > 0).astype(int))
    assert "RankSVM" in out.getvalue() and out.getvalue().endswith("\n")
