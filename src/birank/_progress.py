"""Progress reporting: off by default in the API, on in the CLI.

A reporter is a callable ``report(step, total, message)``; ``make_progress``
turns the ``verbose`` parameter into one. No third-party dependency.
"""

from __future__ import annotations

import sys
import time

__all__ = ["make_progress", "Progress"]


class Progress:
    """Writes one line per step (or a redrawn bar on a terminal) to ``stream``."""

    def __init__(self, label="", stream=None, min_interval=0.2):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.min_interval = min_interval
        self._t0 = time.perf_counter()
        self._last = -1.0
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, step, total=None, message=""):
        now = time.perf_counter()
        done = total is not None and step >= total
        if not done and now - self._last < self.min_interval:
            return
        self._last = now
        elapsed = now - self._t0
        if total:
            frac = min(step / total, 1.0)
            bar = "#" * int(frac * 20)
            text = f"{self.label} [{bar:<20}] {step}/{total} {elapsed:6.1f}s {message}"
        else:
            text = f"{self.label} step {step} {elapsed:6.1f}s {message}"
        if self._tty:
            self.stream.write("\r" + text[:120].ljust(120) + ("\n" if done else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def _silent(step, total=None, message=""):
    return None


def make_progress(verbose, label=""):
    """``verbose`` false -> a no-op reporter; true or an int -> :class:`Progress`."""
    if not verbose:
        return _silent
    return Progress(label)
