"""LIBSVM / SVMlight text files: reading (with ``qid:`` or a ``.query`` file) and writing.

The format, one sample per line::

    <label> [qid:<int>] <index>:<value> <index>:<value> ... [# comment]

Indices are one-based unless ``zero_based=True``; zeros may be omitted. Files
may be plain, gzip, bzip2 or xz compressed (recognised by their first bytes).

Three parsers, one result: text under :data:`_SMALL_BYTES` goes to the
line-by-line parser (:func:`_slow_parse`: no import of numba or scikit-learn, for
a fast start on small files), which is the reference for what is valid and the
only one that names errors; larger text, in chunks of :data:`CHUNK_BYTES`, to the
compiled one-pass reader (:mod:`birank._kernels.svmlight_text`: 4-14x as fast as
scikit-learn's ``load_svmlight_file``, ``benchmarks/bench_svmlight_read.py``),
which declines anything unusual, then to scikit-learn's parser, then to the
reference. Each gives the same matrix, bit for bit (tests/test_svmlight_text.py).
:func:`load_svmlight` hands a plain file to the compiled reader a block at a time
(:func:`_kernel_parse_file`), so that the whole text is never held with the arrays.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import math
import os
import stat
import zlib
from typing import TYPE_CHECKING, overload

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, Literal

    from scipy.sparse import csr_matrix

    from .._typing import ArrayLike, FloatArray, IntArray, MatrixLike, StrPath

    _Duplicates = Literal["error", "sum", "last"]
    _XY = tuple[csr_matrix, FloatArray]

__all__ = ["load_svmlight", "load_svmlight_bytes", "dump_svmlight", "read_query_file",
           "iter_svmlight_chunks"]

_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
)
_DUPLICATES = ("error", "sum", "last")
NEWLINE = b"\n"
#: bytes decompressed or parsed between two returns to Python (where Ctrl-C is
#: honoured and progress is reported)
CHUNK_BYTES = 4 << 20
#: below this size the pure-Python parser is used: it needs no scikit-learn
#: import, which costs more than parsing a small file (`birank predict` starts fast)
_SMALL_BYTES = 256 << 10
#: feature indices must fit the int32 column indices the kernels use; a larger
#: one would mean a dense weight vector of > 16 GiB
MAX_FEATURE_INDEX = 2**31 - 2


def _decompressor(kind):
    if kind == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip header, one member at a time
    if kind == "bzip2":
        return bz2.BZ2Decompressor()
    return lzma.LZMADecompressor()


def _compression(raw):
    for magic, kind in _MAGIC:
        if raw[:len(magic)] == magic:
            return kind
    return None


def read_bytes(path: StrPath, *, in_place: bool = False) -> bytes:
    """Whole content of ``path``, decompressed if it is gzip, bzip2 or xz.

    Reading and decompression go in blocks of :data:`CHUNK_BYTES`, so a
    Ctrl-C is honoured within one block.

    Raises
    ------
    FileNotFoundError, IsADirectoryError, PermissionError
        With a message naming the path.
    ValueError
        A truncated or corrupted compressed file.
    """
    return decompress_bytes(read_raw(path, in_place=in_place), os.fspath(path))


def read_raw(path: StrPath, *, in_place: bool = False) -> bytes:
    """Whole content of ``path`` as stored, read in blocks of :data:`CHUNK_BYTES` (a Ctrl-C
    is honoured between two reads); FIFOs and devices are read as streams. Errors name
    the path (FileNotFoundError, IsADirectoryError, PermissionError).

    ``in_place``: a regular file comes as a ``bytearray`` of its size, read into in
    place (joining blocks costs fresh memory twice: 3.4x the time of the reads alone
    on a 523 MB file); for readers that take any bytes-like text
    (:func:`load_svmlight_bytes`)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a directory, not a data file.")
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path}")
    try:
        fh = open(path, "rb")
    except PermissionError:
        raise PermissionError(f"cannot read {path}: permission denied.") from None
    with fh:
        info = os.fstat(fh.fileno())
        size = info.st_size
        if not in_place or not stat.S_ISREG(info.st_mode) or size == 0:
            blocks = []
            while True:
                block = fh.read(CHUNK_BYTES)
                if not block:
                    break
                blocks.append(block)
            return b"".join(blocks)
        data = bytearray(size)
        view = memoryview(data)
        done = 0
        while done < size:
            got = fh.readinto(view[done:done + CHUNK_BYTES])
            if not got:  # the file shrank while read
                break
            done += got
        del view
        del data[done:]
        data += fh.read()  # (the file grew while read)
    return data  # type: ignore[return-value]  # (bytes-like: see in_place)


#: the UTF-8 byte-order mark some Windows editors put first in a text file
UTF8_BOM = b"\xef\xbb\xbf"


def decompress_bytes(raw: bytes, name: str = "<bytes>") -> bytes:
    """``raw`` decompressed if it starts like gzip, bzip2 or xz data, else as is, without
    a leading UTF-8 byte-order mark (the text starts after it).

    Concatenated members (``cat a.gz b.gz``) are all read. A stream that ends
    early is reported as truncated rather than silently cut short.
    """
    kind = _compression(raw)
    if kind is None:
        return raw[len(UTF8_BOM):] if raw.startswith(UTF8_BOM) else raw
    out, rest = [], memoryview(raw)
    try:
        while len(rest):
            dec = _decompressor(kind)
            pos = 0
            while pos < len(rest) and not dec.eof:
                out.append(dec.decompress(rest[pos:pos + CHUNK_BYTES]))
                pos += CHUNK_BYTES
            if not dec.eof:
                raise ValueError(f"{name}: cannot decompress ({kind} data is truncated: the "
                                 "file ends before the end-of-stream marker).")
            rest = memoryview(dec.unused_data + bytes(rest[pos:]))
            if len(rest) and _compression(bytes(rest[:6])) != kind:
                if not bytes(rest).strip(b"\x00"):
                    break  # zero padding after the last member (tar-style)
                raise ValueError(f"{name}: cannot decompress (trailing garbage after the "
                                 f"{kind} stream).")
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        raise ValueError(f"{name}: cannot decompress ({exc}).") from None
    data = b"".join(out)
    return data[len(UTF8_BOM):] if data.startswith(UTF8_BOM) else data


def read_query_file(path: StrPath, *, n_rows: int | None = None) -> IntArray:
    """Group ids from a LightGBM-style ``.query`` file (one count of consecutive rows a line).

    Parameters
    ----------
    path : str or Path
        The ``.query`` file (plain, or compressed with gzip, bzip2 or xz). Text
        after ``#`` and blank lines are ignored.
    n_rows : int, default=None
        The number of rows of the data file; when given, the counts must add
        up to it.

    Returns
    -------
    groups : ndarray of int64 of shape (sum(counts),)
        The group id of each row: 0 for the first count's rows, then 1, ...
        (``0, 0, ..., 1, 1, ...``).

    Raises
    ------
    ValueError
        Naming the file and the line of a count that is not a positive
        integer, or when the counts do not add up to ``n_rows``.

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.datasets import read_query_file
    >>> path = os.path.join(tempfile.mkdtemp(), "train.txt.query")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("2\\n3  # second query\\n")
    >>> read_query_file(path, n_rows=5).tolist()
    [0, 0, 1, 1, 1]
    """
    text = read_bytes(path).decode("utf-8", errors="replace")
    counts = []
    for lineno, line in enumerate(text.splitlines(), 1):
        tok = line.split("#", 1)[0].strip()
        if not tok:
            continue
        try:
            c = int(tok)
        except ValueError:
            c = -1
        if c <= 0:
            raise ValueError(
                f"{path}, line {lineno}: a query size must be a positive integer; got {tok!r}."
            )
        counts.append(c)
    sizes = np.asarray(counts, dtype=np.int64)
    total = int(sizes.sum())
    if n_rows is not None and total != n_rows:
        raise ValueError(
            f"{path}: the query sizes add up to {total} rows, but the data file has "
            f"{n_rows} rows."
        )
    return np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)


def _check_options(n_features, zero_based, duplicates):
    if n_features is not None and (
        isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer))
        or n_features < 1
    ):
        raise ValueError(f"n_features must be a positive int or None; got {n_features!r}.")
    if not isinstance(zero_based, (bool, np.bool_)):
        raise ValueError(f"zero_based must be True or False; got {zero_based!r}.")
    if duplicates not in _DUPLICATES:
        raise ValueError(
            f"duplicates must be one of {', '.join(map(repr, _DUPLICATES))}; got {duplicates!r}."
        )


def _fast_parse(data, n_features, zero_based):
    """scikit-learn's compiled parser; returns None where the slow path must decide."""
    from sklearn.datasets import load_svmlight_file

    try:
        X, y, qid = load_svmlight_file(
            io.BytesIO(data), n_features=n_features, dtype=np.float64,
            zero_based=zero_based, query_id=True,
        )
    except (ValueError, IndexError, OverflowError, TypeError, UnicodeDecodeError):
        return None
    if X.shape[0] == 0:
        return None
    if not (np.isfinite(y).all() and np.isfinite(X.data).all()):
        return None
    has_qid = b"qid:" in data
    if has_qid and (data.count(b"qid:") != X.shape[0] or b"#" in data
                    or qid.shape[0] != X.shape[0]):
        return None  # qid missing on some line, or in a comment: let the slow path decide
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    # the width is the largest index seen, as in the line parser (scikit-learn
    # makes a file without any feature one column wide)
    width = int(X.indices.max()) + 1 if X.nnz else 0
    if width != X.shape[1]:
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
    return X, y.astype(np.float64), (qid.astype(np.int64) if has_qid else None)


def _slow_parse(data, name, n_features, zero_based, duplicates, first_line=1,
                allow_empty=False):
    """Line-by-line parser: the reference for what is valid, with line numbers in errors.

    ``first_line`` is the number of the first line of ``data`` in the file (for a
    chunk); with ``allow_empty`` a chunk of only comments gives 0 rows.
    """
    offset = 0 if zero_based else 1
    labels, qids, indptr, indices, values = [], [], [0], [], []
    first_qid_line = first_noqid_line = None
    text = data.decode("utf-8", errors="replace")
    for lineno, line in enumerate(text.split("\n"), first_line):
        body = line.split("#", 1)[0]
        tokens = body.split()
        if not tokens:
            continue
        where = f"{name}, line {lineno}"
        if not body.isascii() or "_" in body:
            # Python's int()/float() read '1_0' as 10 and full-width digits as digits;
            # LIBSVM text is ASCII numbers only
            bad = next(t for t in tokens if not t.isascii() or "_" in t)
            raise ValueError(f"{where}: bad token {bad!r} (only ASCII digits, signs, '.', "
                             "'e' and ':' may form labels, indices and values).")
        try:
            label = float(tokens[0])
        except ValueError:
            label = math.nan
        if not math.isfinite(label):
            raise ValueError(f"{where}: bad label {tokens[0]!r} (expected a finite number).")
        start = 1
        if len(tokens) > 1 and tokens[1].startswith("qid:"):
            try:
                q = int(tokens[1][4:])
            except ValueError:
                raise ValueError(f"{where}: bad query id {tokens[1]!r}.") from None
            qids.append(q)
            if first_qid_line is None:
                first_qid_line = lineno
            start = 2
        elif first_noqid_line is None:
            first_noqid_line = lineno
        row: dict[int, int] = {}  # column -> its position in row_idx / row_val
        row_idx: list[int] = []
        row_val: list[float] = []
        for tok in tokens[start:]:
            if tok.startswith("qid:"):
                raise ValueError(
                    f"{where}: {tok!r} is misplaced; qid: must come right after the label."
                )
            idx_s, sep, val_s = tok.partition(":")
            try:
                idx = int(idx_s)
                val = float(val_s)
            except ValueError:
                idx, val = None, math.nan
            if not sep or idx is None or not math.isfinite(val):
                raise ValueError(
                    f"{where}: bad feature token {tok!r} (expected index:value with an "
                    "integer index and a finite value)."
                )
            col = idx - offset
            if col < 0:
                raise ValueError(
                    f"{where}: feature index {idx} is invalid "
                    + ("(indices are one-based; pass zero_based=True for 0-based files)."
                       if offset else "(must be >= 0).")
                )
            if col > MAX_FEATURE_INDEX:
                raise ValueError(
                    f"{where}: feature index {idx} is too large (birank supports indices "
                    f"up to {MAX_FEATURE_INDEX + offset}: a weight vector that long would "
                    "not fit in memory); remap or hash the features to a smaller range."
                )
            if n_features is not None and col >= n_features:
                raise ValueError(
                    f"{where}: feature index {idx} exceeds n_features={n_features}."
                )
            if col in row:
                if duplicates == "error":
                    raise ValueError(
                        f"{where}: feature index {idx} appears twice in the row "
                        "(pass duplicates='sum' or 'last' to accept such files)."
                    )
                if duplicates == "sum":
                    row_val[row[col]] += val
                else:
                    row_val[row[col]] = val
                continue
            row[col] = len(row_idx)
            row_idx.append(col)
            row_val.append(val)
        labels.append(label)
        indices.extend(row_idx)
        values.extend(row_val)
        indptr.append(len(indices))
        if first_qid_line is not None and first_noqid_line is not None:
            bad = max(first_qid_line, first_noqid_line)
            raise ValueError(
                f"{name}, line {bad}: qid: is given on some lines but not on others "
                f"(line {first_qid_line} has one, line {first_noqid_line} has none)."
            )
    if not labels and not allow_empty:
        raise ValueError(f"{name}: no data lines (empty file or only comments).")
    cols = np.asarray(indices, dtype=np.int64)
    width = int(cols.max()) + 1 if cols.size else 0
    if n_features is not None:
        width = n_features
    X = sp.csr_matrix(
        (np.asarray(values, dtype=np.float64), cols, np.asarray(indptr, dtype=np.int64)),
        shape=(len(labels), width),
    )
    X.sort_indices()
    X = sp.csr_matrix(X)
    y = np.asarray(labels, dtype=np.float64)
    return X, y, (np.asarray(qids, dtype=np.int64) if qids else None)


def _chunks(data, size):
    """``(start, end)`` byte ranges of about ``size`` bytes, cut after a newline."""
    n = len(data)
    start = 0
    while start < n:
        end = min(start + size, n)
        if end < n:
            nl = data.find(b"\n", end)
            end = n if nl < 0 else nl + 1
        yield start, end
        start = end


def _kernel_buffers(lines, colons):
    """Output arrays of :func:`birank._kernels.svmlight_text.parse_svmlight_text` for text
    of ``lines`` newlines and ``colons`` colons: labels, qids, indptr, indices, values."""
    # int32 offsets where they fit: scipy would otherwise widen the indices to int64
    return (np.empty(lines + 1), np.empty(lines + 1, dtype=np.int64),
            np.empty(lines + 2, dtype=np.int32 if colons < 2**31 else np.int64),
            np.empty(colons, dtype=np.int32), np.empty(colons))


def _kernel_fill(data, start, end, zero_based, out, row0, nnz0, hard):
    """Parse ``data[start:end]`` into the arrays ``out`` (:func:`_kernel_buffers`) from row
    ``row0`` and entry ``nnz0`` on: ``(rows, nnz, width, has_qid)``, rows 0 for text
    without data lines, or None where the compiled reader declines the text. ``hard``:
    ``(end - start) // 2 + 1`` rows or more (a number takes a byte and a separator)."""
    from .._kernels.svmlight_text import EMPTY, OK, parse_svmlight_text

    labels, qids, indptr, indices, values = out
    buf = np.frombuffer(data, dtype=np.uint8)[start:end]
    buf.flags.writeable = False  # (a bytearray's view: the type the kernel is compiled for)
    status, rows, nnz, n_hard, width, has_qid = parse_svmlight_text(
        buf, zero_based, MAX_FEATURE_INDEX, labels[row0:], qids[row0:], indptr[row0:],
        indices[nnz0:], values[nnz0:], hard)
    if status == EMPTY:
        return 0, 0, 0, False
    if status != OK:
        return None
    if n_hard:  # numbers the kernel cannot round (rare): Python's float()
        slots, first, last = hard[:n_hard].T
        got = np.array([float(data[start + a:start + b])
                        for a, b in zip(first.tolist(), last.tolist())])
        if not np.isfinite(got).all():
            return None  # (the reference names the line)
        value = slots >= 0
        values[nnz0 + slots[value]] = got[value]
        labels[row0 - slots[~value] - 1] = got[~value]
    if nnz0:
        indptr[row0:row0 + rows + 1] += nnz0
    return rows, nnz, width, bool(has_qid)


def _kernel_parse(data, zero_based, chunk_bytes=None, progress=None):
    """The compiled one-pass reader (:mod:`birank._kernels.svmlight_text`) over the whole
    text, a chunk of about ``chunk_bytes`` at a time (Ctrl-C and ``progress`` between
    two) into arrays sized once: ``(X, y, qid)``, or None where the text is not plainly
    valid (the other parsers then decide)."""
    total = len(data)
    if not total:
        return None
    filled = _Filled(data.count(NEWLINE) + 1, data.count(b":"))
    ranges = list(_chunks(data, chunk_bytes or total or 1))
    # the numbers left to float(), one array for every chunk (its pages touched only
    # where used)
    hard = np.empty((max(e - s for s, e in ranges) // 2 + 1, 3), dtype=np.int64)
    for start, end in ranges:
        if not filled.add(data, start, end, zero_based, hard):
            return None
        if progress is not None:
            progress(end, total, "parsing")
    return filled.result()


class _Filled:
    """The arrays the compiled reader fills a piece of text at a time (sized once, for
    ``lines`` newlines and ``colons`` colons), and the rows, entries and width so far."""

    def __init__(self, lines, colons):
        self.out = _kernel_buffers(lines, colons)
        self.rows = self.nnz = self.width = 0
        self.has_qid = None

    def add(self, data, start, end, zero_based, hard):
        """Parse ``data[start:end]`` after what is filled (:func:`_kernel_fill`); False
        where the reader declines it, or ``qid:`` is on the lines of some pieces only
        (the reference parser names the line)."""
        return self._count(_kernel_fill(data, start, end, zero_based, self.out, self.rows,
                                        self.nnz, hard))

    def add_placed(self, parts):
        """Pieces parsed (on threads) at rows and entries far enough apart for any
        piece, ``[(row0, nnz0, result of _kernel_fill), ...]`` in text order: each moved
        down after what is filled (its row pointers by as much), as :meth:`add` in turn
        would have filled them."""
        labels, qids, indptr, indices, values = self.out
        for row0, nnz0, got in parts:
            if got is None:
                return False
            rows, nnz = got[0], got[1]
            at, nnz_at = self.rows, self.nnz
            if rows:  # (to the left only: no piece is overwritten before it is moved)
                labels[at:at + rows] = labels[row0:row0 + rows]
                qids[at:at + rows] = qids[row0:row0 + rows]
                indptr[at:at + rows + 1] = indptr[row0:row0 + rows + 1] - (nnz0 - nnz_at)
                indices[nnz_at:nnz_at + nnz] = indices[nnz0:nnz0 + nnz]
                values[nnz_at:nnz_at + nnz] = values[nnz0:nnz0 + nnz]
            if not self._count(got):
                return False
        return True

    def _count(self, got):
        if got is None:
            return False
        rows, nnz, width, has_qid = got
        if rows:
            if self.has_qid is not None and has_qid != self.has_qid:
                return False
            self.has_qid = has_qid
        self.rows, self.nnz = self.rows + rows, self.nnz + nnz
        self.width = max(self.width, width)
        return True

    def result(self):
        """``(X, y, qid)``, or None for text without a data line."""
        rows, nnz = self.rows, self.nnz
        if not rows:
            return None
        labels, qids, indptr, indices, values = self.out
        # views, not copies: the arrays are sized from the newline and ':' counts, so all
        # but a qid: a row or a blank line is used
        X = sp.csr_matrix((values[:nnz], indices[:nnz], indptr[:rows + 1]),
                          shape=(rows, self.width), copy=False)
        X.has_sorted_indices = True  # strictly increasing in every row (else declined)
        return X, labels[:rows], (qids[:rows] if self.has_qid else None)


def _byte_counts(block, scratch):
    """Newlines, colons and carriage returns in ``block`` (a uint8 array), and the carriage
    returns followed by a newline in it. numpy's comparisons, several times as fast as
    ``bytes.count`` of a frequent byte, into ``scratch`` (bool, as long): a fresh
    temporary a block would cost its page faults every time."""
    eq = scratch[:block.shape[0]]
    counts = []
    for byte in (NEWLINE[0], 58, 13):
        np.equal(block, byte, out=eq)
        counts.append(int(np.count_nonzero(eq)))
    crlf = 0
    if counts[2]:  # (eq holds the carriage returns)
        crlf = int(np.count_nonzero(np.logical_and(eq[:-1], block[1:] == NEWLINE[0])))
    return counts[0], counts[1], counts[2], crlf


def plain_text(head):
    """Whether a file's first bytes ``head`` start plain text the compiled reader can take
    a block at a time: neither compressed data nor a byte-order mark."""
    return _compression(head) is None and not head.startswith(UTF8_BOM[:len(head)])


def _file_pieces(fh, block_bytes):
    """Pass 1 of :func:`_kernel_parse_file`: ``[(start, end, newlines, colons), ...]``, the
    byte ranges of whole lines the file is parsed in (each block read cut after its last
    newline; a line longer than a block makes a longer piece) with their counts, or None
    for CR-only line ends (:func:`load_svmlight_bytes` rewrites them)."""
    buf = bytearray(block_bytes)
    scratch = np.empty(block_bytes, dtype=bool)
    pieces = []
    start = offset = newlines = colons = crs = crlfs = 0
    last = 0  # the previous block's last byte (a CRLF cut between two blocks)
    while True:
        got = fh.readinto(buf)
        if not got:
            break
        block = np.frombuffer(buf, dtype=np.uint8, count=got)
        cut = buf.rfind(NEWLINE, 0, got) + 1  # (0: no newline here, the piece goes on)
        # the part up to the cut ends a piece (a CRLF is never cut there: it ends with its
        # newline); the rest starts the next
        for part, ends_piece in ((block[:cut], cut > 0), (block[cut:], False)):
            nl, co, cr, crlf = _byte_counts(part, scratch)
            newlines, colons, crs, crlfs = newlines + nl, colons + co, crs + cr, crlfs + crlf
            if ends_piece:
                pieces.append((start, offset + cut, newlines, colons))
                start, newlines, colons = offset + cut, 0, 0
        crlfs += last == 13 and buf[0] == NEWLINE[0]
        last = buf[got - 1]
        offset += got
    if start < offset:
        pieces.append((start, offset, newlines, colons))
    return pieces if crs == crlfs else None


def _kernel_parse_file(fh, zero_based, block_bytes=None, progress=None, n_jobs=None):
    """The compiled reader over the open regular file ``fh`` of plain text, a piece at a
    time, so that only the arrays and a piece a thread are held (the whole text is
    not): ``(X, y, qid)`` as :func:`_kernel_parse` gives for the file's bytes, or None
    where those are not for this path (compressed data or a byte-order mark first, a
    carriage return not followed by a newline: :func:`load_svmlight_bytes` decides) or
    where the reader declines, or the file changed between the two passes.

    Pass 1 (:func:`_file_pieces`) cuts the file into pieces of whole lines of about
    ``block_bytes`` and counts their newlines and colons, which size the arrays once.
    Pass 2 parses the pieces, checking that each still has its counts (the arrays
    could not hold more), and calls ``progress(bytes_done, bytes_total, "parsing")``
    after each. With ``n_jobs`` (more than one thread) the pieces are parsed on threads
    (the kernel releases the GIL), each at rows and entries its counts keep apart from
    the others, then moved together (:meth:`_Filled.add_placed`): the same arrays."""
    import threading

    if not hasattr(os, "preadv"):  # (not on Windows: the whole text is read)
        return None
    fd = fh.fileno()
    size = os.fstat(fd).st_size
    block_bytes = block_bytes or CHUNK_BYTES
    head = fh.read(8)
    if not head or not plain_text(head):
        return None
    fh.seek(0)
    pieces = _file_pieces(fh, block_bytes)
    if pieces is None:
        return None
    threads = None
    if len(pieces) > 1:  # (None: one thread, unless a joblib parallel_config says more)
        from .._parallel import Threads, effective_n_jobs, resolve_n_jobs

        n_jobs = resolve_n_jobs(n_jobs)
        if n_jobs is not None and effective_n_jobs(n_jobs) > 1:
            threads = Threads(n_jobs)
    newlines = sum(p[2] for p in pieces)
    colons = sum(p[3] for p in pieces)
    filled = _Filled(newlines + len(pieces), colons)  # (one row more a piece: a last line)
    local = threading.local()  # each thread's piece buffer, counts and float() slots

    def read(k):
        """Piece k into this thread's ``local.buf``: its length, or None where the file
        changed since pass 1 (the arrays might not hold it)."""
        start, end, nl, co = pieces[k]
        n = end - start
        if getattr(local, "buf", None) is None or len(local.buf) < n:
            local.buf = bytearray(max(n, block_bytes))
            local.scratch = np.empty(len(local.buf), dtype=bool)
            local.hard = np.empty((len(local.buf) // 2 + 1, 3), dtype=np.int64)
        view = memoryview(local.buf)[:n]
        got = os.preadv(fd, [view], start)
        del view
        counts = _byte_counts(np.frombuffer(local.buf, dtype=np.uint8, count=n), local.scratch)
        return n if got == n and counts[:2] == (nl, co) else None

    if threads is None:  # each piece after what is filled
        for k, (_, end, _, _) in enumerate(pieces):
            n = read(k)
            if n is None or not filled.add(local.buf, 0, n, zero_based, local.hard):
                return None
            if progress is not None:
                progress(end, size, "parsing")
    else:  # each piece at rows and entries of its own, then moved together
        rows0 = np.cumsum([0] + [p[2] + 1 for p in pieces[:-1]]).tolist()
        nnz0 = np.cumsum([0] + [p[3] for p in pieces[:-1]]).tolist()
        results = [None] * len(pieces)
        lock = threading.Lock()
        done = [0]

        def fill(k):
            n = read(k)
            if n is not None:
                results[k] = _kernel_fill(local.buf, 0, n, zero_based, filled.out, rows0[k],
                                          nnz0[k], local.hard)
            if progress is not None:
                with lock:
                    done[0] += pieces[k][1] - pieces[k][0]
                    progress(done[0], size, "parsing")

        try:
            threads.run(fill, [(k,) for k in range(len(pieces))])
        finally:
            threads.close()
        if not filled.add_placed(list(zip(rows0, nnz0, results))):
            return None
    if os.fstat(fd).st_size != size:
        return None  # (it grew or shrank while read)
    return filled.result()


def _parse_chunk(data, name, n_features, zero_based, duplicates, first_line, use_fast):
    out = None
    if use_fast:
        out = _kernel_parse(data, zero_based)
        if out is None:
            out = _fast_parse(data, None, zero_based)
    if out is not None:
        X = out[0]
        too_far = X.shape[1] - 1 > MAX_FEATURE_INDEX or (
            n_features is not None and X.shape[1] > n_features)
        if not too_far:
            return out
    # the reference parser decides, and names the line of the problem
    return _slow_parse(data, name, n_features, zero_based, duplicates, first_line,
                       allow_empty=True)


def load_svmlight_bytes(data: bytes, *, name: str = "<bytes>", n_features: int | None = None,
                        zero_based: bool = False, duplicates: _Duplicates = "error",
                        progress: Callable[[int, int, str], object] | None = None,
                        chunk_bytes: int | None = None, line_offset: int = 0,
                        ) -> tuple[csr_matrix, FloatArray, IntArray | None]:
    """Parse LIBSVM / SVMlight text held in memory.

    The text is parsed in chunks of about ``chunk_bytes`` cut at line ends;
    between chunks control returns to Python, so a Ctrl-C stops a long parse
    within one chunk.

    Parameters
    ----------
    data : bytes
        The text; plain or gzip / bzip2 / xz compressed (detected from its first
        bytes).
    name : str, default="<bytes>"
        What errors call the input (a file's path, say).
    n_features : int, default=None
        Number of columns; None uses the largest index in the text.
    zero_based : bool, default=False
        Whether indices start at 0 (LIBSVM files are one-based).
    duplicates : {"error", "sum", "last"}, default="error"
        What to do with an index repeated in one row.
    progress : callable, default=None
        ``progress(bytes_done, bytes_total, message)``, called after each chunk
        (see :mod:`birank._progress`).
    chunk_bytes : int, default=None
        Size of a chunk; None is :data:`CHUNK_BYTES`.
    line_offset : int, default=0
        Lines of a file before ``data``, so that errors in a chunk of a file name
        the line of the file.

    Returns
    -------
    X : scipy.sparse.csr_matrix of float64, shape (n_samples, n_features)
        Sorted indices.
    y : ndarray of float64, shape (n_samples,)
        Labels as written.
    qid : ndarray of int64, shape (n_samples,), or None
        The ``qid:`` of each row; None when the text has none.

    See Also
    --------
    load_svmlight : The same from a file, with ``.query`` files.

    Examples
    --------
    >>> from birank.datasets._svmlight import load_svmlight_bytes
    >>> X, y, qid = load_svmlight_bytes(b"1 qid:3 1:0.5\\n0 qid:3 2:1\\n", n_features=4)
    >>> X.shape, y.tolist(), qid.tolist()
    ((2, 4), [1.0, 0.0], [3, 3])
    """
    _check_options(n_features, zero_based, duplicates)
    if chunk_bytes is None:
        chunk_bytes = CHUNK_BYTES
    data = decompress_bytes(data, name)
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        # old Mac (CR-only) line ends: each CR ends a line, as the LIBSVM tools read them
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    use_fast = len(data) >= _SMALL_BYTES
    if use_fast:  # the compiled reader, in one set of arrays, if it reads all of it
        whole = _kernel_parse(data, zero_based, chunk_bytes, progress)
        if whole is not None and (n_features is None or whole[0].shape[1] <= n_features):
            if n_features is not None:
                whole[0].resize((whole[0].shape[0], n_features))
            return whole
    parts, starts, first_line, total = [], [], 1 + line_offset, len(data)
    for start, end in _chunks(data, chunk_bytes):
        chunk = data[start:end]
        parts.append(_parse_chunk(chunk, name, n_features, zero_based, duplicates,
                                  first_line, use_fast))
        starts.append(first_line)
        first_line += chunk.count(b"\n")
        if progress is not None:
            progress(end, total, "parsing")
    kept = [i for i, p in enumerate(parts) if p[0].shape[0]]
    if not kept:
        raise ValueError(f"{name}: no data lines (empty file or only comments).")
    has_qid = [parts[i][2] is not None for i in kept]
    if any(has_qid) and not all(has_qid):
        bad = starts[kept[has_qid.index(not has_qid[0])]]
        raise ValueError(f"{name}, line {bad}: qid: is given on some lines but not on others "
                         f"(lines before {bad} {'have' if has_qid[0] else 'lack'} it, this "
                         "part of the file does not).")
    parts = [parts[i] for i in kept]
    width = n_features if n_features is not None else max(p[0].shape[1] for p in parts)
    blocks = []
    for X, _, _ in parts:
        X = sp.csr_matrix(X)
        X.resize((X.shape[0], width))
        blocks.append(X)
    X = blocks[0] if len(blocks) == 1 else sp.vstack(blocks, format="csr")
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    y = np.concatenate([p[1] for p in parts])
    qid = np.concatenate([p[2] for p in parts]) if has_qid[0] else None
    if X.indices.dtype != np.int32 and X.shape[1] < 2**31 and X.nnz < 2**31:
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X, y, qid


# the return depends on query_id: (X, y); (X, y, groups); (X, y, groups or None) for "auto"
@overload
def load_svmlight(path: StrPath, *, n_features: int | None = None,
                  query_id: Literal[False] = False, query_file: StrPath | None = "auto",
                  zero_based: bool = False, duplicates: _Duplicates = "error",
                  n_jobs: int | None = None) -> tuple[csr_matrix, FloatArray]: ...


@overload
def load_svmlight(path: StrPath, *, n_features: int | None = None,
                  query_id: Literal[True], query_file: StrPath | None = "auto",
                  zero_based: bool = False, duplicates: _Duplicates = "error",
                  n_jobs: int | None = None) -> tuple[csr_matrix, FloatArray, IntArray]: ...


@overload
def load_svmlight(path: StrPath, *, n_features: int | None = None,
                  query_id: bool | Literal["auto"], query_file: StrPath | None = "auto",
                  zero_based: bool = False, duplicates: _Duplicates = "error",
                  n_jobs: int | None = None,
                  ) -> _XY | tuple[csr_matrix, FloatArray, IntArray | None]: ...


def load_svmlight(path: StrPath, *, n_features: int | None = None,
                  query_id: bool | Literal["auto"] = False, query_file: StrPath | None = "auto",
                  zero_based: bool = False, duplicates: _Duplicates = "error",
                  n_jobs: int | None = None,
                  ) -> _XY | tuple[csr_matrix, FloatArray, IntArray | None]:
    """Read a LIBSVM / SVMlight file into a CSR matrix.

    Parameters
    ----------
    path : str or os.PathLike
        The file; plain text or gzip / bzip2 / xz compressed (detected from its
        first bytes, whatever its name).
    n_features : int, default=None
        Number of columns; None uses the largest index in the file. Give it to
        make a train and a test file agree (an index beyond it is an error).
    query_id : bool or "auto", default=False
        Also return the group (query) of each row: from ``qid:`` tokens when
        the file has them, else from the query file. With ``"auto"`` the
        groups are None when the file has neither (instead of an error).
    query_file : str, os.PathLike, "auto" or None, default="auto"
        A LightGBM-style file of query sizes (one count of consecutive rows
        per line). ``"auto"`` uses ``<path>.query`` if it exists and the file
        has no ``qid:``; an explicit path always wins over ``qid:``.
    zero_based : bool, default=False
        Whether indices start at 0 (LIBSVM files are one-based).
    duplicates : {"error", "sum", "last"}, default="error"
        What to do with an index repeated in one row. Indices out of order
        are always accepted (and sorted).
    n_jobs : int, default=None
        Threads that parse a plain file's pieces (each thread holds one piece
        of about 4 MiB); None is one unless in a joblib ``parallel_config``,
        -1 is every core (scikit-learn's meaning). The result is the same for
        every ``n_jobs``.

    Returns
    -------
    X : scipy.sparse.csr_matrix of float64, shape (n_samples, n_features)
        Sorted indices.
    y : ndarray of float64, shape (n_samples,)
        Labels as written in the file.
    groups : ndarray of int64, shape (n_samples,)
        Only when ``query_id`` is True or "auto" (None there if the file has no groups).

    Raises
    ------
    ValueError
        Malformed input, naming the file and the line: a bad label, a bad
        ``index:value`` token, an index < 1 (one-based) or beyond
        ``n_features``, ``qid:`` misplaced or on some lines only, a repeated
        index with ``duplicates="error"``, query sizes not adding up, an index
        above :data:`MAX_FEATURE_INDEX` (a dense weight vector that long would
        not fit in memory), a truncated or corrupted compressed file.
    FileNotFoundError, IsADirectoryError, PermissionError
        A path that is missing, a directory or unreadable (naming it).

    Notes
    -----
    The text is parsed in chunks of :data:`CHUNK_BYTES` cut at line ends, so
    a Ctrl-C interrupts a long parse within one chunk. A plain (uncompressed)
    file is read twice, a chunk at a time: once to count its lines and
    entries, which size the arrays, once to parse it; so the memory held is
    the matrix and one chunk, not the text as well (a 523 MB file: a peak of
    667 MiB against 1,180 MiB reading the text whole,
    ``benchmarks/bench_svmlight_read.py --file``).

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.datasets import load_svmlight
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.txt")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("1 qid:7 1:0.5 3:2\\n0 qid:7 2:1\\n")
    >>> X, y, groups = load_svmlight(path, query_id=True)
    >>> X.shape, y.tolist(), groups.tolist()
    ((2, 3), [1.0, 0.0], [7, 7])
    """
    path = os.fspath(path)
    if not (isinstance(query_id, (bool, np.bool_)) or query_id == "auto"):
        raise ValueError(f"query_id must be True, False or 'auto'; got {query_id!r}.")
    X, y, qid = load_svmlight_path(path, n_features=n_features, zero_based=zero_based,
                                   duplicates=duplicates, n_jobs=n_jobs)
    if not query_id:
        return X, y
    sizes = _query_file(path, query_file, qid, query_id)
    return X, y, (qid if sizes is None else read_query_file(sizes, n_rows=X.shape[0]))


def _load_plain_file(path, n_features, zero_based, progress=None, n_jobs=None):
    """``(X, y, qid)`` of a regular file of plain text from :data:`_SMALL_BYTES` on, read a
    block at a time by the compiled reader (:func:`_kernel_parse_file`), or None: then
    the whole text goes to :func:`load_svmlight_bytes` (which also names the errors)."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) < _SMALL_BYTES:
            return None
        fh = open(path, "rb")
    except OSError:
        return None  # (read_raw says what is wrong with the path)
    with fh:
        got = _kernel_parse_file(fh, zero_based, progress=progress, n_jobs=n_jobs)
    if got is None or (n_features is not None and got[0].shape[1] > n_features):
        return None
    if n_features is not None:
        got[0].resize((got[0].shape[0], n_features))
    return got


def load_svmlight_path(path: StrPath, *, name: str | None = None, n_features: int | None = None,
                       zero_based: bool = False, duplicates: _Duplicates = "error",
                       progress: Callable[[int, int, str], object] | None = None,
                       n_jobs: int | None = None,
                       ) -> tuple[csr_matrix, FloatArray, IntArray | None]:
    """:func:`load_svmlight_bytes` of the file at ``path`` (errors name it ``name``, by
    default the path): a plain file of :data:`_SMALL_BYTES` and more a block at a time
    (the text is never held beside the matrix; with ``n_jobs``, on threads), anything
    else as its whole text."""
    from .._validation import check_n_jobs

    path = os.fspath(path)
    _check_options(n_features, zero_based, duplicates)
    check_n_jobs(n_jobs)
    streamed = _load_plain_file(path, n_features, zero_based, progress, n_jobs)
    if streamed is not None:
        return streamed
    return load_svmlight_bytes(read_bytes(path, in_place=True), name=name or path,
                               n_features=n_features, zero_based=zero_based,
                               duplicates=duplicates, progress=progress)


def groups_or_query_file(path, qid, n_rows):
    """``qid`` (a file's ``qid:`` tokens), or where it is None the groups of ``<path>.query``
    if that file exists, else None: the rule of every reader of a data file's groups
    (the command line's among them; ``"-"``, standard input, has no query file)."""
    sizes = _query_file(path, "auto", qid, "auto")
    return qid if sizes is None else read_query_file(sizes, n_rows=n_rows)


def _query_file(path, query_file, qid, query_id):
    """The query file whose sizes give the groups of ``path``'s rows, or None (its ``qid:``
    tokens ``qid``, or no groups): ``query_file``, where ``"auto"`` is ``<path>.query`` if
    the file has no ``qid:`` and that is a file. Raises with ``query_id=True`` and no groups."""
    if query_file == "auto":
        qf = path + ".query"
        query_file = qf if (qid is None and path != "-" and os.path.isfile(qf)) else None
    if query_file is None and qid is None and query_id != "auto":
        raise ValueError(
            f"{path}: query_id=True but the file has no qid: tokens and no query file "
            f"was found (looked for {path + '.query'!r})."
        )
    return None if query_file is None else os.fspath(query_file)


def _numeric(values: MatrixLike, name: str) -> FloatArray:
    """``values`` as a float64 array; ValueError naming ``name`` for missing values
    (None, pandas' NA), text or complex numbers (also of a sparse matrix's values)."""
    arr: Any = values if sp.issparse(values) else np.asarray(values)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} holds complex numbers; complex data is not supported.")
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers without missing values (None, pandas' NA "
                         f"are not numbers); got dtype {arr.dtype}.") from None


def _query_ids(groups: ArrayLike, n: int) -> IntArray:
    """``groups`` as one int64 query id per row: LIBSVM's ``qid:`` is an integer, and
    anything else (0.2 written as 0 merged two queries) is refused with a way out."""
    g = np.asarray(groups)
    if g.ndim != 1 or g.shape[0] != n:
        raise ValueError(f"groups must be a 1-D array of one query id per row ({n}); got "
                         f"shape {g.shape}.")
    how = ("code them as integers first, e.g. groups=np.unique(groups, return_inverse=True)[1] "
           "(the ids' sorted order)")
    if g.dtype.kind in "iu":
        if g.dtype.kind == "u" and g.size and g.max() > np.iinfo(np.int64).max:
            raise ValueError(f"groups holds query id {g.max()}, beyond int64 (which LIBSVM "
                             f"readers take); {how}.")
        return g.astype(np.int64)
    if g.dtype.kind == "f":
        odd = ~np.isfinite(g) | (g != np.round(g)) | (np.abs(g) >= 2.0**63)
        if odd.any():
            i = int(np.flatnonzero(odd)[0])
            if not np.isfinite(g[i]):
                raise ValueError(f"groups holds {g[i].item()!r} at row {i}: every row needs "
                                 "a finite integer query id (LIBSVM's qid:).")
            raise ValueError(f"groups holds the query id {g[i].item()!r} (row {i}); a LIBSVM "
                             f"qid: is an integer, and writing it as one would merge queries "
                             f"or lose it: {how}.")
        return g.astype(np.int64)
    if g.dtype.kind == "O" and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                   for v in g):
        try:
            return g.astype(np.int64)
        except OverflowError:
            raise ValueError(f"groups holds a query id beyond int64 (which LIBSVM readers "
                             f"take); {how}.") from None
    first = g[0] if g.size else None
    if isinstance(first, np.generic):
        first = first.item()  # ('a', not np.str_('a'))
    raise ValueError(f"groups must hold integer query ids (a LIBSVM qid: is an integer); got "
                     f"dtype {g.dtype} (e.g. {first!r}): {how}.")


def dump_svmlight(X: MatrixLike, y: ArrayLike, path: StrPath, *, groups: ArrayLike | None = None,
                  zero_based: bool = False, overwrite: bool = False,
                  comment: str | None = None) -> None:
    """Write ``(X, y[, groups])`` as a LIBSVM / SVMlight file.

    The file is compressed when ``path`` ends in ``.gz``, ``.bz2`` or ``.xz``.
    An existing file is only replaced with ``overwrite=True``. Values are
    written with ``repr`` (shortest exact text), so a reload gives the same
    numbers; explicit zeros are dropped; ``groups`` (ints) become ``qid:``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Finite values (else a ValueError).
    y : array-like of shape (n_samples,)
        Labels, finite; integral values are written as ints (``1``, not ``1.0``).
    path : str or os.PathLike
        The file to write; ``.gz``, ``.bz2`` or ``.xz`` compresses it. It is
        written to a temporary file first and moved into place, so an error
        leaves no partial file.
    groups : array-like of int of shape (n_samples,), default=None
        Query ids, written as ``qid:`` tokens: integers (or floats holding
        integers). Other ids (strings, 0.2, NaN) are refused, not truncated:
        code them first, e.g. ``np.unique(groups, return_inverse=True)[1]``.
    zero_based : bool, default=False
        Write column indices from 0 instead of LIBSVM's 1.
    overwrite : bool, default=False
        Replace an existing file (else a FileExistsError).
    comment : str, default=None
        Written first, each of its lines as a ``#`` comment line.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from birank.datasets import dump_svmlight, load_svmlight
    >>> path = os.path.join(tempfile.mkdtemp(), "out.txt.gz")
    >>> dump_svmlight(np.array([[0.0, 1.5], [2.0, 0.0]]), [1, -1], path)
    >>> load_svmlight(path)[1].tolist()
    [1.0, -1.0]
    """
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True to replace it.")
    X = sp.csr_matrix(_numeric(X, "X"))
    X.sort_indices()
    y = _numeric(y, "y").reshape(-1)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} values but X has {X.shape[0]} rows.")
    if groups is not None:
        groups = _query_ids(groups, X.shape[0])
    for name, values in (("X", X.data), ("y", y)):
        if not np.isfinite(values).all():
            raise ValueError(f"{name} contains NaN or infinite values; LIBSVM text holds "
                             "finite numbers only (impute or drop the missing values first).")
    off = 0 if zero_based else 1
    buf = io.StringIO()
    if comment:
        for line in str(comment).splitlines():
            buf.write(f"# {line}\n")
    data, ind, ptr = X.data.tolist(), (X.indices + off).tolist(), X.indptr.tolist()
    qids = groups.tolist() if groups is not None else []
    for i, lab in enumerate(y.tolist()):
        toks = [f"{int(lab)}" if lab.is_integer() and abs(lab) < 2**53 else repr(lab)]
        if groups is not None:
            toks.append(f"qid:{qids[i]}")
        # repr(float) is the shortest text that reads back to the same double
        toks.extend(f"{ind[t]}:{data[t]!r}" for t in range(ptr[i], ptr[i + 1]) if data[t] != 0)
        buf.write(" ".join(toks) + "\n")
    raw = buf.getvalue().encode()
    if path.endswith(".gz"):
        raw = gzip.compress(raw)
    elif path.endswith(".bz2"):
        raw = bz2.compress(raw)
    elif path.endswith(".xz"):
        raw = lzma.compress(raw)
    tmp = f"{path}.part{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, path)
    finally:  # an error or a Ctrl-C leaves neither half a file nor the temporary one
        if os.path.exists(tmp):
            os.remove(tmp)


def _open_stream(path):
    """``(text stream of the decompressed lines, raw file)`` of ``path``."""
    raw = open(path, "rb")
    head = raw.read(6)
    raw.seek(0)
    if head.startswith(b"\x1f\x8b"):
        return gzip.GzipFile(fileobj=raw), raw
    if head.startswith(b"BZh"):
        return bz2.BZ2File(raw), raw
    if head.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMAFile(raw), raw
    return raw, raw


def _raw_chunks(path, chunk_size):
    """``(bytes of chunk_size data lines, file lines before them, raw bytes read)``."""
    stream, raw = _open_stream(path)
    with raw, stream:
        lines, n_data, before, lineno = [], 0, 0, 0
        try:
            for line in stream:
                lineno += 1
                lines.append(line)
                if line.split(b"#", 1)[0].strip():
                    n_data += 1
                    if n_data == chunk_size:
                        yield b"".join(lines), before, raw.tell()
                        lines, n_data, before = [], 0, lineno
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise ValueError(f"{path}: cannot decompress ({exc}).") from None
        if n_data:
            yield b"".join(lines), before, raw.tell()


# the yield depends on query_id: (X, y); (X, y, groups); (X, y, groups or None) for "auto"
@overload
def iter_svmlight_chunks(path: StrPath, *, chunk_size: int = 10_000,
                         n_features: int | None = None, query_id: Literal[False] = False,
                         query_file: StrPath | None = "auto", zero_based: bool = False,
                         duplicates: _Duplicates = "error",
                         progress: Callable[[int, int, str], object] | None = None,
                         skip_chunks: int = 0,
                         chunk_hook: Callable[[int, bytes], object] | None = None,
                         ) -> Iterator[_XY]: ...


@overload
def iter_svmlight_chunks(path: StrPath, *, chunk_size: int = 10_000,
                         n_features: int | None = None, query_id: Literal[True],
                         query_file: StrPath | None = "auto", zero_based: bool = False,
                         duplicates: _Duplicates = "error",
                         progress: Callable[[int, int, str], object] | None = None,
                         skip_chunks: int = 0,
                         chunk_hook: Callable[[int, bytes], object] | None = None,
                         ) -> Iterator[tuple[csr_matrix, FloatArray, IntArray]]: ...


@overload
def iter_svmlight_chunks(path: StrPath, *, chunk_size: int = 10_000,
                         n_features: int | None = None, query_id: bool | Literal["auto"],
                         query_file: StrPath | None = "auto", zero_based: bool = False,
                         duplicates: _Duplicates = "error",
                         progress: Callable[[int, int, str], object] | None = None,
                         skip_chunks: int = 0,
                         chunk_hook: Callable[[int, bytes], object] | None = None,
                         ) -> Iterator[_XY | tuple[csr_matrix, FloatArray, IntArray | None]]: ...


def iter_svmlight_chunks(path: StrPath, *, chunk_size: int = 10_000,
                         n_features: int | None = None,
                         query_id: bool | Literal["auto"] = False,
                         query_file: StrPath | None = "auto", zero_based: bool = False,
                         duplicates: _Duplicates = "error",
                         progress: Callable[[int, int, str], object] | None = None,
                         skip_chunks: int = 0,
                         chunk_hook: Callable[[int, bytes], object] | None = None,
                         ) -> Iterator[_XY | tuple[csr_matrix, FloatArray, IntArray | None]]:
    """Read a LIBSVM / SVMlight file as consecutive chunks of rows, in bounded memory.

    The file is streamed (plain, gzip, bzip2 or xz), never held whole: memory
    is one chunk. Each chunk is parsed as :func:`load_svmlight` parses a file,
    and errors name the file and the line *of the file*.

    Parameters
    ----------
    path : str or os.PathLike
    chunk_size : int, default=10000
        Data lines per chunk (the last chunk may be shorter).
    n_features : int, default=None
        Width of every chunk. A chunk only shows the indices it holds, so a
        stream needs its width up front: None reads the file once more first
        (streaming, chunk by chunk) to find the largest index; give it to save
        that pass (an index beyond it is then an error naming the line).
    query_id : bool or "auto", default=False
        Also yield each chunk's groups (queries), as :func:`load_svmlight`
        returns them: from ``qid:`` tokens when the file has them, else from
        the query file. With ``"auto"`` they are None when the file has neither.
    query_file : str, os.PathLike, "auto" or None, default="auto"
        A LightGBM-style file of query sizes (:func:`read_query_file`, read
        whole: one integer a row). ``"auto"`` uses ``<path>.query`` if it
        exists and the file has no ``qid:``; an explicit path always wins.
    zero_based : bool, default=False
    duplicates : {"error", "sum", "last"}, default="error"
    progress : callable, default=None
        ``progress(bytes_read, file_size, message)`` after each chunk (the
        reporters of :mod:`birank._progress`).
    skip_chunks : int, default=0
        Chunks to pass over without parsing them (to resume a stream).
    chunk_hook : callable, default=None
        ``chunk_hook(k, raw_bytes)`` for every chunk ``k`` (skipped ones too),
        before it is parsed: lets a resumed stream check (hash) what it skips.

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (n_rows, n_features)
    y : ndarray of shape (n_rows,)
    groups : ndarray of int64 of shape (n_rows,)
        Only when ``query_id`` is True or "auto" (None there if the file has no groups).

    Raises
    ------
    ValueError
        As :func:`load_svmlight`, naming the line; ``qid:`` on the lines of
        some chunks but not of others names the first line where it changes
        (raised when that chunk is reached: the chunks before it were yielded).

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.datasets import iter_svmlight_chunks
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.txt")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("1 qid:1 1:0.5\\n-1 qid:1 2:1\\n# note\\n1 qid:2 5:2\\n")
    >>> [(X.shape, y.tolist()) for X, y in iter_svmlight_chunks(path, chunk_size=2)]
    [((2, 5), [1.0, -1.0]), ((1, 5), [1.0])]
    >>> [g.tolist() for _, _, g in iter_svmlight_chunks(path, chunk_size=2, query_id=True)]
    [[1, 1], [2]]
    """
    path = os.fspath(path)
    _check_options(n_features, zero_based, duplicates)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) \
            or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int; got {chunk_size!r}.")
    if isinstance(skip_chunks, bool) or not isinstance(skip_chunks, (int, np.integer)) \
            or skip_chunks < 0:
        raise ValueError(f"skip_chunks must be an int >= 0; got {skip_chunks!r}.")
    if not (isinstance(query_id, (bool, np.bool_)) or query_id == "auto"):
        raise ValueError(f"query_id must be True, False or 'auto'; got {query_id!r}.")
    if n_features is None:
        n_features = 0
        for X, _, _ in _qid_chunks(path, chunk_size, 2**31 - 1, zero_based, duplicates):
            if X.nnz:
                n_features = max(n_features, int(X.indices.max()) + 1)
        n_features = max(n_features, 1)
    chunks = _qid_chunks(path, chunk_size, n_features, zero_based, duplicates, progress,
                         skip_chunks, chunk_hook)
    if not query_id:
        for X, y, _ in chunks:
            yield X, y
        return
    groups, start = None, 0
    for k, (X, y, qid) in enumerate(chunks):
        if k == 0:
            sizes = _query_file(path, query_file, qid, query_id)
            groups = None if sizes is None else read_query_file(sizes)
        n = X.shape[0]
        if groups is not None:
            if start + n > groups.shape[0]:
                raise ValueError(f"{path}: the query sizes add up to {groups.shape[0]} rows, "
                                 f"but the data file has more (at least {start + n}).")
            qid = groups[start:start + n]
        start += n
        yield X, y, qid
    if groups is not None and start != groups.shape[0]:
        raise ValueError(f"{path}: the query sizes add up to {groups.shape[0]} rows, but "
                         f"the data file has {start} rows.")


def _first_data_line(data, before):
    """The file's line number of the first data line of a chunk (``before`` lines before it)."""
    for k, line in enumerate(data.split(NEWLINE), 1):
        if line.split(b"#", 1)[0].strip():
            return before + k
    return before + 1


def _qid_chunks(path, chunk_size, n_features, zero_based, duplicates, progress=None,
                skip_chunks=0, chunk_hook=None):
    """``(X, y, qid or None)`` of each chunk of :func:`iter_svmlight_chunks` (its arguments
    checked), with ``qid:`` on every line or on none across chunks."""
    size = os.path.getsize(path)
    empty = True
    has_qid = None
    for k, (data, before, done) in enumerate(_raw_chunks(path, chunk_size)):
        empty = False
        if chunk_hook is not None:
            chunk_hook(k, data)
        if k < skip_chunks:
            continue
        X, y, qid = load_svmlight_bytes(data, name=path, n_features=n_features,
                                        zero_based=zero_based, duplicates=duplicates,
                                        line_offset=before)
        if has_qid is None:
            has_qid = qid is not None
        elif has_qid != (qid is not None):
            bad = _first_data_line(data, before)
            raise ValueError(f"{path}, line {bad}: qid: is given on some lines but not on "
                             f"others (the lines before {bad} {'have' if has_qid else 'lack'} "
                             "it, this one does not).")
        if progress is not None:
            progress(done, size, f"{before + data.count(NEWLINE)} lines")
        yield X, y, qid
    if empty:
        raise ValueError(f"{path}: no data lines (empty file or only comments).")
