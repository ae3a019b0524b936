"""LIBSVM / SVMlight text to CSR arrays in one pass over the bytes (the reader's fast path).

The grammar is the one :func:`birank.datasets._svmlight._slow_parse` accepts (it
stays the reference, and the only one that names errors): lines split at ``\\n``,
text after ``#`` ignored, tokens separated by ASCII blanks; a data line is a
label, an optional ``qid:<int>``, then ``<index>:<value>`` tokens. This kernel
takes only what it can read *unambiguously*, and otherwise stops with a status
so that the caller hands the text to the reference parsers: anything it does not
recognise (a sign on an index, ``inf``, ``nan``, a non-ASCII byte, ``_``, ``qid:``
on some lines only, an empty data text), indices not strictly increasing within
a row (so ``duplicates`` never matters here) or an index above ``max_index``.

Numbers are exact, the value Python's ``float()`` gives (correctly rounded):

* a decimal ``m 10^k`` with at most 15 significant digits and ``|k| <= 22``: ``m``
  and ``10^k`` are exact doubles, and one IEEE multiplication or division rounds
  correctly (Clinger 1990, "How to read floating point numbers accurately");
* up to 18 digits and ``-342 <= k <= 308`` (the 17 digits of a float64 printed in
  full): ``m`` times a 128-bit truncation of ``10^k`` (:func:`_times_pow10`; the
  idea of Lemire 2021, "Number parsing at a gigabyte per second"). The truncation
  puts the exact product in a known interval of width 2 units of its 128th bit;
  the rounding is decided when that interval cannot straddle a rounding boundary
  (all but about 2^-9 of the cases), else, like a subnormal or an overflow, left
  to the caller;
* anything else is left to the caller, which converts the token's bytes with
  ``float()``: ``hard[k] = (slot, start, end)``, slot ``>= 0`` a value, ``< 0`` the
  label of row ``-slot - 1``.
"""

import math

import numpy as np
from numba import njit

__all__ = ["parse_svmlight_text", "OK", "EMPTY"]

#: the status of a text read completely (any other: hand it to the reference parsers)
OK = 0
#: a text read completely without a data line (only comments or blank lines)
EMPTY = 4
_UNKNOWN, _ORDER, _MIXED_QID, _EMPTY, _RANGE = 1, 2, 3, EMPTY, 5

_NL, _HASH, _COLON, _DOT, _MINUS, _PLUS = 10, 35, 58, 46, 45, 43
_ZERO, _NINE = 48, 57
_E, _LOWER_E = 69, 101
#: 10^k, exact as doubles for k <= 22
_POW10 = np.array([10.0 ** k for k in range(23)])
#: largest mantissa of the fast path: 15 digits (exact, and far below 2^53)
_MAX_DIGITS = 15
#: digits a mantissa may have at all (10^18 < 2^63: an int64)
_MAX_ALL_DIGITS = 18
#: powers of ten of the 128-bit path: 10^k ~ (hi 2^64 + lo) 2^e, hi's top bit set,
#: truncated (exact where 5^k fits 128 bits)
_P10_MIN, _P10_MAX = -342, 308


def _pow10_table():
    hi, lo, ex = [], [], []
    for k in range(_P10_MIN, _P10_MAX + 1):
        if k >= 0:
            five = 5 ** k
            shift = 128 - five.bit_length()
            m = five << shift if shift >= 0 else five >> -shift  # 10^k = m 2^(k - shift)
            e = k - shift
        else:
            five = 5 ** -k
            bits = 127 + five.bit_length()
            m = (1 << bits) // five  # 10^k = 2^(k - bits) (2^bits / 5^-k), floored
            e = k - bits
        hi.append(m >> 64)
        lo.append(m & (2**64 - 1))
        ex.append(e)
    return (np.array(hi, dtype=np.uint64), np.array(lo, dtype=np.uint64),
            np.array(ex, dtype=np.int64))


_P10_HI, _P10_LO, _P10_EXP = _pow10_table()
_U32 = np.uint64(0xFFFFFFFF)
_U64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def _blank(c):
    # the ASCII blanks str.split() splits on inside a line ('\n' ends the line);
    # 0x1c-0x1f (also split on by Python) are left to the reference parser
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True, inline="always")
def _token_end(data, p, end):
    while p < end and not _blank(data[p]):
        p += 1
    return p


@njit(cache=True, inline="always")
def _mul64(a, b):
    """The 128-bit product of two uint64: ``(high word, low word)``."""
    s32 = np.uint64(32)
    a0, a1, b0, b1 = a & _U32, a >> s32, b & _U32, b >> s32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s32) + (p01 & _U32) + (p10 & _U32)
    return p11 + (p01 >> s32) + (p10 >> s32) + (mid >> s32), ((mid & _U32) << s32) | (p00 & _U32)


@njit(cache=True, inline="always")
def _bit_length64(x):
    n = 0
    one = np.uint64(1)
    while x:
        x >>= one
        n += 1
    return n


@njit(cache=True, inline="always")
def _times_pow10(m, k):
    """``(ok, m 10^k)`` correctly rounded, for an int ``1 <= m < 2^63``; ok False where
    the 128-bit product cannot decide (or the result is subnormal or overflows)."""
    if k < _P10_MIN or k > _P10_MAX:
        return False, 0.0
    i = k - _P10_MIN
    w = np.uint64(m)
    # P = w (hi 2^64 + lo), of which the top 128 bits T = (t2, t1); the exact product
    # w 10^k 2^-e is in [P, P + w) (the table is floored), so in [T, T + 2) 2^64
    h1, l1 = _mul64(w, _P10_HI[i])
    h0, _ = _mul64(w, _P10_LO[i])
    if l1 > _U64_MAX - h0:  # the carry of t1 = l1 + h0, without wrapping
        t1 = l1 - (_U64_MAX - h0) - np.uint64(1)
        t2 = h1 + np.uint64(1)
    else:
        t1 = l1 + h0
        t2 = h1
    # T >= 2^63 (w >= 1, hi >= 2^63); keep its top 54 bits m54 and the s bits below, r
    top = _bit_length64(t2)
    s = 10 + top  # T has 64 + top bits (64 when t2 == 0)
    ones = False  # r's bits 1 .. s-1 all set (r >= 2^s - 2)
    zero = False  # r == 0
    if s < 64:
        us = np.uint64(s)
        m54 = (t2 << np.uint64(64 - s)) | (t1 >> us)
        low = t1 & ((np.uint64(1) << us) - np.uint64(1))
        ones = (low | np.uint64(1)) == ((np.uint64(1) << us) - np.uint64(1))
        zero = low == 0
    elif s == 64:
        m54 = t2
        ones = (t1 | np.uint64(1)) == _U64_MAX
        zero = t1 == 0
    else:
        us = np.uint64(s - 64)
        m54 = t2 >> us
        high = t2 & ((np.uint64(1) << us) - np.uint64(1))
        ones = (t1 | np.uint64(1)) == _U64_MAX and high == ((np.uint64(1) << us) - np.uint64(1))
        zero = t1 == 0 and high == 0
    # round to nearest: the exact value is (m54 + (r + f) / 2^s) 2^(s + 64 + e), f in [0, 2)
    m53 = m54 >> np.uint64(1)
    exp2 = s + 1 + 64 + _P10_EXP[i]
    if m54 & np.uint64(1):  # at least half an ulp: up, unless it may be exactly half
        if zero:
            return False, 0.0
        m53 += np.uint64(1)
        if m53 == np.uint64(1) << np.uint64(53):
            m53 = np.uint64(1) << np.uint64(52)
            exp2 += 1
    elif ones:  # below half an ulp, unless r + f may carry into the half
        return False, 0.0
    if exp2 < -1074 or exp2 > 971:  # subnormal or overflow: float() decides
        return False, 0.0
    return True, math.ldexp(float(m53), int(exp2))


@njit(cache=True, inline="always")
def _number(data, p, end):
    """The decimal number ``data[p:end]``: ``(ok, exact, value)``. ``ok`` False: not a
    plain decimal (the reference decides); ``exact`` False: a decimal beyond the fast
    path (the caller's ``float()`` converts it)."""
    neg = False
    if p < end and (data[p] == _MINUS or data[p] == _PLUS):
        neg = data[p] == _MINUS
        p += 1
    m = np.int64(0)
    digits = 0  # significant digits (leading zeros skipped)
    seen = 0  # digits of the mantissa, zeros included
    scale = 0  # power of ten of the last mantissa digit
    frac = False
    too_long = False
    while p < end:
        c = data[p]
        if _ZERO <= c <= _NINE:
            seen += 1
            if digits < _MAX_ALL_DIGITS:
                if m != 0 or c != _ZERO:
                    m = m * 10 + (int(c) - _ZERO)
                    digits += 1
                if frac:
                    scale -= 1
            else:
                too_long = True
            p += 1
        elif c == _DOT and not frac:
            frac = True
            p += 1
        else:
            break
    if seen == 0:
        return False, False, 0.0
    exp = 0
    if p < end and (data[p] == _E or data[p] == _LOWER_E):
        p += 1
        eneg = False
        if p < end and (data[p] == _MINUS or data[p] == _PLUS):
            eneg = data[p] == _MINUS
            p += 1
        if p == end:
            return False, False, 0.0
        while p < end:
            c = data[p]
            if not (_ZERO <= c <= _NINE):
                return False, False, 0.0
            if exp < 100000:
                exp = exp * 10 + (int(c) - _ZERO)
            p += 1
        if eneg:
            exp = -exp
    if p != end:
        return False, False, 0.0
    if too_long:
        return True, False, 0.0
    if m == 0:
        return True, True, -0.0 if neg else 0.0
    k = scale + exp
    if digits <= _MAX_DIGITS and -22 <= k <= 22:
        v = float(m) * _POW10[k] if k >= 0 else float(m) / _POW10[-k]
    else:
        ok, v = _times_pow10(m, k)
        if not ok:
            return True, False, 0.0
    return True, True, -v if neg else v


@njit(cache=True, inline="always")
def _integer(data, p, end, signed):
    """The integer ``data[p:end]`` (at most 18 digits; a '-' only if ``signed``):
    ``(ok, value)``."""
    neg = False
    if signed and p < end and data[p] == _MINUS:
        neg = True
        p += 1
    if p == end or end - p > 18:
        return False, np.int64(0)
    v = np.int64(0)
    while p < end:
        c = data[p]
        if not (_ZERO <= c <= _NINE):
            return False, np.int64(0)
        v = v * 10 + (int(c) - _ZERO)
        p += 1
    return True, -v if neg else v


@njit(cache=True, nogil=True)  # (load_svmlight's n_jobs: pieces of a file on threads)
def parse_svmlight_text(data, zero_based, max_index, labels, qids, indptr, indices, values,
                        hard):
    """Parse the LIBSVM text ``data`` (uint8) into the caller's arrays.

    ``labels``, ``qids`` (one a line at least), ``indptr`` (lines + 1; int32 or int64),
    ``indices`` (int32) and ``values`` (one a ':' at least), ``hard`` (rows: one a number at least,
    3 columns). Returns ``(status, rows, nnz, hard numbers, width, has_qid)``: status
    :data:`OK`, or the reason it stopped (the caller then uses the reference parsers);
    width = largest column + 1 (0 without entries).
    """
    n = data.shape[0]
    offset = 0 if zero_based else 1
    rows = 0
    nnz = 0
    n_hard = 0
    width = 0
    has_qid = -1  # unknown until the first data line
    indptr[0] = 0
    p = 0
    while p < n:
        # one line: p .. stop (the '\n' or the end), the body before any '#'
        stop = p
        end = -1
        while stop < n:
            c = data[stop]
            if c == _NL:
                break
            if end < 0:
                if c == _HASH:
                    end = stop
                elif c > 126 or (c < 32 and not _blank(c)) or c == 95:
                    # non-ASCII, a control byte or '_' in the body: the reference's word
                    return _UNKNOWN, rows, nnz, n_hard, width, has_qid
            stop += 1
        if end < 0:
            end = stop
        q = p
        while q < end and _blank(data[q]):
            q += 1
        if q == end:  # blank or comment line
            p = stop + 1
            continue
        # the label
        t = _token_end(data, q, end)
        ok, exact, v = _number(data, q, t)
        if not ok:
            return _UNKNOWN, rows, nnz, n_hard, width, has_qid
        if not exact:
            hard[n_hard, 0] = -rows - 1
            hard[n_hard, 1] = q
            hard[n_hard, 2] = t
            n_hard += 1
        labels[rows] = v
        q = t
        while q < end and _blank(data[q]):
            q += 1
        # qid:<int>
        line_qid = 0
        if q + 4 <= end and data[q] == 113 and data[q + 1] == 105 and data[q + 2] == 100 \
                and data[q + 3] == _COLON:
            t = _token_end(data, q, end)
            ok, qv = _integer(data, q + 4, t, True)
            if not ok:
                return _UNKNOWN, rows, nnz, n_hard, width, has_qid
            qids[rows] = qv
            line_qid = 1
            q = t
        if has_qid == -1:
            has_qid = line_qid
        elif has_qid != line_qid:
            return _MIXED_QID, rows, nnz, n_hard, width, has_qid
        # index:value tokens, strictly increasing
        last = -1
        while True:
            while q < end and _blank(data[q]):
                q += 1
            if q == end:
                break
            t = _token_end(data, q, end)
            colon = q
            while colon < t and data[colon] != _COLON:
                colon += 1
            if colon == t:
                return _UNKNOWN, rows, nnz, n_hard, width, has_qid
            ok, idx = _integer(data, q, colon, False)
            if not ok:  # also 'qid:' out of place: the reference names it
                return _UNKNOWN, rows, nnz, n_hard, width, has_qid
            col = idx - offset
            if col < 0 or col > max_index:
                return _RANGE, rows, nnz, n_hard, width, has_qid
            if col <= last:
                return _ORDER, rows, nnz, n_hard, width, has_qid
            last = col
            ok, exact, v = _number(data, colon + 1, t)
            if not ok:
                return _UNKNOWN, rows, nnz, n_hard, width, has_qid
            if not exact:
                hard[n_hard, 0] = nnz
                hard[n_hard, 1] = colon + 1
                hard[n_hard, 2] = t
                n_hard += 1
            indices[nnz] = col
            values[nnz] = v
            nnz += 1
            q = t
        if last + 1 > width:
            width = last + 1
        rows += 1
        indptr[rows] = nnz
        p = stop + 1
    if rows == 0:
        return _EMPTY, rows, nnz, n_hard, width, has_qid
    return OK, rows, nnz, n_hard, width, has_qid
