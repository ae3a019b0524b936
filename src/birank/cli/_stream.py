"""Line-by-line readers for ``birank evaluate``: files larger than memory.

Only what the metrics need is kept: one float64 label (and an int64 query id)
or one float64 score per row, 8-16 bytes a row, never the file or the feature
columns (a LIBSVM file's are parsed and checked a chunk of rows at a time). Compressed files (gzip, bzip2, xz) are decompressed as a stream.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

import numpy as np

from . import UserError

#: data lines a chunk of :func:`stream_svmlight_labels` (the chunk's features are its memory)
STREAM_CHUNK_ROWS = 10_000

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


def stream_svmlight_labels(path, duplicates="error", progress=None):
    """Labels and groups (``qid:`` tokens or ``<path>.query``; None if the file has neither)
    of a LIBSVM/SVMlight file, in bounded memory: the file is parsed in chunks of rows by
    the whole-file reader (:func:`birank.datasets.iter_svmlight_chunks`), each chunk's
    features checked and dropped, so every error is the whole-file reader's, in its words
    ("X (read as libsvm), line N: ..."). Any index base (labels only). ``progress``:
    ``progress(bytes_read, file_size, message)`` after each chunk.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "a.svm")
    >>> _ = open(p, "w").write("1 qid:3 1:0.5\\n# note\\n-1 qid:3 2:1\\n")
    >>> y, q = stream_svmlight_labels(p)
    >>> y.tolist(), q.tolist()
    ([1.0, -1.0], [3, 3])
    """
    from ..datasets._svmlight import MAX_FEATURE_INDEX, iter_svmlight_chunks
    from ._common import libsvm_error

    labels, groups = [], []
    try:
        for _, y, g in iter_svmlight_chunks(path, chunk_size=STREAM_CHUNK_ROWS,
                                            n_features=MAX_FEATURE_INDEX + 1, zero_based=True,
                                            duplicates=duplicates, query_id="auto",
                                            progress=progress):
            labels.append(y)
            groups.append(g)
    except ValueError as exc:
        raise libsvm_error(path, exc) from None
    y = np.concatenate(labels)
    return y, (None if groups[0] is None else np.concatenate(groups))


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
