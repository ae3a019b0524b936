"""Any common tabular input -> ``(X, y, qid)``: LIBSVM/SVMlight, CSV/TSV, ``.npz``/``.npy``.

The format is sniffed from the content (never trusted from the name), after
gzip/bzip2/xz decompression; ``"-"`` is standard input and FIFOs are read as a
stream. Errors name the source and the format they were read as.

LIBSVM indices: ``zero_based="auto"`` follows scikit-learn's
``load_svmlight_file`` heuristic -- the file is one-based unless some row uses
index 0 (so files written by ``sklearn.datasets.dump_svmlight_file``, 0-based by
default, are read as written).
"""

from __future__ import annotations

import io
import os
import re
import shlex
import sys
import warnings

import numpy as np
import scipy.sparse as sp

from .._memory import check_feature_memory  # noqa: F401  (re-exported for the CLI)
from . import _svmlight  # by module: its loader can be monkeypatched (interruption tests)
from ._svmlight import decompress_bytes

__all__ = ["FORMATS", "read_source", "sniff_format", "load_table", "check_feature_memory"]

FORMATS = ("auto", "libsvm", "csv", "tsv", "npz", "npy")
ZERO_BASED = ("auto", "yes", "no")
#: column names taken as the query id of a CSV file with a header (when --qid-column is not given)
QID_NAMES = ("qid", "query", "query_id", "group", "groups")
LABEL_NAMES = ("label", "y", "target", "relevance", "rel")
_NPZ_MAGIC, _NPY_MAGIC = b"PK\x03\x04", b"\x93NUMPY"
#: the first bytes :func:`sniff_format` reads
_SNIFF_BYTES = 65536


def read_source(path):
    """All bytes of ``path`` (``"-"``: standard input; FIFOs and devices read as streams)."""
    if path == "-":
        return sys.stdin.buffer.read()
    return _svmlight.read_raw(path)


def plain_libsvm_file(path, fmt="auto"):
    """Whether :func:`load_table` can read ``path`` by its path, a block at a time: a
    regular file of plain text (no compression nor byte-order mark first) of at least
    the compiled reader's size, read as LIBSVM (``fmt`` "libsvm", or "auto" and its first
    bytes sniffed so)."""
    if path == "-" or fmt not in ("auto", "libsvm"):
        return False
    try:
        if not os.path.isfile(path) or os.path.getsize(path) < _svmlight._SMALL_BYTES:
            return False
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return False  # (the whole read says what is wrong)
    return _svmlight.plain_text(head) and (fmt == "libsvm" or sniff_format(head) == "libsvm")


def sniff_format(data):
    """``"npz"``, ``"npy"``, ``"csv"``, ``"tsv"``, ``"libsvm"`` or ``"binary"`` from the first
    bytes."""
    if data.startswith(_NPZ_MAGIC):
        return "npz"
    if data.startswith(_NPY_MAGIC):
        return "npy"
    head = data[:_SNIFF_BYTES]
    if b"\x00" in head:
        return "binary"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut by the 64 KiB window
            return "binary"
    for raw in head.replace(b"\r", b"\n").split(b"\n"):
        line = raw.split(b"#", 1)[0].strip()
        if not line:
            continue
        if b"\t" in line and b":" not in line:
            return "tsv"
        if (b"," in line or b";" in line) and not re.search(rb"\s\d+:", line):
            return "csv"
        return "libsvm"
    return "libsvm"


def _where(name, fmt):
    return f"{name} (read as {fmt})"


def _line_of_row(data, row):
    """1-based line number of data row ``row`` (comment and blank lines skipped)."""
    k = -1
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if raw.split(b"#", 1)[0].strip():
            k += 1
            if k == row:
                return lineno
    return None


def _libsvm(parse, name, n_features, zero_based, duplicates, progress, info):
    """``(X, y, qid)`` of a LIBSVM input by ``parse(n_features=..., zero_based=...,
    duplicates=..., progress=...)`` (:func:`birank.datasets._svmlight.load_svmlight_bytes`
    of its bytes, or :func:`~birank.datasets._svmlight.load_svmlight_path`), with the
    command line's index base: ``zero_based`` "yes", "no" or "auto"."""
    if zero_based in ("yes", "no"):
        info["zero_based"] = zero_based == "yes"
        return parse(n_features=n_features, zero_based=zero_based == "yes",
                     duplicates=duplicates, progress=progress)
    # auto (scikit-learn's rule): parse 0-based, then shift when no index 0 occurs
    width = None if n_features is None else n_features + 1
    try:
        X, y, qid = parse(n_features=width, zero_based=True, duplicates=duplicates,
                          progress=progress)
    except ValueError as exc:  # (the limit the user gave, not the read's one more)
        raise ValueError(str(exc).replace(f"exceeds n_features={width}.",
                                          f"exceeds n_features={n_features}.")) from None
    info["zero_based"] = bool(X.nnz and X.indices.min() == 0)
    if info["zero_based"]:
        if n_features is not None and X.shape[1] > n_features:
            X = X[:, :n_features] if X[:, n_features:].nnz == 0 else None
            if X is None:  # name the line
                parse(n_features=n_features, zero_based=True, duplicates=duplicates,
                      progress=None)
        return X, y, qid
    X.indices -= 1  # (in place: the parser's own array; a copy would be 4 bytes a value more)
    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], max(X.shape[1] - 1, 0)))
    if n_features is not None:
        if X.shape[1] > n_features:  # re-read one-based: the reader names the line
            parse(n_features=n_features, zero_based=False, duplicates=duplicates,
                  progress=None)
        X.resize((X.shape[0], n_features))
    return X, y, qid


def _column(spec, header, n_cols, what, where):
    """Column index of ``spec`` (a name in the header or a 0-based number, negative from
    the end). ``what`` names the column in errors ("label": "no label column 'x'"), or is
    the option that gave it ("--ignore-column": "--ignore-column x: no such column")."""
    if spec is None:
        return None
    if header is not None and spec in header:
        return header.index(spec)
    option = what.startswith("--")
    try:
        k = int(spec)
    except ValueError:
        names = ", ".join(header) if header else "no header"
        if option:
            names = (f"columns: {names}" if header else
                     "the file has no header: give the column's 0-based number")
            raise ValueError(f"{where}: {what} {spec}: no such column ({names})") from None
        raise ValueError(f"{where}: no {what} column {spec!r} (columns: {names})") from None
    if not -n_cols <= k < n_cols:
        if option:
            raise ValueError(f"{where}: {what} {spec}: no such column, out of range "
                             f"({n_cols} columns: 0 to {n_cols - 1}, or {-n_cols} to -1)")
        raise ValueError(f"{where}: {what} column {k} is out of range ({n_cols} columns)")
    return k % n_cols


def _ignored(specs, header, n_cols, where):
    """``{column: spec}`` of the ``--ignore-column`` specs, each read as ``--label-column``
    is (:func:`_column`); a column given twice is an error naming it."""
    ignored: dict[int, object] = {}
    for spec in specs:
        j = _column(spec, header, n_cols, "--ignore-column", where)
        if j in ignored:
            same = ("is given twice" if str(ignored[j]) == str(spec)
                    else f"and --ignore-column {ignored[j]} are the same column")
            raise ValueError(f"{where}: --ignore-column {spec} {same} "
                             f"({_column_name(j, header)}); give each column once")
        ignored[j] = spec
    return ignored


def _column_name(j, header):
    return f"{header[j]!r}, column {j}" if header is not None else f"column {j}"


def _not_ignored(j, ignored, header, what, option, given, where):
    """Refuse the ``what`` column ``j`` (the label or query id column, named by ``option``
    when ``given``, else found by its name) among the ignored columns, naming it."""
    if j is None or j not in ignored:
        return
    how = (f"named by {option} {given}" if given is not None else
           f"a column named {header[j]} is the {what} unless {option} names another")
    raise ValueError(f"{where}: --ignore-column {ignored[j]} drops the {what} column "
                     f"({_column_name(j, header)}; {how}); a column is ignored or the "
                     f"{what}, not both")


def _ignored_and_label(ignore_columns, label_column, header, n_cols, where):
    """``(ignored, lab)``: the ``--ignore-column`` columns (:func:`_ignored`) and the label
    column: ``label_column``, else a column named as a label (:data:`LABEL_NAMES`), else
    the first column not ignored; at least two columns must be left, and the label must
    not be ignored."""
    ignored = _ignored(ignore_columns, header, n_cols, where)
    if n_cols - len(ignored) < 2:
        raise ValueError(f"{where}: {n_cols - len(ignored)} column(s) left after "
                         "--ignore-column; need a label column and features")
    lab = _column(label_column, header, n_cols, "label", where)
    if lab is None:
        lab = next((header.index(c) for c in LABEL_NAMES if header and c in header), None)
        if lab is None:
            lab = next(j for j in range(n_cols) if j not in ignored)
    _not_ignored(lab, ignored, header, "label", "--label-column", label_column, where)
    return ignored, lab


def _is_number(tok):
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _zero(cell):
    return 0.0


def _delimited(data, name, fmt, label_column, qid_column, info, ignore_columns=(),
               roles=None):
    from . import _roles

    where = _where(name, fmt)
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise ValueError(f"{where}: no data lines (empty file or only blank lines).")
    sep = "\t" if fmt == "tsv" else (";" if lines[first].count(";") > lines[first].count(",")
                                       else ",")
    cells = [c.strip().strip('"').strip("'") for c in lines[first].split(sep)]
    # a header names columns: no cell is a number, or a cell is a label / query id
    # name (a header may name features by numbers: "y,0,1,2"). Other first lines are
    # data, so a bad cell there is reported (line 1, its column), not dropped.
    names = set(LABEL_NAMES) | set(QID_NAMES) | {
        str(c) for c in (label_column, qid_column, *ignore_columns, *_roles.hint_names(roles))
        if c is not None and not _is_number(str(c))}
    header = cells if (not any(_is_number(c) for c in cells)
                       or any(c in names for c in cells)) else None
    n_cols = len(cells)
    if n_cols < 2:
        raise ValueError(f"{where}: one column only; need a label column and features")
    # a model's record of its training file's columns: the defaults of the options
    label_column, qid_column, ignore_columns, absent = _roles.apply(
        roles, header, n_cols, label_column, qid_column, ignore_columns, where)
    # --ignore-column: dropped before anything reads the table (never a feature, the label
    # or the query id; their cells need not be numbers); columns keep their file numbers
    ignored, lab = _ignored_and_label(ignore_columns, label_column, header, n_cols, where)
    qid = _column(qid_column, header, n_cols, "query id", where)
    if qid is None and qid_column is None and header:
        qid = next((header.index(c) for c in QID_NAMES if c in header), None)
    _not_ignored(qid, ignored, header, "query id", "--qid-column", qid_column, where)
    start = first + (1 if header is not None else 0)
    body = "\n".join(lines[start:])
    try:
        with warnings.catch_warnings():  # (no data lines: said below, in the file's name)
            warnings.filterwarnings("ignore", message=".*input contained no data")
            M = np.loadtxt(io.StringIO(body), delimiter=sep, dtype=np.float64, ndmin=2,
                           comments="#", quotechar='"',
                           converters=dict.fromkeys(ignored, _zero) or None)
    except ValueError as exc:
        msg = str(exc)
        m = re.search(r"at row (\d+), column (\d+)", msg)
        if m:  # numpy counts data rows from 0 after skipping; give the file line
            row, col = int(m.group(1)), int(m.group(2))
            lineno = _nth_data_line(lines, start, row)
            cell = re.search(r"string '([^']*)'", msg)
            what = f" {cell.group(1)!r}" if cell else ""
            colname = f" ({header[col - 1]!r})" if header and col - 1 < len(header) else ""
            drop = ""
            if col - 1 not in (lab, qid):  # (a feature, or an id: the option drops it)
                which = (shlex.quote(header[col - 1]) if header and col - 1 < len(header)
                         else str(col - 1))
                drop = (", or drop a column that is not a feature (an id) with "
                        f"--ignore-column {which}")
            raise ValueError(f"{where}, line {lineno}, column {col}{colname}: not a number"
                             f"{what}; encode categorical columns as numbers first{drop}"
                             ) from None
        m = re.search(r"invalid for the number of fields (\d+)", msg)
        if m and header is not None:  # (an --ignore-column past the data lines' width)
            raise _header_width_error(where, lines, start, int(m.group(1)), n_cols) from None
        m = re.search(r"number of columns changed from (\d+) to (\d+) at row (\d+)", msg)
        if m:  # (numpy counts these rows from 1, and suggests its own `usecols`)
            was, now, row = (int(g) for g in m.groups())
            if header is not None and was != n_cols:  # the first data line is the odd one
                raise _header_width_error(where, lines, start, was, n_cols)
            lineno = _nth_data_line(lines, start, row - 1)
            hint = ""
            if re.search(r"(^|\s)\d+:", lines[lineno - 1]):
                hint = (f"; line {lineno} looks like LIBSVM (index:value): the format was "
                        f"sniffed from line {first + 1}, give it as libsvm (--format libsvm)")
            raise ValueError(f"{where}, line {lineno}: {now} column(s) where the first data "
                             f"line has {was}{hint}") from None
        raise ValueError(f"{where}: {msg}") from None
    if M.shape[0] == 0:
        raise ValueError(f"{where}: no data lines (a header only).")
    if header is not None and M.shape[1] != n_cols:  # (the columns are found by the header)
        raise _header_width_error(where, lines, start, M.shape[1], n_cols)
    if not np.isfinite(M).all():
        r, c = np.argwhere(~np.isfinite(M))[0]
        raise ValueError(f"{where}, line {_nth_data_line(lines, start, r)}, column {c + 1}: "
                         "missing or non-finite value")
    y = M[:, lab]
    keep = [j for j in range(M.shape[1]) if j not in (lab, qid) and j not in ignored]
    # the header and each column's role: `birank train` records the feature columns'
    # names, `birank predict` matches a model's columns by name
    info["header"] = header
    info["columns"] = {"label": lab, "qid": qid, "features": keep, "ignored": sorted(ignored),
                       "n_columns": n_cols, "label_absent": absent}
    q = None
    if qid is not None:
        qv = M[:, qid]
        if (qv != np.floor(qv)).any():
            raise ValueError(f"{where}: the query id column holds non-integers")
        q = qv.astype(np.int64)
    return sp.csr_matrix(M[:, keep]), y, q


def _header_width_error(where, lines, start, width, n_cols):
    """The ValueError for data lines not as wide as the header (its first one named)."""
    return ValueError(f"{where}, line {_nth_data_line(lines, start, 0)}: {width} column(s) "
                      f"where the header has {n_cols}")


def _nth_data_line(lines, start, row):
    k = -1
    for i in range(start, len(lines)):
        if lines[i].split("#", 1)[0].strip():
            k += 1
            if k == row:
                return i + 1
    return start + row + 1


def _numpy(data, name, fmt, label_column, ignore_columns=(), info=None, roles=None):
    where = _where(name, fmt)
    if not data.startswith(_NPZ_MAGIC if fmt == "npz" else _NPY_MAGIC):
        # (np.load would read another file as a pickle and advise allow_pickle)
        actual = sniff_format(data)
        raise ValueError(f"{where}: not a .{fmt} file; it reads as {actual}" + (
            f": give --format {actual} or --format auto" if actual != "binary" else ""))
    try:
        obj = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise ValueError(f"{where}: cannot read ({exc})") from None
    if fmt == "npy":
        M = np.asarray(obj)
        if M.ndim != 2 or M.shape[1] < 2 or not np.issubdtype(M.dtype, np.number):
            raise ValueError(f"{where}: expected a 2-D numeric array whose label column is "
                             f"--label-column (default 0); got shape {M.shape}, dtype {M.dtype}")
        from . import _roles

        label_column, qid, ignore_columns, absent = _roles.apply(
            roles, None, M.shape[1], label_column, None, ignore_columns, where)
        if qid is not None:  # (a training file's query id column: a .npy has none)
            ignore_columns += (qid,)
        ignored, lab = _ignored_and_label(ignore_columns, label_column, None, M.shape[1],
                                          where)
        if info is not None:
            info["header"] = None
            info["columns"] = {
                "label": lab, "qid": None, "ignored": sorted(ignored),
                "features": [j for j in range(M.shape[1]) if j != lab and j not in ignored],
                "n_columns": M.shape[1], "label_absent": absent}
        M = M.astype(np.float64)
        return sp.csr_matrix(np.delete(M, [lab, *ignored], axis=1)), M[:, lab], None
    if ignore_columns:
        raise ValueError(f"{where}: --ignore-column applies to CSV, TSV and .npy input; a "
                         ".npz file holds named arrays (X, y, qid), not columns")
    keys = set(obj.files)
    if {"data", "indices", "indptr", "shape"} <= keys and "y" not in keys:
        raise ValueError(f"{where}: a scipy sparse matrix without labels; save "
                         "np.savez(path, X=..., y=...[, qid=...]) or add a 'y' array")
    if "y" not in keys or not ({"X"} <= keys or {"X_data", "X_indices", "X_indptr"} <= keys):
        raise ValueError(f"{where}: expected arrays 'X' and 'y' (and optionally 'qid'); "
                         f"found {', '.join(sorted(keys)) or 'none'}")
    if "X" in keys:
        X = obj["X"]
        if X.ndim != 2:
            raise ValueError(f"{where}: 'X' must be 2-D; got shape {X.shape}")
        X = sp.csr_matrix(X.astype(np.float64))
    else:
        X = sp.csr_matrix((obj["X_data"], obj["X_indices"], obj["X_indptr"]),
                          shape=tuple(obj["X_shape"]), dtype=np.float64)
    try:
        y = np.asarray(obj["y"], dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: 'y' must hold numbers; got dtype {obj['y'].dtype} "
                         "(map the labels to numbers first)") from None
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"{where}: 'y' has {y.shape[0]} values but 'X' has {X.shape[0]} rows")
    q = None
    for k in ("qid", "groups"):
        if k in keys:
            q = np.asarray(obj[k]).reshape(-1)
            if q.shape[0] != X.shape[0]:
                raise ValueError(f"{where}: '{k}' has {q.shape[0]} values but 'X' has "
                                 f"{X.shape[0]} rows")
    if not (np.isfinite(y).all() and np.isfinite(X.data).all()):
        raise ValueError(f"{where}: X and y must be finite")
    return X, y, q


def refuse_libsvm_columns(where, label_column, qid_column):
    """``label_column`` (other than 0, where LIBSVM has its label) or ``qid_column`` given
    for LIBSVM input: a ValueError naming the option and the input it applies to."""
    if label_column not in (None, "0", 0):
        raise ValueError(f"{where}: --label-column applies to CSV, TSV and .npy input; a "
                         "LIBSVM file has its label first")
    if qid_column is not None:
        raise ValueError(f"{where}: --qid-column applies to CSV and TSV input; a LIBSVM file "
                         "has its query ids in qid: fields")


def load_table(data, name, *, fmt="auto", zero_based="auto", n_features=None,
               duplicates="error", label_column=None, qid_column=None, ignore_columns=(),
               progress=None, info=None, roles=None, path=None, n_jobs=None):
    """Parse ``data`` (bytes, maybe compressed) -> ``(X csr, y, qid or None, format)``.

    ``data`` None: the file at ``path``, a plain LIBSVM file
    (:func:`plain_libsvm_file`), read a block at a time (on ``n_jobs`` threads): the
    text is never held beside the matrix.

    Errors (``ValueError``) name ``name`` and the format the content was read as.
    ``info``: a dict that receives ``"zero_based"`` (the index base a LIBSVM file
    was read with, ``zero_based="auto"`` included), so that a model can record it;
    for CSV/TSV and .npy, ``"header"`` (the column names, or None without a header) and
    ``"columns"`` (``{"label": j, "qid": j or None, "features": [j, ...]}``: the
    0-based columns of y, qid and X's columns in order, ``"ignored": [j, ...]``,
    ``"n_columns"`` and ``"label_absent"``, see ``roles``).

    ``roles``: how a training file's columns were read (:func:`birank.datasets._roles.record`,
    kept in a model file): the defaults of ``label_column``, ``qid_column`` and
    ``ignore_columns`` for a CSV/TSV/.npy file, each applied to a column the file holds
    and the options leave alone (:func:`birank.datasets._roles.apply`). A file without the
    label (data to score) is read with a placeholder label column, a feature:
    ``info["columns"]["label_absent"]`` says so.

    ``ignore_columns`` (CSV/TSV/.npy): columns dropped before anything reads the table,
    each a header name or a 0-based number (negative from the end) as ``label_column``;
    never features, label or query id, and their cells need not be numbers. The default
    label is then the first column not ignored; ignoring the label or query id column,
    a column twice, or any column of LIBSVM/.npz input is an error naming it.
    """
    info = {} if info is None else info
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    if zero_based not in ZERO_BASED:
        raise ValueError(f"zero_based must be one of auto, yes, no; got {zero_based!r}")
    if data is None:  # a plain LIBSVM file (plain_libsvm_file), read a block at a time
        fmt = "libsvm"

        def parse(**options):
            return _svmlight.load_svmlight_path(path, name=name, n_jobs=n_jobs, **options)
    else:
        data = decompress_bytes(data, name)

        def parse(**options):
            return _svmlight.load_svmlight_bytes(data, name=name, **options)
    if fmt == "auto":
        fmt = sniff_format(data)
    if fmt == "binary":
        raise ValueError(f"{name}: binary content that is not LIBSVM/SVMlight, CSV/TSV, .npz "
                         "or .npy (nor gzip/bzip2/xz of them)")
    if fmt == "libsvm":
        refuse_libsvm_columns(_where(name, fmt), label_column, qid_column)
        if ignore_columns:
            raise ValueError(f"{_where(name, fmt)}: --ignore-column applies to CSV, TSV and "
                             ".npy input; a LIBSVM file has no columns, only index:value "
                             "features")
        try:
            X, y, q = _libsvm(parse, name, n_features, zero_based, duplicates, progress, info)
        except ValueError as exc:
            msg = str(exc)
            if msg.startswith(name):
                msg = _where(name, fmt) + msg[len(name):]
            raise ValueError(msg) from None
    elif fmt in ("csv", "tsv"):
        X, y, q = _delimited(data, name, fmt, label_column, qid_column, info,
                             tuple(ignore_columns), roles)
    else:
        if qid_column is not None:  # (a .npz has a 'qid' array; a .npy, no query ids)
            raise ValueError(f"{_where(name, fmt)}: --qid-column applies to CSV and TSV input; "
                             + ("a .npz file holds its query ids in a 'qid' array"
                                if fmt == "npz" else "a .npy array has no query id column "
                                "(save a .npz with arrays X, y and qid)"))
        if fmt == "npz" and label_column is not None:
            raise ValueError(f"{_where(name, fmt)}: --label-column applies to CSV, TSV and .npy "
                             "input; a .npz file holds named arrays (X, y, qid), not columns")
        X, y, q = _numpy(data, name, fmt, label_column, tuple(ignore_columns), info, roles)
    if n_features is not None and fmt != "libsvm":
        if X.shape[1] > n_features:
            raise ValueError(f"{_where(name, fmt)}: {X.shape[1]} features, more than "
                             f"n_features={n_features}")
        X.resize((X.shape[0], n_features))
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return X, y, q, fmt


def widest_row_line(data, X):
    """The file line holding the largest feature index of ``X`` (for error messages)."""
    if not X.nnz:
        return None
    pos = int(np.argmax(X.indices))
    row = int(np.searchsorted(X.indptr, pos, side="right") - 1)
    return _line_of_row(decompress_bytes(data), row)
