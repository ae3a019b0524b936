"""The radix argsort of the scores over fixed chunks, for threads.

The positions ``0 .. n`` are cut into chunks of ``2^shift`` positions (the last
one shorter, possibly empty), fixed by ``n`` alone, and each kernel works on a
run of chunks, so that threads can share a sort. It is
:func:`.radix_sort._radix_argsort` in its packed layout (float32 keys with the
rows, then the gather of the sorted scores, which the threads share) with
per-chunk digit counts: each chunk scatters its keys to the positions its
counts give, in input order, so the sort stays stable and its result is the one
stable order, the same for any number of threads. From ``RECORDS_MIN`` rows it
takes :func:`.radix_sort._radix_argsort`'s other layout, as that does: the
float64 keys sorted by their upper 32 bits, each with its row beside it, so the
sorted scores are read off the keys instead of gathered by row (the gather, a
random read a row, made the chunked sort 1.5x slower than the sequential one on
one thread at 10^7 rows, and no faster on two: a scratch A/B).
"""

import numpy as np
from numba import njit

from .radix_sort import _RADIX, _key, _key32, _value, pack_key, unpack_row

__all__ = ["chunk_count", "radix_keys", "radix_count", "radix_scatter", "radix_rows"]

def chunk_count(n, shift):
    """Number of chunks of ``2^shift`` positions over ``0 .. n`` (the last may be
    empty, so that position n falls in a chunk too)."""
    return (n >> shift) + 1


@njit(cache=True, nogil=True, inline="always")
def _bounds(c, shift, n):
    c0 = c << shift
    return min(c0, n), min(c0 + (1 << shift), n)


@njit(cache=True, nogil=True)
def radix_keys(s, keys, rows, shift, c_from, c_to, counts):
    """The keys of :func:`.radix_sort._radix_argsort` of the rows of chunks ``c_from ..
    c_to - 1``, and each chunk's counts of the lowest digit of their upper 32 bits
    (``counts[c]``). ``rows`` empty: the packed layout (float32 key high, row low);
    else the records layout (the float64 keys, each row beside its key in ``rows``)."""
    n = s.shape[0]
    records = rows.shape[0] > 0
    low = np.uint64(_RADIX - 1)
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        cnt = counts[c]
        cnt[:] = 0
        s_c, keys_c = s[c0:c1], keys[c0:c1]
        if records:  # (the layout's test out of the loops: a branch inside cost 7-14%)
            rows_c = rows[c0:c1]
            for i in range(c1 - c0):
                k = _key(s_c[i])
                keys_c[i] = k
                rows_c[i] = np.uint32(c0 + i)
                cnt[(k >> np.uint64(32)) & low] += 1
        else:
            for i in range(c1 - c0):
                k = pack_key(_key32(s_c[i]), c0 + i)
                keys_c[i] = k
                cnt[(k >> np.uint64(32)) & low] += 1


@njit(cache=True, nogil=True)
def radix_count(src, digit_shift, shift, c_from, c_to, counts):
    """Each chunk's counts of one digit of the keys."""
    n = src.shape[0]
    sh = np.uint64(digit_shift)
    mask = np.uint64(_RADIX - 1)
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        cnt = counts[c]
        cnt[:] = 0
        src_c = src[c0:c1]
        for i in range(c1 - c0):
            cnt[(src_c[i] >> sh) & mask] += 1


@njit(cache=True, nogil=True)
def radix_scatter(src, dst, src_r, dst_r, digit_shift, shift, c_from, c_to, start):
    """Stable scatter of chunks' keys by one digit: ``start[c, e]`` is where chunk c's
    first key of digit e goes (all chunks' keys of smaller digits, and chunk c's
    predecessors' keys of digit e, come first). In the records layout (``src_r``
    not empty) each key's row moves with it (``src_r`` to ``dst_r``)."""
    n = src.shape[0]
    records = src_r.shape[0] > 0
    sh = np.uint64(digit_shift)
    mask = np.uint64(_RADIX - 1)
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        pos = start[c]
        src_c = src[c0:c1]
        if records:
            src_rc = src_r[c0:c1]
            for i in range(c1 - c0):
                x = src_c[i]
                e = (x >> sh) & mask
                p = np.uint64(pos[e])
                pos[e] += 1
                dst[p] = x
                dst_r[p] = src_rc[i]
        else:
            for i in range(c1 - c0):
                x = src_c[i]
                e = (x >> sh) & mask
                p = np.uint64(pos[e])
                pos[e] += 1
                dst[p] = x
        # (pos is this chunk's own row of start: no other chunk writes it)


@njit(cache=True, nogil=True)
def radix_rows(src, src_r, s, order, ss, shift, c_from, c_to):
    """``order`` = the rows of the sorted keys and ``ss = s[order]``: packed (``src_r``
    empty), the rows unpacked and the scores gathered; records, the rows beside the
    keys and the scores read off them (-0.0 as 0.0, equal to it, as the sequential
    sort gives it)."""
    n = src.shape[0]
    records = src_r.shape[0] > 0
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        src_c, order_c, ss_c = src[c0:c1], order[c0:c1], ss[c0:c1]
        if records:
            src_rc = src_r[c0:c1]
            for i in range(c1 - c0):
                order_c[i] = src_rc[i]
                ss_c[i] = _value(src_c[i])
        else:
            for i in range(c1 - c0):
                r = unpack_row(src_c[i])
                order_c[i] = r
                ss_c[i] = s[r]
