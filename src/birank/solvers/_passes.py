"""The passes of a dual CD kernel in calls of a bounded number, with progress between them.

The dual CD kernels (:mod:`birank._kernels.dual_cd`, ``dual_cd_logistic``,
``kernel_dual_cd``) are resumable: :class:`Passes` holds the state one pass hands
to the next (random stream, visit order with the shrunk rows last, active-set
size, last pass's projected-gradient extremes, pass count), and a ``*_run`` kernel
runs passes from it up to a given pass. Any split into calls gives the same bits.

Without a reporter :meth:`Passes.run` makes one call for all the passes (nothing
is added to a fit). With one, the calls start at one pass and the passes per call
double until a call takes about :data:`CALL_SECONDS` (halved again when passes get
slower), and a line is reported between two calls at most every
:data:`REPORT_SECONDS`: about once a second, after every pass when a pass takes
longer than that.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .._kernels.dual_cd import (
    CNT_ACTIVE,
    CNT_DONE,
    CNT_IT,
    PG_GAP,
    start_passes,
)

__all__ = ["Passes", "CALL_SECONDS", "REPORT_SECONDS"]

#: with a reporter, the time a kernel call is sized to take (from its passes' rate)
CALL_SECONDS = 0.5
#: with a reporter, the least time between two lines on the passes
REPORT_SECONDS = 1.0


class Passes:
    """The carried state of a run of dual CD passes (:func:`~birank._kernels.dual_cd.start_passes`).

    Parameters
    ----------
    seed : int
        The kernel seed of the run (its random visit orders).
    n_rows : int
        Rows the passes visit.
    gap : float, default=0.0
        The spread :attr:`gap` reads before the first pass (the kernel solver's
        ``inf``: not converged after no pass).

    Attributes
    ----------
    rng, index, counts, pg : ndarray
        The arrays the ``*_run`` kernels take and update (see ``start_passes``).
    """

    def __init__(self, seed: int, n_rows: int, gap: float = 0.0) -> None:
        self.n_rows = int(n_rows)
        self.rng, self.index, self.counts, self.pg = start_passes(int(seed), self.n_rows)
        self.pg[PG_GAP] = gap

    @property
    def n_iter(self) -> int:
        """Passes run so far."""
        return int(self.counts[CNT_IT])

    @property
    def gap(self) -> float:
        """The projected-gradient spread ``PGmax - PGmin`` of the last pass."""
        return float(self.pg[PG_GAP])

    @property
    def n_active(self) -> int:
        """Rows the next pass visits (all of them without shrinking)."""
        return int(self.counts[CNT_ACTIVE])

    @property
    def done(self) -> bool:
        """Whether the stopping rule was met."""
        return bool(self.counts[CNT_DONE])

    def run(self, step: Callable[[int], object], max_iter: int,
            report: Callable[..., object] | None = None,
            line: Callable[[Passes], str] | None = None) -> None:
        """Passes up to ``max_iter`` or the stopping rule.

        ``step(until)`` runs the kernel from this state up to pass ``until``. Without
        ``report``, one call. With it, calls of a growing number of passes (see the
        module docstring) and ``report(pass, None, line(self))`` between two of them,
        at most every :data:`REPORT_SECONDS`; none after the last call (the caller
        reports the end).
        """
        if report is None:
            step(max_iter)
            return
        chunk = 1
        last = time.perf_counter()
        while not self.done and self.n_iter < max_iter:
            start = time.perf_counter()
            before = self.n_iter
            step(min(before + chunk, max_iter))
            now = time.perf_counter()
            ran = self.n_iter - before
            if ran > 0:  # passes per call: toward CALL_SECONDS, at most doubled
                chunk = max(1, min(2 * chunk, int(ran * CALL_SECONDS / max(now - start, 1e-9))))
            if (now - last >= REPORT_SECONDS and not self.done and self.n_iter < max_iter
                    and line is not None):
                report(self.n_iter, None, line(self))
                last = now
