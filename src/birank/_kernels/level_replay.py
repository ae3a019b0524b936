"""The many-label sweeps of :mod:`.pair_sweep`, cut into parts for threads.

For a segment of more than two labels, the loss sweep (:func:`.pair_sweep.
_radix_levels`) and the Hessian product's replay of its active pairs
(:func:`.pair_sweep._levels_hess_vec`) go level by level. Their parts are
independent within a level: at level 0 (one node, the whole segment) the
passes "hi" and "lo" read the same values and write separate sums; at the
levels below, each node is on its own; the gathers, scatters, moves and the
counting sort into the next level split over runs of positions. The kernels
below run one part each and release the GIL; ``birank.solvers.level_threads``
calls them on threads.

Every row's sum is formed by the same additions in the same order as in the
one-thread sweeps: pass "lo" of level 0 writes its sums to separate arrays that
:func:`add_rows` / :func:`add_pairs` then add, which is the one addition the
serial sweeps make in place (``x`` and ``0 + x`` are the same number); the
loss is summed per node, as there. So the results are the same bits for every
number of threads and as without threads.
"""

import numpy as np
from numba import njit

from .pair_sweep import (_acc_empty, _digit_counts, _fen_rows, _gather_wu, _level_gather,
                         _level_scatter, _loss_hi, _loss_lo, _loss_node, _move_level, _node_end,
                         _replay_hi, _replay_level, _replay_lo, _scatter_wtot, _split_node,
                         _split_rows)

__all__ = ["gather_rows", "replay_pass", "replay_nodes", "add_rows", "move_rows",
           "scatter_rows", "loss_gather", "loss_pass", "add_pairs", "loss_nodes",
           "count_digits", "split_chunk", "loss_scatter"]


@njit(cache=True, nogil=True)
def gather_rows(a, b, rows, u, sw, unit, val, tot):
    """``val[t] = w u`` of the row at each position ``a <= t < b``, ``tot[t] = 0``."""
    _gather_wu(a, b, rows, u, sw, unit, val, tot)


@njit(cache=True, nogil=True)
def replay_pass(p, q, lab, shift, bits, lv_ptr, val, tot, hi):
    """Pass "hi" (``hi``) or "lo" of the node ``p .. q-1`` of the digit level whose
    digit starts at bit ``shift`` into ``tot``, with running sums of its own."""
    acc = _acc_empty(bits)
    mask = (1 << bits) - 1
    if hi:
        _replay_hi(p, q, lab, shift, mask, bits, lv_ptr, val, tot, acc)
    else:
        _replay_lo(p, q, lab, shift, mask, bits, lv_ptr, val, tot, acc)


@njit(cache=True, nogil=True)
def replay_nodes(a, b, lab, shift, bits, lv_hi, lv_lo, val, tot):
    """Both passes of every node of a digit level at positions ``a .. b-1`` (``a`` and
    ``b`` at node boundaries), as :func:`.pair_sweep._levels_hess_vec` does them."""
    _replay_level(a, b, lab, shift, bits, lv_hi, lv_lo, val, tot, _acc_empty(bits))


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


# -- the loss sweep ---------------------------------------------------------------


@njit(cache=True, nogil=True)
def loss_gather(t0, t1, rows, s, lab, sw, unit, scores_sorted, cs, cw, cg, cd, ci, cl, cg2, cd2):
    """Level 0's row arrays at positions ``t0 .. t1-1`` (``rows``: the rows in score
    order), and pass "lo"'s own sums ``cg2``, ``cd2`` zeroed."""
    _level_gather(t0, t1, rows, s, lab, sw, unit, scores_sorted, cs, cw, cg, cd, ci, cl)
    for t in range(t0, t1):
        cg2[t] = 0.0
        cd2[t] = 0.0


@njit(cache=True, nogil=True)
def loss_pass(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd, lv_ptr, a, hi,
              node_loss):
    """Pass "hi" (``hi``: the node's loss to ``node_loss[p]``) or "lo" of the node
    ``p .. q-1``, with a tree of its own."""
    acc = np.empty((_fen_rows(1 << bits), 3))
    if hi:
        node_loss[p] = _loss_hi(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd,
                                lv_ptr, a, acc)
    else:
        _loss_lo(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd, lv_ptr, a, acc)


@njit(cache=True, nogil=True)
def add_pairs(t0, t1, cg, cd, cg2, cd2):
    """``cg[t] += cg2[t]``, ``cd[t] += cd2[t]``: pass "lo" of level 0, added after "hi"."""
    for t in range(t0, t1):
        cg[t] += cg2[t]
        cd[t] += cd2[t]


@njit(cache=True, nogil=True)
def loss_nodes(t0, t1, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd, lv_hi, lv_lo, a,
               node_loss, split, ci, ns, nw, ng, nd, ni, nl, lv_src):
    """Both passes of every node of a digit level at positions ``t0 .. t1-1`` (at node
    boundaries), each node's loss at ``node_loss[its first position]``; with
    ``split``, each node's rows then go to the next level (as :func:`.pair_sweep.
    _radix_levels`)."""
    acc = np.empty((_fen_rows(1 << bits), 3))
    cnt = np.empty(1 << bits, dtype=np.int64)
    p = t0
    while p < t1:
        q = _node_end(cl, p, t1, shift + bits)
        if q - p > 1:
            node_loss[p] = _loss_node(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg,
                                      cd, lv_hi, lv_lo, a, acc)
        if split:
            _split_node(p, q, cl, shift, bits, unit, cnt, cs, cw, cg, cd, ci, ns, nw, ng, nd, ni,
                        nl, lv_src, a)
        p = q


@njit(cache=True, nogil=True)
def count_digits(t0, t1, cl, shift, bits, cnt):
    """``cnt[e]`` = rows of digit e at positions ``t0 .. t1-1`` (one chunk of the
    counting sort of a node too large for one thread)."""
    _digit_counts(t0, t1, cl, shift, bits, cnt)


@njit(cache=True, nogil=True)
def split_chunk(t0, t1, cl, shift, bits, unit, starts, cs, cw, cg, cd, ci, ns, nw, ng, nd, ni,
                nl, lv_src, a):
    """The rows at positions ``t0 .. t1-1`` to the next level, digit e from
    ``starts[e]`` on (the places before them taken by the chunks before)."""
    _split_rows(t0, t1, cl, shift, bits, unit, starts, cs, cw, cg, cd, ci, ns, nw, ng, nd, ni,
                nl, lv_src, a)


@njit(cache=True, nogil=True)
def loss_scatter(t0, t1, ci, cg, cd, grad_s, diag):
    """Each row's gradient and diagonal to its row id, at positions ``t0 .. t1-1``."""
    _level_scatter(t0, t1, ci, cg, cd, grad_s, diag)
