"""The two-label sweep of one group without sorting every row.

With two labels the pair loss needs, for each upper row i, the sums over its
active lower partners j (``s_j > s_i - theta``), and for each lower row j the
sums over its active upper partners (Chapelle & Keerthi 2010; the formulas are
:func:`.pair_sweep.two_label_upper` / :func:`.pair_sweep.two_label_lower`).
Both are read off one number per lower row, its rank among the upper rows'
thresholds ``T_i = s_i - theta``::

    k_j = #{i : T_i < s_j}

Upper row i is active with j exactly when ``k_j > c_i``, ``c_i = #{i' : T_i' <
T_i}`` (the first rank of its threshold), and lower row j with the upper rows of
the first ``k_j`` ranks. So only the upper rows are sorted; each lower row
finds ``k_j`` through a table of buckets over the thresholds' range (a bucket
index that never decreases with the value, so only the thresholds of its own
bucket are compared; a crowded bucket is searched by bisection), its sums go to
bucket ``k_j``, and suffix / prefix sums over the ranks give every row its
partners' sums. No row is sorted by score and no gradient is scattered through
a permutation: the lower rows, usually most of them, are read and written in
row order.

Every kernel releases the GIL. The per-row passes over the lower rows
(:func:`lower_ranks`, :func:`lower_rows`, :func:`hess_lower`) take a range of
them, so they run on threads in parts; the sums by rank and the upper rows
(:func:`lower_sums` then :func:`upper_rows`, :func:`hess_upper`) run in row
order as one task, beside the lower rows' parts (they write other rows, and
read only what :func:`upper_ranks` / :func:`hess_upper_prefix` prepared before;
:func:`upper_ranks` itself runs as one task beside the parts of
:func:`lower_ranks`). Every number is therefore the same bits for every number
of threads.
"""

import numpy as np
from numba import njit

from .losses import SQUARED_HINGE
from .pair_sweep import two_label_lower, two_label_upper

__all__ = ["upper_thresholds", "bucket_table", "upper_ranks", "lower_ranks", "lower_sums",
           "upper_rows", "lower_rows", "hess_upper_prefix", "hess_upper", "hess_lower",
           "bucket_count", "SPARE"]

#: entries of the padded threshold copy after the last threshold (+inf): the
#: four-way comparison of :func:`lower_ranks` may read that far past a bucket
SPARE = 4

#: the thresholds of a bucket compared at once (no branch on the data); when all
#: are below the value the rest of the bucket is bisected
_FEW = 4


def bucket_count(n_upper):
    """Buckets of the rank table for ``n_upper`` thresholds: the power of two at or
    above twice their number. A scratch A/B at 10^6 rows, 10% upper (ms for the
    ranks of the 9 * 10^5 lower rows): 1.3 buckets a threshold 13.2, 2.6 10.5, 5.2
    17.4 (the table falls out of L2)."""
    nb = 1
    while nb < 2 * max(int(n_upper), 1):
        nb *= 2
    return nb


@njit(cache=True, nogil=True)
def upper_thresholds(s, up, theta, su, T):
    """The upper rows' scores ``su[p] = s[up[p]]`` and thresholds ``T[p] = su[p] -
    theta``, in row order."""
    for p in range(up.shape[0]):
        x = s[np.uint64(up[p])]
        su[p] = x
        T[p] = x - theta


@njit(cache=True, inline="always")
def _bucket(x, lo, scale, nb):
    # (x - lo) * scale never decreases with x (rounding is monotone), so neither
    # does the bucket; a NaN goes to bucket 0 (its loss is NaN anyway, and with
    # scale = inf, x = lo gives NaN: bucket 0 stays monotone)
    f = (x - lo) * scale
    if not f >= 0.0:
        return 0
    if f >= nb:
        return nb
    return int(f)


@njit(cache=True)
def bucket_table(Ts, tab):
    """The rank table of the sorted thresholds ``Ts``: ``tab[b]`` = thresholds in
    buckets below b (``tab`` has ``nb + 2`` entries for buckets ``0 .. nb``).
    Returns ``(lo, scale)`` of the buckets (``bucket(x) = floor((x - lo) * scale)``,
    clipped to ``0 .. nb``)."""
    nu = Ts.shape[0]
    nb = tab.shape[0] - 2
    tab[:] = 0
    if nu == 0:
        return 0.0, 0.0
    lo = Ts[0]
    scale = nb / (Ts[nu - 1] - lo) if Ts[nu - 1] > lo else 0.0
    if not (scale > 0.0 and np.isfinite(scale)):
        # all thresholds equal (every fit's first loss, at w = 0), or a range too
        # narrow or too wide for float64: two buckets, the thresholds equal to lo
        # (NaN: bucket 0) and the rest (+inf: the last). A value above lo starts at
        # the rest and, for equal thresholds, compares only the +inf spares: no
        # bisection of every row (which cost 2x the ranks at w = 0)
        scale = np.inf
    for r in range(nu):
        tab[_bucket(Ts[r], lo, scale, nb) + 1] += 1
    for b in range(nb + 1):
        tab[b + 1] += tab[b]
    return lo, scale


@njit(cache=True, nogil=True)
def lower_ranks(s, lo_ids, Tp, tab, lo, scale, k_of, q0, q1):
    """``k_of[q] = #{thresholds < s[lo_ids[q]]}`` for the lower rows ``q0 .. q1-1``
    (``Tp``: the sorted thresholds then :data:`SPARE` times +inf; ``tab``, ``lo``,
    ``scale``: :func:`bucket_table`'s of them)."""
    nb = tab.shape[0] - 2
    for q in range(q0, q1):
        x = s[np.uint64(lo_ids[q])]
        b = _bucket(x, lo, scale, nb)
        k = np.int64(tab[b])
        # the thresholds of x's bucket from k on: four compared at once, without a
        # branch (those past the bucket are above x, the spare ones +inf: they add
        # nothing); a crowded bucket, all four below x, is bisected for the rest
        # (branching on a bucket's size instead took twice the time, scratch A/B)
        c = (np.int64(Tp[k] < x) + np.int64(Tp[k + 1] < x) + np.int64(Tp[k + 2] < x)
             + np.int64(Tp[k + 3] < x))
        k += c
        if c == _FEW:
            end = np.int64(tab[b + 1])
            while k < end:  # the first position not below x
                mid = (k + end) >> 1
                if Tp[mid] < x:
                    k = mid + 1
                else:
                    end = mid
        k_of[q] = k


@njit(cache=True, nogil=True)
def upper_ranks(su, uw, unit, Ts, Tord, c_up, pre):
    """Each upper row's ``c_up[p]``, the first rank of its threshold, and ``pre[r] =
    (sum w, sum w s)`` over the upper rows of ranks below r (``su``:
    :func:`upper_thresholds`' scores; ``Ts``, ``Tord``: the sorted thresholds)."""
    c = 0
    pre[0, 0] = 0.0
    pre[0, 1] = 0.0
    for r in range(Ts.shape[0]):
        if r == 0 or Ts[r] != Ts[r - 1]:
            c = r  # ties share the first rank of their threshold
        p = np.uint64(Tord[r])
        c_up[p] = c
        wi = 1.0 if unit else uw[p]
        pre[r + 1, 0] = pre[r, 0] + wi
        pre[r + 1, 1] = pre[r, 1] + wi * su[p]


@njit(cache=True, nogil=True)
def lower_sums(s, lo_ids, lw, unit, k_of, acc):
    """``acc[k]`` = the sums ``(sum w, sum w s, sum w s^2)`` of the lower rows of
    rank k, then their suffix sums (``acc[k]``: ranks ``k`` and above; ``acc`` has
    ``n_upper + 2`` rows, the last one zero). In row order: the same bits for
    every split of :func:`lower_ranks`."""
    acc[:, :] = 0.0
    for q in range(lo_ids.shape[0]):
        x = s[np.uint64(lo_ids[q])]
        w = 1.0 if unit else lw[q]
        rank = np.uint64(k_of[q])
        acc[rank, 0] += w
        acc[rank, 1] += w * x
        acc[rank, 2] += w * x * x
    for k in range(acc.shape[0] - 2, -1, -1):
        acc[k, 0] += acc[k + 1, 0]
        acc[k, 1] += acc[k + 1, 1]
        acc[k, 2] += acc[k + 1, 2]


@njit(cache=True, nogil=True)
def upper_rows(su, up, uw, unit, Tord, c_up, acc, theta, loss_kind, gu, du, grad_s, diag):
    """Every upper row's gradient and diagonal against the lower rows of rank above
    its ``c`` (``acc``: :func:`lower_sums`'; ``c_up``: :func:`upper_ranks`'); returns
    the loss, summed by rank. By rank into the upper rows' own arrays (``gu``,
    ``du``: 8 bytes a row, not a row of all n), then to ``grad_s`` and ``diag`` in
    row order (only the upper rows' entries)."""
    sq = loss_kind == SQUARED_HINGE
    loss = 0.0
    for r in range(Tord.shape[0]):
        p = np.uint64(Tord[r])
        wi = 1.0 if unit else uw[p]
        k = np.uint64(c_up[p] + 1)
        g, li, d = two_label_upper(sq, wi, acc[k, 0], acc[k, 1], acc[k, 2], theta - su[p])
        gu[p] = g
        du[p] = d
        loss += li
    for q in range(up.shape[0]):  # (not p: numba would unify it with the uint64 above)
        i = np.uint64(up[q])
        grad_s[i] = gu[q]
        diag[i] = du[q]
    return loss


@njit(cache=True, nogil=True)
def lower_rows(s, lo_ids, lw, unit, k_of, pre, theta, loss_kind, grad_s, diag, q0, q1):
    """The gradient and diagonal of the lower rows ``q0 .. q1-1`` (row order) against
    the upper rows of the first ``k_of[q]`` ranks (``pre``: :func:`upper_ranks`')."""
    sq = loss_kind == SQUARED_HINGE
    for q in range(q0, q1):
        j = np.uint64(lo_ids[q])
        k = np.uint64(k_of[q])
        wj = 1.0 if unit else lw[q]
        g, d = two_label_lower(sq, wj, pre[k, 0], pre[k, 1], theta + s[j])
        grad_s[j] = g
        diag[j] = d


@njit(cache=True, nogil=True)
def hess_upper_prefix(u, up, uw, unit, Tord, uu, pre):
    """``pre[r]`` = the sum of ``w u`` over the upper rows of ranks below r, for
    :func:`hess_lower` (``uu``: scratch of one entry an upper row; ``pre``:
    ``n_upper + 1`` entries)."""
    for p in range(up.shape[0]):
        wi = 1.0 if unit else uw[p]
        uu[p] = wi * u[np.uint64(up[p])]
    pre[0] = 0.0
    for r in range(Tord.shape[0]):
        pre[r + 1] = pre[r] + uu[np.uint64(Tord[r])]


@njit(cache=True, nogil=True)
def hess_upper(u, up, uw, lo_ids, lw, unit, k_of, c_up, diag, acc, out):
    """The generalized Hessian (w.r.t. the scores) times u at the upper rows, over
    the active pairs of the last :func:`lower_ranks`: ``out_i = diag_i u_i - 2 w_i
    sum_{active j} w_j u_j`` (``acc``: scratch of ``n_upper + 2`` entries for the
    lower rows' sums of ``w u`` by rank, in row order)."""
    acc[:] = 0.0
    for q in range(lo_ids.shape[0]):
        w = 1.0 if unit else lw[q]
        acc[np.uint64(k_of[q])] += w * u[np.uint64(lo_ids[q])]
    for k in range(acc.shape[0] - 2, -1, -1):
        acc[k] += acc[k + 1]
    for p in range(up.shape[0]):
        i = np.uint64(up[p])
        wi = 1.0 if unit else uw[p]
        out[i] = diag[i] * u[i] - 2.0 * wi * acc[np.uint64(c_up[p] + 1)]


@njit(cache=True, nogil=True)
def hess_lower(u, lo_ids, lw, unit, k_of, pre, diag, out, q0, q1):
    """:func:`hess_upper`'s product at the lower rows ``q0 .. q1-1``: ``out_j =
    diag_j u_j - 2 w_j sum_{active i} w_i u_i`` (``pre``: :func:`hess_upper_prefix`')."""
    for q in range(q0, q1):
        j = np.uint64(lo_ids[q])
        wj = 1.0 if unit else lw[q]
        out[j] = diag[j] * u[j] - 2.0 * wj * pre[np.uint64(k_of[q])]
