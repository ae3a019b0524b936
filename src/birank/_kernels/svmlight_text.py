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

Numbers are exact, the value Python's ``float()`` gives: a decimal with at most
15 significant digits, whose power of ten is within 10^22 (``m`` and ``10^k``
are exact doubles, and one IEEE multiplication or division rounds correctly:
Clinger 1990, "How to read floating point numbers accurately", the fast path)
is computed here; any other number (e.g. the 17 digits of a float64 printed in
full) is left to the caller, which converts the token's bytes with ``float()``:
``hard[k] = (slot, start, end)``, slot ``>= 0`` a value, ``< 0`` the label of row
``-slot - 1``.
"""

import numpy as np
from numba import njit

__all__ = ["parse_svmlight_text", "OK"]

#: the status of a text read completely (any other: hand it to the reference parsers)
OK = 0
_UNKNOWN, _ORDER, _MIXED_QID, _EMPTY, _RANGE = 1, 2, 3, 4, 5

_NL, _HASH, _COLON, _DOT, _MINUS, _PLUS = 10, 35, 58, 46, 45, 43
_ZERO, _NINE = 48, 57
_E, _LOWER_E = 69, 101
#: 10^k, exact as doubles for k <= 22
_POW10 = np.array([10.0 ** k for k in range(23)])
#: largest mantissa of the fast path: 15 digits (exact, and far below 2^53)
_MAX_DIGITS = 15


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
            if digits < _MAX_DIGITS:
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
    if k > 22 or k < -22:
        return True, False, 0.0
    v = float(m) * _POW10[k] if k >= 0 else float(m) / _POW10[-k]
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


@njit(cache=True)
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
