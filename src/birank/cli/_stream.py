"""Line-by-line readers for ``birank evaluate``: files larger than memory.

Only what the metrics need is kept: one float64 label (and an int64 query id)
or one float64 score per row, 8-16 bytes a row, never the file or the feature
columns. Compressed files (gzip, bzip2, xz) are decompressed as a stream.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

import numpy as np

from . import UserError

_MAGIC = ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open))


def open_stream(path):
    """A binary file object over the (decompressed) content of ``path``."""
    if not os.path.exists(path):
        raise UserError(f"no such file: {path}")
    with open(path, "rb") as fh:
        head = fh.read(6)
    for magic, opener in _MAGIC:
        if head.startswith(magic):
            return opener(path, "rb")
    return open(path, "rb", buffering=1 << 20)


class _Growing:
    """An append-only float/int array that doubles (amortized O(1), 1-2x the final size)."""

    def __init__(self, dtype):
        self.buf = np.empty(1 << 16, dtype=dtype)
        self.n = 0

    def append(self, v):
        if self.n == self.buf.shape[0]:
            self.buf = np.resize(self.buf, 2 * self.n)
        self.buf[self.n] = v
        self.n += 1

    def array(self):
        return self.buf[:self.n].copy()


def _lines(path):
    with open_stream(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            body = raw.split(b"#", 1)[0].strip()
            if body:
                yield lineno, body


def first_data_line(path):
    """The first non-blank, non-comment line (bytes), without reading further."""
    for _, body in _lines(path):
        return body
    raise UserError(f"{path}: no data lines (empty file or only comments).")


def column_value(tok, path, lineno, kind):
    """One number of a one-column file (``tok``: str), refused in the words of both of
    evaluate's column readers (streamed and whole)."""
    try:
        v = float(tok)
    except ValueError:
        raise UserError(f"{path}, line {lineno}: bad {kind} {tok!r}.") from None
    if not np.isfinite(v):
        raise UserError(f"{path}, line {lineno}: {kind} must be finite; got {tok}.")
    return v


def _libsvm_label(tok, where):
    """A LIBSVM label or ``qid:`` token, refused in the whole-file reader's words (see
    :func:`birank.datasets._svmlight._parse_chunk`), as a ValueError."""
    if not tok.isascii() or "_" in tok:  # (float() reads '1_0' as 10)
        raise ValueError(f"{where}: bad token {tok!r} (only ASCII digits, signs, '.', 'e' "
                         "and ':' may form labels, indices and values).")
    if tok.startswith("qid:"):
        try:
            return int(tok[4:])
        except ValueError:
            raise ValueError(f"{where}: bad query id {tok!r}.") from None
    try:
        label = float(tok)
    except ValueError:
        label = float("nan")
    if not np.isfinite(label):
        raise ValueError(f"{where}: bad label {tok!r} (expected a finite number).")
    return label


def stream_svmlight_labels(path):
    """Labels and query ids (None if the file has none) of a LIBSVM/SVMlight file; its
    errors in the words of the whole-file reader ("X (read as libsvm), line N: ...").

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "a.svm")
    >>> _ = open(p, "w").write("1 qid:3 1:0.5\\n# note\\n-1 qid:3 2:1\\n")
    >>> y, q = stream_svmlight_labels(p)
    >>> y.tolist(), q.tolist()
    ([1.0, -1.0], [3, 3])
    """
    from ._common import libsvm_error

    try:
        return _svmlight_labels(path)
    except ValueError as exc:
        raise libsvm_error(path, exc) from None


def _svmlight_labels(path):
    labels, qids = _Growing(np.float64), _Growing(np.int64)
    first_qid = first_none = None
    for lineno, body in _lines(path):
        toks = body.decode("utf-8", errors="replace").split(None, 2)
        where = f"{path}, line {lineno}"
        labels.append(_libsvm_label(toks[0], where))
        if len(toks) > 1 and toks[1].startswith("qid:"):
            qids.append(_libsvm_label(toks[1], where))
            first_qid = lineno if first_qid is None else first_qid
        else:
            first_none = lineno if first_none is None else first_none
        if first_qid is not None and first_none is not None:
            raise ValueError(f"{path}, line {lineno}: qid: is given on some lines but not on "
                             f"others (line {first_qid} has one, line {first_none} has none).")
    if labels.n == 0:
        raise UserError(f"{path}: no data lines (empty file or only comments).")
    return labels.array(), (qids.array() if first_qid is not None else None)


def stream_column(path, kind):
    """One finite number per line (blank lines and '#' comments skipped), float64."""
    values = _Growing(np.float64)
    for lineno, body in _lines(path):
        toks = body.split()
        if len(toks) != 1:
            raise UserError(f"{path}, line {lineno}: expected one {kind} per line; got "
                            f"{len(toks)} values.")
        values.append(column_value(toks[0].decode(errors="replace"), path, lineno, kind))
    if values.n == 0:
        raise UserError(f"{path}: no data lines (empty file or only comments).")
    return values.array()
