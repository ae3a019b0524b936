"""Progress reporting: off by default in the API, on in the CLI.

A reporter is a callable ``report(step, total, message)`` with a ``close()``;
``make_progress`` turns the ``verbose`` parameter into one. No third-party dependency.

On a terminal the line is redrawn in place ("\\r", the text cut to the terminal's
width, then "clear to the end of the line"); elsewhere (a file, a pipe) every
report is a whole line. A terminal line stays open between redraws, and is ended
(a newline):

* by the step that reaches ``total``;
* by ``close()``: whoever owns a reporter calls it when its loop ends, early or
  without a total (``with make_progress(...) as report:`` does it on leaving);
* by :func:`end_line`, which anything about to write something else to the
  terminal (a warning, an error, a result) calls first: it ends whichever line
  is open;
* as a last resort, when the reporter is garbage-collected.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import weakref

__all__ = ["make_progress", "Progress", "end_line", "byte_count"]

#: the reporter whose terminal line is open (a weak reference: a reporter dropped by its
#: owner is collected, and ends its line then)
_open_line: weakref.ref | None = None


def end_line() -> None:
    """End the progress line open on the terminal, if any.

    Call it before writing anything else to the terminal: the text would otherwise
    be glued to the end of the progress line."""
    global _open_line
    progress = _open_line() if _open_line is not None else None
    _open_line = None
    if progress is not None:
        progress.close()


def _columns(stream):
    """The width of the terminal ``stream`` writes to (``$COLUMNS`` first, as shutil)."""
    if not os.environ.get("COLUMNS"):
        try:
            return os.get_terminal_size(stream.fileno()).columns or 80
        except (AttributeError, ValueError, OSError):
            pass
    return shutil.get_terminal_size().columns


def _counts(step, total):
    return f"{step}/{total}"


def byte_count(step, total):
    """Counts for byte progress: ``"1.2/3.4 MiB"`` (``"1.2 MiB"`` without a total; KiB
    below a MiB), the units of the CLI's other sizes."""
    scale, unit = (2**20, "MiB") if max(step, total or 0) >= 2**20 else (2**10, "KiB")
    return (f"{step / scale:.1f}/{total / scale:.1f} {unit}" if total
            else f"{step / scale:.1f} {unit}")


class Progress:
    """Writes one line per step (or a line redrawn in place on a terminal) to ``stream``.

    ``count(step, total)``: how the counts are written (default ``"step/total"``;
    :func:`byte_count` for bytes). See the module docstring for when a terminal
    line is ended; :meth:`close` ends it.
    """

    def __init__(self, label="", stream=None, min_interval=0.2, count=None):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.min_interval = min_interval
        self.count = count or _counts
        self._t0 = time.perf_counter()
        self._last = -1.0
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._line_open = False

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
            text = (f"{self.label} [{bar:<20}] {self.count(step, total)} {elapsed:6.1f}s "
                    f"{message}")
        else:
            counts = f"step {step}" if self.count is _counts else self.count(step, total)
            text = f"{self.label} {counts} {elapsed:6.1f}s {message}"
        text = text.rstrip()
        if self._tty:
            self._take_line()
            # cut to the width (one column spare: a full line would wrap on some terminals),
            # then cleared to the end of the line (a legacy Windows console: blanks instead)
            width = max(_columns(self.stream) - 1, 1)
            text = text[:width].ljust(width) if os.name == "nt" else text[:width] + "\x1b[K"
            self.stream.write("\r" + text + ("\n" if done else ""))
            self._line_open = not done
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _take_line(self):
        """Make this reporter the one whose line is open (ending another's first)."""
        global _open_line
        other = _open_line() if _open_line is not None else None
        if other is not self:
            if other is not None:
                other.close()
            _open_line = weakref.ref(self)

    def close(self):
        """End this reporter's terminal line if it is open (nothing otherwise); idempotent."""
        global _open_line
        if _open_line is not None and _open_line() is self:
            _open_line = None
        if self._line_open:
            self._line_open = False
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (ValueError, OSError, AttributeError):  # the stream is closed or gone
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_line_open", False):
            self.close()


class _Silent:
    """The reporter of ``verbose=False``: reports nothing."""

    def __call__(self, step, total=None, message=""):
        return None

    def close(self):
        return None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_SILENT = _Silent()


def make_progress(verbose, label="", **kwargs):
    """``verbose`` false -> a no-op reporter; true or an int -> :class:`Progress`
    (``kwargs``: its options). Either has ``close()`` and is a context manager."""
    if not verbose:
        return _SILENT
    return Progress(label, **kwargs)
