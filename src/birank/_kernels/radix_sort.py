"""Stable argsort of float64 scores by LSD radix sort, and per-segment orders.

Every Newton step of the pair solvers sorts all n scores (several times with
the line search). numpy's argsort is a comparison sort (O(n log n), about
0.1 s at 10^6 rows here, as much as one bare sparse product); a
least-significant-digit radix sort over the 64 key bits is O(n) with
sequential reads: one counting pass for all digits, then one stable scatter
per digit, and digits on which every key agrees (the sign and exponent bits of
scores of one scale) are skipped. The float64 bits are mapped to unsigned
integers whose order is the numbers' order (negative: all bits flipped;
non-negative: the sign bit set); -0.0 then sorts before 0.0, which compare
equal, so the result is still an ascending order of ``s``. Ties keep their
input order (stable), so the order is a function of ``s`` alone.
"""

import numpy as np
from numba import njit

__all__ = ["argsort_scores", "argsort_scores64", "sort_by_segment", "argsort_groups",
           "fix_ties", "sort_values", "RADIX_MIN"]

#: from this many rows the rows of several groups are sorted by one radix argsort
#: of all scores, then a stable counting sort by group (below: a sort per group,
#: :func:`argsort_groups`), the threads sort by chunks (below: :func:`argsort_scores`
#: on one thread), and the label order comes from the radix argsort (below: numpy's
#: lexsort). One array of scores is sorted by the radix kernel at every size
#: (:func:`argsort_scores`).
RADIX_MIN = 1 << 16
#: from this many rows the radix argsort moves each float64 key with its row rather
#: than a float32 key packed with it, and reads the sorted scores off the keys
#: instead of gathering them by row (:func:`_radix_argsort`)
RECORDS_MIN = 1 << 17
_BITS = 8
_RADIX = 1 << _BITS
_PASSES = (64 + _BITS - 1) // _BITS


@njit(cache=True, inline="always")
def _key(x):
    # +0.0 for -0.0: equal numbers get equal keys (ties keep their input order)
    b = np.float64(x + 0.0).view(np.uint64)
    if b >> np.uint64(63):
        return ~b
    return b | np.uint64(1 << 63)


@njit(cache=True, inline="always")
def _key32(x):
    """Order-preserving 32-bit key of ``float32(x)``: rounding is monotone, so
    ``x <= y`` gives ``key(x) <= key(y)`` (equal keys: to be ordered by x)."""
    b = np.float32(x + 0.0).view(np.uint32)
    if b >> np.uint32(31):
        return ~b
    return b | np.uint32(1 << 31)


@njit(cache=True, nogil=True, inline="always")
def pack_key(k, row):
    """The word a radix pass moves: float32 key ``k`` high, ``row`` low."""
    return (np.uint64(k) << np.uint64(32)) | np.uint64(row)


@njit(cache=True, nogil=True, inline="always")
def unpack_row(word):
    """The row of a packed word."""
    return word & np.uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _digit_starts(c, n):
    """Counts ``c`` of one digit over n keys -> where each digit's keys start
    (in place); False, ``c`` untouched, when every key shares one digit (the pass
    would move nothing)."""
    for e in range(_RADIX):
        if c[e] == n:
            return False
        if c[e] != 0:
            break
    pos = 0
    for e in range(_RADIX):
        ce = c[e]
        c[e] = pos
        pos += ce
    return True


@njit(cache=True, inline="always")
def _byte_counts(keys, n_passes):
    """``counts[d, e]``: the keys whose digit d (bits ``d _BITS`` up) is e, for the
    ``n_passes`` lowest digits: every pass's counts in one read of the keys."""
    counts = np.zeros((n_passes, _RADIX), dtype=np.int64)
    for i in range(keys.shape[0]):
        k = keys[i]
        for d in range(n_passes):
            counts[d, (k >> (d * _BITS)) & (_RADIX - 1)] += 1
    return counts


@njit(cache=True, inline="always")
def _lsd_rows(keys, keys2, rows, rows2, counts, shift0, n_passes):
    """Stable LSD passes over ``keys`` by the bytes from bit ``shift0`` (``counts``: each
    pass's digit counts, filled), each key's entry of ``rows`` moved with it (``keys2``,
    ``rows2``: the other buffers); True when the result ended in those (an odd number of
    passes moved keys). :func:`_lsd_keys` moves the keys alone."""
    n = keys.shape[0]
    src_k, dst_k = keys, keys2
    src_i, dst_i = rows, rows2
    swapped = False
    for d in range(n_passes):
        c = counts[d]
        if not _digit_starts(c, n):
            continue
        shift = np.uint64(shift0 + d * _BITS)
        for i in range(n):
            k = src_k[i]
            e = (k >> shift) & np.uint64(_RADIX - 1)
            p = np.uint64(c[e])  # unsigned index: no negative-index test
            c[e] += 1
            dst_k[p] = k
            dst_i[p] = src_i[i]
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
        swapped = not swapped
    return swapped


@njit(cache=True)
def _lsd(keys, keys2, order, tmp, n_passes):
    """Stable LSD radix sort of ``order`` by ``keys`` (filled, with ``order``), ``_BITS``
    bits a pass over ``n_passes`` passes; the sorted rows end in ``order``."""
    if _lsd_rows(keys, keys2, order, tmp, _byte_counts(keys, n_passes), 0, n_passes):
        order[:] = tmp


@njit(cache=True, nogil=True, inline="always")
def fix_ties(order, ss, limit):
    """Stable insertion sort of ``order`` by ``ss = s[order]`` (nearly sorted: the
    rows whose float32 keys tie); False after ``limit`` element moves (then
    ``order`` is to be sorted again)."""
    n = order.shape[0]
    moves = 0
    for i in range(1, n):
        x = ss[i]
        if x >= ss[i - 1]:
            continue
        r = order[i]
        j = i - 1
        while j >= 0 and ss[j] > x:
            ss[j + 1] = ss[j]
            order[j + 1] = order[j]
            j -= 1
        ss[j + 1] = x
        order[j + 1] = r
        moves += i - 1 - j
        if moves > limit:
            return False
    return True


@njit(cache=True, inline="always")
def _sort_packed(s, order, keys, keys2, ss):
    """The passes of :func:`_radix_argsort` by float32 keys packed with the rows."""
    n = s.shape[0]
    counts = np.zeros((4, _RADIX), dtype=np.int64)
    low = np.uint32(_RADIX - 1)
    for i in range(n):
        k = _key32(s[i])
        keys[i] = pack_key(k, i)
        counts[0, k & low] += 1
        counts[1, (k >> np.uint32(_BITS)) & low] += 1
        counts[2, (k >> np.uint32(2 * _BITS)) & low] += 1
        counts[3, k >> np.uint32(3 * _BITS)] += 1
    src = keys2 if _lsd_keys(keys, keys2, counts, 32, 4) else keys
    for i in range(n):
        r = unpack_row(src[i])
        order[i] = r
        ss[i] = s[r]


@njit(cache=True, inline="always")
def _sort_records(s, order, keys, keys2, rows, ss):
    """The passes of :func:`_radix_argsort` by the upper 32 bits of the float64 keys,
    each key moved with its row in ``rows``: the sorted scores are the keys'
    values, read in order, instead of a gather of ``s`` by row."""
    n = s.shape[0]
    counts = np.zeros((4, _RADIX), dtype=np.int64)
    low = np.uint64(_RADIX - 1)
    for i in range(n):
        k = _key(s[i])
        keys[i] = k
        rows[0, i] = np.uint32(i)
        counts[0, (k >> np.uint64(32)) & low] += 1
        counts[1, (k >> np.uint64(32 + _BITS)) & low] += 1
        counts[2, (k >> np.uint64(32 + 2 * _BITS)) & low] += 1
        counts[3, k >> np.uint64(32 + 3 * _BITS)] += 1
    src, src_r = keys, rows[0]
    if _lsd_rows(keys, keys2, rows[0], rows[1], counts, 32, 4):
        src, src_r = keys2, rows[1]
    for i in range(n):
        order[i] = src_r[i]
        ss[i] = _value(src[i])  # (-0.0 comes out as 0.0, equal to it)


@njit(cache=True)
def _radix_argsort(s, order, keys, keys2, ss, rows):
    """``order`` = rows of ``s`` by ascending score (stable); the rest: n scratch.

    Four passes of 8 bits by a 32-bit key, then a stable insertion pass by the
    float64 scores fixes the rows whose keys tie. Returns False when the
    insertion pass gives up after ``4 n`` moves (scores packed closer than the
    keys resolve): then :func:`_radix_argsort64` sorts (compiled only if ever
    needed). Two layouts of the passes, the same order:

    * ``rows`` empty: the keys of the scores rounded to float32, each packed with
      its row in one 64-bit word (key high, row low; n < 2^32), so a pass moves 8
      bytes a row; the sorted scores are then gathered, ``ss = s[order]``, a
      random read a row.
    * ``rows`` of shape (2, n) (:func:`radix_scratch` gives it from
      :data:`RECORDS_MIN` rows): the float64 keys, sorted by their upper 32 bits,
      with the row beside each in ``rows`` (12 bytes a row a pass); ``ss`` is
      read off the sorted keys. From about 2^17 rows the gather, which no longer
      stays in the caches, costs more than the wider passes
      (``benchmarks/bench_overheads.py``).
    """
    n = s.shape[0]
    if rows.shape[1] >= n:
        _sort_records(s, order, keys, keys2, rows, ss)
    else:
        _sort_packed(s, order, keys, keys2, ss)
    return fix_ties(order, ss, 4 * n)


@njit(cache=True)
def _radix_argsort64(s, order, keys, keys2, tmp):
    """:func:`_radix_argsort` by the full 64-bit keys."""
    for i in range(s.shape[0]):
        keys[i] = _key(s[i])
        order[i] = i
    _lsd(keys, keys2, order, tmp, _PASSES)


def argsort_scores(s, order, scratch=None, sorted_out=None):
    """``order[:] = `` a stable ascending argsort of float64 ``s``; returns ``order``.

    ``scratch``: optional arrays of n entries (:func:`radix_scratch`) reused
    across calls. ``sorted_out``: optional float64 array of n entries that
    receives ``s[order]``; the radix path writes it in its last pass anyway,
    so a caller that needs the sorted scores saves a gather (a random read a
    row). The radix kernel at every size (compiled at install, :mod:`.ahead`):
    it takes 0.38 / 0.09 / 0.08 / 0.09 of the time of numpy's stable argsort and
    the gather of ``s[order]`` at 2^10 / 2^14 / 2^15 / 2^16 normal scores
    (``benchmarks/bench_overheads.py``).
    """
    n = s.shape[0]
    if scratch is None:
        scratch = radix_scratch(n, order.dtype)
    keys, keys2, _, ss, rows = scratch
    if sorted_out is not None:
        ss = sorted_out
    if n >= 1 << 32 or not _radix_argsort(s, order, keys, keys2, ss, rows):
        argsort_scores64(s, order, scratch, sorted_out)
    return order


def argsort_scores64(s, order, scratch, sorted_out=None):
    """:func:`argsort_scores` by the full 64-bit keys (scores closer than float32
    resolves, or 2^32 rows and more); ``sorted_out`` as there."""
    _radix_argsort64(s, order, *scratch[:3])
    if sorted_out is not None:
        np.take(s, order, out=sorted_out)
    return order


#: groups of up to this many rows are sorted by insertion, larger ones by merge sort
INSERTION_MAX = 32


@njit(cache=True)
def argsort_groups(s, members, seg, order, sorted_out):
    """``order[seg[g]:seg[g+1]]`` = group g's rows ``members[seg[g]:seg[g+1]]`` in
    ascending ``s``, stable (ties keep the order of ``members``), and
    ``sorted_out[t] = s[order[t]]``.

    For many small groups (queries of a few dozen documents) below ``RADIX_MIN``
    rows: numpy's ``lexsort`` by group then score took 1.1 of the 1.3 ms of a loss
    evaluation on MQ2008 (15,211 rows in 784 queries, scratch). An insertion sort
    per group reads each group's scores once, sequentially, and compares them
    against the sorted prefix it keeps in ``sorted_out``.
    """
    for g in range(seg.shape[0] - 1):
        a = seg[g]
        b = seg[g + 1]
        if b - a <= INSERTION_MAX:
            for t in range(a, b):
                r = members[t]
                x = s[r]
                k = t
                while k > a and sorted_out[k - 1] > x:  # (stable: equal keys stay behind)
                    order[k] = order[k - 1]
                    sorted_out[k] = sorted_out[k - 1]
                    k -= 1
                order[k] = r
                sorted_out[k] = x
        else:
            m = b - a
            keys = np.empty(m)
            for t in range(m):
                keys[t] = s[members[a + t]]
            idx = np.argsort(keys, kind="mergesort")
            for t in range(m):
                order[a + t] = members[a + idx[t]]
                sorted_out[a + t] = keys[idx[t]]


def radix_scratch(n, index_dtype=np.int64, records=None):
    """The scratch arrays of :func:`argsort_scores` for n keys: ``(keys, keys2, tmp,
    sorted scores, rows)``. ``records`` (default: from :data:`RECORDS_MIN` rows) gives
    ``rows`` two rows of n entries, and the sort then moves the float64 keys with
    their rows (:func:`_radix_argsort`); otherwise ``rows`` is empty."""
    if records is None:
        records = n >= RECORDS_MIN
    return (np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.uint64),
            np.empty(n, dtype=index_dtype), np.empty(n),
            np.empty((2, n if records else 0), dtype=np.uint32))


@njit(cache=True)
def sort_by_segment(order_all, gid, seg, order):
    """Stable counting sort of ``order_all`` by segment id: ``order[seg[g]:seg[g+1]]`` =
    the rows of segment g, in the order they have in ``order_all`` (ascending score)."""
    nseg = seg.shape[0] - 1
    fill = np.empty(nseg, dtype=np.int64)
    for g in range(nseg):
        fill[g] = seg[g]
    for t in range(order_all.shape[0]):
        r = order_all[t]
        g = gid[r]
        order[fill[g]] = r
        fill[g] += 1


#: :func:`sort_values`' first passes order the keys' upper 32 bits (8 bits a pass);
#: a run sharing them is then ordered by its full keys: by insertion up to
#: SHORT_RUN keys, by a radix sort of its lower 32 bits from LONG_RUN keys (scores
#: packed closer than float32 resolves: no comparison sort of a large run), by
#: numpy's sort in between
SHORT_RUN = 32
LONG_RUN = 1024
_HIGH = np.uint64(32)


@njit(cache=True, inline="always")
def _value(k):
    """The float64 of a key of :func:`_key` (its inverse)."""
    if k >> np.uint64(63):
        return np.uint64(k ^ np.uint64(1 << 63)).view(np.float64)
    return np.uint64(~k).view(np.float64)


@njit(cache=True, inline="always")
def _lsd_keys(a, b, counts, shift0, n_passes):
    """Stable LSD passes over ``a`` by the bytes from bit ``shift0`` (``counts``: each
    pass's digit counts, filled), ``b`` the other buffer; True when the result ended
    in ``b`` (an odd number of passes moved keys)."""
    n = a.shape[0]
    src, dst = a, b
    in_b = False
    for d in range(n_passes):
        c = counts[d]
        if not _digit_starts(c, n):
            continue
        shift = np.uint64(shift0 + d * _BITS)
        for i in range(n):
            k = src[i]
            e = (k >> shift) & np.uint64(_RADIX - 1)
            p = np.uint64(c[e])
            c[e] += 1
            dst[p] = k
        src, dst = dst, src
        in_b = not in_b
    return in_b


@njit(cache=True, inline="always")
def _order_run(run, scratch):
    """The keys of ``run`` (equal upper 32 bits) in ascending order, in place."""
    m = run.shape[0]
    first = run[0]
    same = True
    for a in range(1, m):  # (tied scores: the run is one key, nothing to order)
        same &= run[a] == first
    if same:
        return
    if m <= SHORT_RUN:
        for a in range(1, m):
            k = run[a]
            b = a
            while b > 0 and run[b - 1] > k:
                run[b] = run[b - 1]
                b -= 1
            run[b] = k
    elif m < LONG_RUN:
        run.sort()
    elif _lsd_keys(run, scratch, _byte_counts(run, 4), 0, 4):  # (ended in scratch)
        run[:] = scratch


@njit(cache=True, nogil=True)  # (threads sort pieces at once: metrics.roc_auc's n_jobs)
def sort_values(s, out, scratch):
    """``out[:] = `` the float64 values ``s`` in ascending order (-0.0 written as 0.0;
    ``out`` may be ``s``: sorted in place); ``scratch``: uint64 array of n entries.

    The scores' keys (:func:`_key`, built in ``out``'s memory) are sorted by their
    upper 32 bits in four byte passes (skipped where every key shares the byte),
    then each run of equal upper bits by its full keys (:func:`_order_run`): on
    scores of one scale the runs are a few keys long. Against ``np.sort``
    (``benchmarks/bench_metrics.py``): about a fifth of numpy 1.x's comparison sort's
    time at 10^5-10^7 values; numpy 2's SIMD sort (x86-simd-sort, AVX2) is as fast on
    continuous scores (0.8-1.2x) and faster on many tied ones (0.5-0.8x its time
    with scores rounded to 1e-4 or 1e-2, numpy 2.4). A run of one repeated key (tied
    scores) is left as it is: with scores rounded to 1e-4, 10^7 values sort in
    0.143 s against 0.250 s when such runs were sorted (``bench_metrics.py``).
    """
    n = s.shape[0]
    keys = out.view(np.uint64)
    counts = np.zeros((4, _RADIX), dtype=np.int64)
    for i in range(n):
        k = _key(s[i])
        keys[i] = k
        for d in range(4):
            counts[d, (k >> np.uint64(32 + d * _BITS)) & np.uint64(_RADIX - 1)] += 1
    if _lsd_keys(keys, scratch, counts, 32, 4):
        done, other = scratch, keys
    else:
        done, other = keys, scratch
    i = 0
    while i < n:
        high = done[i] >> _HIGH
        j = i + 1
        while j < n and (done[j] >> _HIGH) == high:
            j += 1
        if j - i > 1:
            _order_run(done[i:j], other[i:j])
        i = j
    for i in range(n):
        out[i] = _value(done[i])
