"""The many-label Hessian product of :mod:`.pair_sweep`, cut into parts for threads.

:func:`.pair_sweep.sweep_hess_vec` replays, for a segment of more than two
labels, the loss sweep's active pairs level by level. Its parts are
independent within a level: at level 0 (one node, the whole segment) the
passes "hi" and "lo" read the same values and write separate sums; at the
levels below, each node is on its own. The kernels below run one part each
and release the GIL; ``birank.solvers.level_threads`` calls them on threads.

Every row's sum is formed by the same additions in the same order as in
:func:`.pair_sweep._levels_hess_vec`: pass "lo" of level 0
writes its sum to a separate array that :func:`add_rows` then adds, which is
the one addition the serial replay makes in place. So the product is the same
bits for every number of threads and as without threads.
"""

import numpy as np
from numba import njit

from .pair_sweep import (_gather_wu, _move_level, _pa_empty, _replay_hi, _replay_level,
                         _replay_lo, _scatter_wtot)

__all__ = ["gather_rows", "replay_pass", "replay_nodes", "add_rows", "move_rows",
           "scatter_rows"]


@njit(cache=True, nogil=True)
def gather_rows(a, b, rows, u, sw, unit, val, tot):
    """``val[t] = w u`` of the row at each position ``a <= t < b``, ``tot[t] = 0``."""
    _gather_wu(a, b, rows, u, sw, unit, val, tot)


@njit(cache=True, nogil=True)
def replay_pass(p, q, lab, shift, bits, lv_ptr, val, tot, hi):
    """Pass "hi" (``hi``) or "lo" of the node ``p .. q-1`` of the digit level whose
    digit starts at bit ``shift`` into ``tot``, with prefix sums of its own."""
    acc = _pa_empty(bits)
    mask = (1 << bits) - 1
    if hi:
        _replay_hi(p, q, lab, shift, mask, bits, lv_ptr, val, tot, acc)
    else:
        _replay_lo(p, q, lab, shift, mask, bits, lv_ptr, val, tot, acc)


@njit(cache=True, nogil=True)
def replay_nodes(a, b, lab, shift, bits, lv_hi, lv_lo, val, tot):
    """Both passes of every node of a digit level at positions ``a .. b-1`` (``a`` and
    ``b`` at node boundaries), as :func:`.pair_sweep._levels_hess_vec` does them."""
    _replay_level(a, b, lab, shift, bits, lv_hi, lv_lo, val, tot, _pa_empty(bits))


@njit(cache=True, nogil=True)
def add_rows(a, b, tot, extra):
    """``tot[t] += extra[t]``: pass "lo" of level 0, added after pass "hi"."""
    for t in range(a, b):
        tot[t] += extra[t]


@njit(cache=True, nogil=True)
def move_rows(a, b, src, val_up, tot_up, val, tot):
    """A row's value and sum from its position at the level above (``src``)."""
    _move_level(a, b, src, val_up, tot_up, val, tot)


@njit(cache=True, nogil=True)
def scatter_rows(a, b, rows, sw, unit, tot, out):
    """``out[row] -= 2 w tot`` for the row at each position ``a <= t < b``."""
    _scatter_wtot(a, b, rows, sw, unit, tot, out)
