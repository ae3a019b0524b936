"""RankSVM's sort and sweeps over a run of groups: the kernels of
:class:`birank.solvers.group_threads.GroupSweeps`.

With query ids, the pairs live inside each group (segment ``seg[g] .. seg[g+1]``
of the sorted order), so a group's sort, loss, gradient and Hessian product depend
on its own rows alone. Each kernel does, for the groups ``g0 .. g1-1``, what
the serial sort and sweeps (:mod:`.radix_sort`, :mod:`.pair_sweep`) do for every
group, through the same per-group functions; runs of groups on threads then give
the serial numbers row by row. The groups' losses are kept one by one, for the caller to
add in the serial sweeps' order.

Every kernel runs without the GIL.
"""

from numba import njit

from .pair_sweep import (_acc_empty, _binary_hess_vec, _binary_loss_grad, _digit_bits,
                         _levels_hess_vec, _radix_levels, one_label_segment)
from .radix_sort import argsort_groups

__all__ = ["sort_groups", "loss_groups", "hess_groups", "diag_rows_groups"]


@njit(cache=True, nogil=True)
def loss_groups(s, order, seg, lab, nlab, sw, bw, loss_kind, grad_s, diag, ptr_hi, ptr_lo,
                work, levels, theta, unit_weights, scores_sorted, group_loss, g0, g1):
    """:func:`birank._kernels.pair_sweep.sweep_loss_grad` for the groups ``g0 .. g1-1``
    (the same arguments), each group's loss into ``group_loss[g]`` (0.0 for a group
    of one label)."""
    for g in range(g0, g1):
        a = seg[g]
        b = seg[g + 1]
        k = nlab[g]
        if k < 2:
            one_label_segment(order, a, b, grad_s, diag, ptr_hi, ptr_lo)
            group_loss[g] = 0.0
        elif k == 2:
            group_loss[g] = _binary_loss_grad(s, order, a, b, bw, loss_kind, grad_s, ptr_hi,
                                              ptr_lo, work, theta, scores_sorted)
        else:
            group_loss[g] = _radix_levels(order, a, b, s, lab, k, sw, unit_weights, theta,
                                          loss_kind, grad_s, diag, work, levels, scores_sorted)


@njit(cache=True, nogil=True)
def hess_groups(u, order, seg, nlab, sw, diag, ptr_hi, ptr_lo, out, work, levels,
                unit_weights, g0, g1):
    """:func:`birank._kernels.pair_sweep.sweep_hess_vec` for the groups ``g0 .. g1-1``.

    A two-label group's replay writes its prefix sums one position past its end
    (``work[0:2, seg[g+1]]``, the next group's first): runs of groups that touch
    must not run at once."""
    wide = 0  # the widest digit of these groups' many-label sweeps
    for g in range(g0, g1):
        if nlab[g] > 2:
            wide = max(wide, _digit_bits(nlab[g], levels.shape[0])[1])
    acc = _acc_empty(wide)  # (each group uses a part of it in turn)
    for g in range(g0, g1):
        a = seg[g]
        b = seg[g + 1]
        k = nlab[g]
        if k == 2:
            _binary_hess_vec(u, order, a, b, ptr_hi, ptr_lo, out, work)
        else:
            for t in range(a, b):
                r = order[t]
                out[r] = diag[r] * u[r]
            if k > 2:
                _levels_hess_vec(a, b, k, levels, u, sw, unit_weights, out, work, acc)


@njit(cache=True, nogil=True)
def diag_rows_groups(order, seg, nlab, work, diag, g0, g1):
    """:func:`birank._kernels.pair_sweep.two_label_diag_rows` for the groups
    ``g0 .. g1-1``."""
    for g in range(g0, g1):
        if nlab[g] == 2:
            for t in range(seg[g], seg[g + 1]):
                diag[order[t]] = work[4, t]


@njit(cache=True, nogil=True)
def sort_groups(s, members, seg, order, sorted_out, g0, g1):
    """:func:`birank._kernels.radix_sort.argsort_groups` for the groups ``g0 .. g1-1``:
    each group's rows (``members``, grouped, in row order) by ascending score, ties in
    row order, and ``sorted_out = s[order]``. That is the order the radix argsort of
    all scores followed by the stable counting sort by group gives (the two sorts the
    serial sweeps use from ``RADIX_MIN`` rows): equal scores, -0.0 and 0.0 included,
    keep their rows' order in both."""
    argsort_groups(s, members, seg[g0:g1 + 1], order, sorted_out)
