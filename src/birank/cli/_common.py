"""Helpers shared by the sub-commands: reading data files, parsing --param, output files."""

from __future__ import annotations

import ast
import os
import sys

from . import UserError

DUPLICATES = ("error", "sum", "last")
#: files at least this large show a parsing progress line (unless --quiet)
_PROGRESS_BYTES = 32 << 20


def add_duplicates_option(parser):
    """``--duplicates {error,sum,last}``, the same on every command that reads LIBSVM files."""
    parser.add_argument(
        "--duplicates", default="error", choices=DUPLICATES,
        help="a feature index repeated within a row: error (default), sum the values, "
             "or keep the last one")


def add_input_options(parser, n_features=True):
    """The data-file options shared by train, predict, evaluate and active-learn."""
    import textwrap

    # (wrapped here: a command with a raw description formatter prints it as given)
    g = parser.add_argument_group("input files", textwrap.fill(
        "Data files may be LIBSVM/SVMlight, CSV/TSV (with or without a header), .npz "
        "(arrays X, y[, qid]) or .npy (2-D, label column first), plain or gzip/bzip2/xz; "
        "'-' reads standard input; FIFOs are read as streams. The format is sniffed from "
        "the content.", width=76))
    g.add_argument("--format", default="auto",
                   choices=("auto", "libsvm", "csv", "tsv", "npz", "npy"),
                   help="input format (default: auto, sniffed from the content)")
    g.add_argument("--zero-based", default="auto", choices=("auto", "yes", "no"),
                   help="LIBSVM index base: auto (default; scikit-learn's rule: one-based "
                        "unless index 0 occurs), yes (0-based) or no (1-based)")
    g.add_argument("--label-column", default=None, metavar="COL",
                   help="CSV/TSV/.npy: label column, a header name or a 0-based number "
                        "(negative counts from the end: -1 is the last) (default: a column "
                        "named label/y/target/relevance/rel, else the first)")
    g.add_argument("--qid-column", default=None, metavar="COL",
                   help="CSV/TSV: query id column, a header name or a 0-based number "
                        "(default: a column named qid/query/query_id/group, else none)")
    g.add_argument("--ignore-column", action="append", default=None, metavar="COL",
                   help="CSV/TSV/.npy: a column to drop before the table is read (an id, "
                        "a timestamp: never a feature, the label or the query id; its "
                        "cells need not be numbers), a header name or a 0-based number "
                        "(negative counts from the end); repeat it for more columns "
                        "(default: none)")
    if n_features:
        g.add_argument("--n-features", type=int, default=None, metavar="D",
                       help="number of features; a larger index is an error naming its line "
                            "(default: the largest index in the file)")
    add_duplicates_option(g)


def _opt(args, name, default=None):
    return getattr(args, name, default) if args is not None else default


def read_data(path, n_features=None, with_groups=True, duplicates="error", quiet=True,
              require_features=False, args=None, check_memory=False, info=None,
              zero_based=None, max_features=None, width_hint=None, roles=None, n_jobs=None):
    """Read a data file -> (X, y, groups or None).

    ``info``: a dict that receives ``"format"`` (as read) and, for LIBSVM,
    ``"zero_based"`` (the index base used); for CSV/TSV, ``"header"`` (the column
    names, or None), ``"columns"`` (the columns of y, qid, X and the ignored ones, see
    :func:`birank.datasets._formats.load_table`), ``"qid_values"`` (the query id
    column, also without ``with_groups``) and, when the header names X's columns
    (once each), ``"feature_names"`` (in X's order). ``zero_based``: the base to use when
    ``--zero-based`` is auto (a model's recorded base), instead of the file's own rule.
    ``max_features``: a LIBSVM feature index past that many columns is refused naming its
    line, as the chunked reader refuses one past its ``n_features`` (a table keeps its
    width: the caller compares it); ``width_hint(zero_based)`` ends that message.
    ``roles``: a model's record of its training file's label, query id and ignored
    columns, the defaults of ``--label-column``, ``--qid-column`` and ``--ignore-column``
    (see :func:`birank.datasets._formats.load_table`). ``n_jobs``: the threads that parse a
    plain LIBSVM file (the model's own ``n_jobs``; :func:`birank.datasets.load_svmlight`).

    LIBSVM groups come from ``qid:`` tokens or a ``<path>.query`` file when
    present; CSV groups from ``--qid-column``. Big files show parsing progress on
    stderr unless ``quiet``. With ``require_features`` a file whose rows are all
    empty (labels only) is refused; with ``check_memory`` a feature count whose
    dense vectors would not fit in memory is refused before any fit allocates them.
    """
    from ..datasets._formats import check_feature_memory, load_table, plain_libsvm_file, \
        read_source, widest_row_line
    from ..datasets._svmlight import groups_or_query_file

    path = os.fspath(path)
    name = "<stdin>" if path == "-" else path
    if n_features is None:
        n_features = _opt(args, "n_features")
    if n_features is not None and n_features < 1:
        raise UserError(f"--n-features must be a positive integer; got {n_features}")
    fmt = _opt(args, "format", "auto")
    # a plain LIBSVM file is parsed a block at a time (its text is never held beside the
    # matrix); its bytes are read only for an error message that quotes a line
    data = None
    try:
        if plain_libsvm_file(path, fmt):
            size = os.path.getsize(path)
        else:
            data = read_source(path)
            size = len(data)
    except OSError as exc:
        raise UserError(str(exc)) from None

    def text():
        return data if data is not None else read_source(path)

    progress = reading_progress(name) if not quiet and size >= _PROGRESS_BYTES else None
    info = {} if info is None else info
    base = _opt(args, "zero_based", "auto")
    if base == "auto" and zero_based is not None:
        base = "yes" if zero_based else "no"
    try:
        X, y, qid, fmt = load_table(
            data, name, fmt=fmt, info=info, path=path,
            zero_based=base, n_features=n_features,
            duplicates=_opt(args, "duplicates", duplicates),
            label_column=_opt(args, "label_column"), qid_column=_opt(args, "qid_column"),
            ignore_columns=_opt(args, "ignore_column") or (), progress=progress, roles=roles,
            n_jobs=n_jobs)
    except ValueError as exc:
        raise loader_error(exc) from None
    info["format"] = fmt
    if max_features is not None and fmt == "libsvm" and X.shape[1] > max_features:
        index = X.shape[1] - (1 if info.get("zero_based") else 0)
        raise UserError(f"{name} (read as libsvm), line {widest_row_line(text(), X)}: feature "
                        f"index {index} exceeds n_features={max_features}"
                        + (width_hint(info.get("zero_based")) if width_hint else ""))
    if info.get("header") is not None:
        names = [info["header"][j] for j in info["columns"]["features"]]
        # (not when names repeat, nor when --n-features widened the table past its columns)
        if len(set(names)) == len(names) == X.shape[1]:
            info["feature_names"] = names
        info["qid_values"] = qid
    if require_features and (X.shape[1] == 0 or X.nnz == 0):
        raise UserError(f"{name}: the file has labels but no features (every row is "
                        "empty); nothing to learn from or to score")
    if check_memory and X.shape[1]:
        try:
            check_feature_memory(X.shape[1],
                                 hint=" (--n-features D refuses lines with larger indices)")
        except ValueError as exc:  # the file's line (its text read only now)
            line = widest_row_line(text(), X) if fmt == "libsvm" else None
            where = (f"{name}, line {line} (its feature index is the largest): " if line
                     else f"{name}: ")
            raise UserError(where + str(exc)) from None
    if not with_groups:
        return X, y, None
    try:
        return X, y, groups_or_query_file(path, qid, X.shape[0])
    except ValueError as exc:
        raise UserError(str(exc)) from None


def note(text, quiet=False):
    """``note: text`` on a line of its own on stderr (none when ``quiet``)."""
    if quiet:
        return
    from .._progress import end_line

    end_line()  # (a progress line open on the terminal)
    print(f"note: {text}", file=sys.stderr)


def label_note(path, read, args, quiet=False):
    """A CSV/TSV header that names no label column (and no --label-column): the label is
    the first column (not ignored), by position; said in one note, since a header such as
    "age,income,clicked" would otherwise be read with age as the label, silently.
    ``read``: :func:`read_data`'s ``info``."""
    from ..datasets._formats import LABEL_NAMES

    header = read.get("header")
    if header is None or _opt(args, "label_column") is not None:
        return
    label = header[read["columns"]["label"]]
    if label not in LABEL_NAMES:
        name = "<stdin>" if path == "-" else path
        first = "the first not ignored" if read["columns"].get("ignored") else "the first"
        note(f"{name} (read as {read['format']}): the label is column {label!r}, {first} (no "
             f"column is named {', '.join(LABEL_NAMES[:-1])} or {LABEL_NAMES[-1]}); "
             "--label-column COL names another", quiet)


def add_deprecated_name(parser, old, dest, required=False):
    """``old``: the name before 1.0 of the option whose ``dest`` is given, hidden from
    --help; :func:`take_deprecated_name` resolves it. ``required``: the option must be
    given under one name or the other; argparse cannot require it (the caller checks it
    after :func:`take_deprecated_name`), the usage line shows it required."""
    import argparse

    parser.add_argument(old, dest=f"deprecated_{dest}", default=None, help=argparse.SUPPRESS)
    for action in parser._actions:
        if required and action.dest == dest:
            action.usage_required = True  # (read by birank.cli.Parser)


def take_deprecated_name(args, old, new, dest):
    """``old VALUE`` (deprecated, removed in 1.0) as ``new VALUE``, said in one line on
    stderr; both together are refused. The old name leaves ``args`` (whose options a
    report may record)."""
    value = vars(args).pop(f"deprecated_{dest}", None)
    if value is None:
        return
    if getattr(args, dest, None) is not None:
        raise UserError(f"{old} and {new} both given; {old} is the deprecated name of {new}: "
                        f"give {new} only.")
    print(f"birank {getattr(args, 'command', None) or ''}: warning: {old} is deprecated and "
          f"will be removed in 1.0; use {new} (the same folder)", file=sys.stderr)
    setattr(args, dest, value)


def refuse_ignore_column(where, args, why="a LIBSVM file has no columns, only index:value "
                                              "features"):
    """``--ignore-column`` given for input read other than as CSV/TSV/.npy: a UserError
    (``where``: the input, as errors name it), as :func:`read_data` gives for such files."""
    if _opt(args, "ignore_column"):
        raise UserError(f"{where}: --ignore-column applies to CSV, TSV and .npy input; {why}")


def libsvm_error(path, exc):
    """A LIBSVM reader's ValueError about the file ``path`` (read in chunks, or without
    :func:`read_data`) as a UserError naming the format, as :func:`read_data`'s do:
    "t.svm (read as libsvm), line 2: ..."."""
    text = str(exc)
    if text.startswith(path) and not text.startswith(f"{path} (read as"):
        text = f"{path} (read as libsvm)" + text[len(path):]
    return loader_error(text)


def loader_error(exc):
    """A loader's ValueError (or its message) as a UserError, its advice in the CLI's
    words."""
    text = str(exc).replace("pass duplicates='sum' or 'last' to accept such files",
                            "use --duplicates sum or --duplicates last")
    text = text.replace("pass zero_based=True for 0-based files", "use --zero-based yes")
    return UserError(text)


def reading_progress(name):
    """A ``progress(bytes_done, bytes_total, message)`` line "reading <file>" (in MiB)."""
    from .._progress import Progress

    return _ByteProgress(Progress(f"reading {os.path.basename(name)}"))


class _ByteProgress:
    """Adapts a :class:`birank._progress.Progress` to bytes (shown in MiB)."""

    def __init__(self, progress):
        self.progress = progress

    def __call__(self, done, total, message=""):
        self.progress(done >> 20, total >> 20, f"MiB {message}")


def parse_params(items):
    """``["C=0.5", "loss=hinge"]`` -> ``{"C": 0.5, "loss": "hinge"}``."""
    params = {}
    for item in items or ():
        if "=" not in item:
            raise UserError(f"--param takes KEY=VALUE; got {item!r}")
        key, raw = item.split("=", 1)
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw
        params[key.strip()] = value
    return params


def coerce_int_params(model, params):
    """Turn ``1e3`` into ``1000`` for parameters that only take integers.

    A float with a fractional part given for such a parameter is refused with
    a message that says so (rather than the estimator's generic one at fit).
    """
    constraints = getattr(model, "_parameter_constraints", {})
    fixed = {}
    for key, value in params.items():
        allowed = constraints.get(key, ())
        if not isinstance(value, float) or any(c.accepts(value) for c in allowed
                                               if hasattr(c, "accepts")):
            continue
        if any(getattr(c, "kind", None) == "integer" for c in allowed):
            if not value.is_integer():
                raise UserError(f"--param {key}={value!r}: {key} must be an integer")
            fixed[key] = int(value)
    if fixed:
        model.set_params(**fixed)
    return model


def check_output(path, force, inputs=()):
    """Refuse an output path that exists (without ``force``), is a directory, or is one
    of the command's ``inputs`` (even with ``force``: the command would destroy what it
    reads).

    FIFOs and devices (``/dev/stdout``, a named pipe) are written through and
    need no ``--force``; a symbolic link is followed (its target is written).
    """
    if path in (None, "-"):
        return
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory; give a file name for the output")
    from ..model_io import is_special_file  # FIFOs and devices: written through

    if is_special_file(path):
        return
    for source in inputs:
        if source not in (None, "-") and os.path.exists(path) and os.path.exists(source) \
                and os.path.samefile(path, source):
            raise UserError(f"the output {path} is the input {source}; writing it would "
                            "destroy what the command reads: give another output file")
    if os.path.lexists(path) and not force:
        raise UserError(f"{path} exists; use --force to overwrite it")
    parent = os.path.dirname(os.path.abspath(os.path.realpath(path)))
    if not os.path.isdir(parent):
        raise UserError(f"cannot write {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise UserError(f"cannot write {path}: folder {parent} is not writable")


def stdout_or_error():
    """``sys.stdout``, or a clear error when standard output is closed (``>&-``)."""
    if sys.stdout is None:
        raise UserError("standard output is closed; give an output file with -o FILE")
    return sys.stdout


def write_output(path, text, force):
    """Write ``text`` to ``path`` atomically (``-`` or None: standard output)."""
    if path in (None, "-"):
        stdout_or_error().write(text)
        return
    from ..model_io import atomic_write_text

    check_output(path, force)
    atomic_write_text(path, text, overwrite=force)


class heartbeat:
    """Context manager: for fits without progress of their own, a line on stderr every few
    seconds saying the work is still going (the CLI's progress for e.g. ``pruned``)."""

    def __init__(self, label, enabled=True, every=5.0):
        self.label, self.enabled, self.every = label, enabled and sys.stderr is not None, every

    def __enter__(self):
        if self.enabled:
            import threading
            import time

            self._stop = threading.Event()
            t0 = time.perf_counter()

            def beat():
                while not self._stop.wait(self.every):
                    print(f"{self.label}: still fitting, {time.perf_counter() - t0:.0f}s",
                          file=sys.stderr, flush=True)

            self._thread = threading.Thread(target=beat, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self._stop.set()
            self._thread.join()
        return False


def _scan_indices(path, duplicates):
    """(smallest, largest) feature index of a LIBSVM file, streamed; (None, None) if no feature."""
    from ..datasets import iter_svmlight_chunks

    lo = hi = None
    for X, _ in iter_svmlight_chunks(path, chunk_size=50_000, n_features=2**31 - 1,
                                     zero_based=True, duplicates=duplicates):
        if X.nnz:
            a, b = int(X.indices.min()), int(X.indices.max())
            lo = a if lo is None else min(lo, a)
            hi = b if hi is None else max(hi, b)
    return lo, hi


def resolve_stream_layout(path, args, zero_based_hint=None, n_features=None):
    """``(zero_based, n_features)`` for streaming ``path`` in chunks, or None when it cannot be
    streamed (standard input, a FIFO, or not LIBSVM): such input is read whole instead.

    ``--zero-based auto`` uses ``zero_based_hint`` (the base a model was trained with) when
    given, else scans the file once (scikit-learn's rule: 0-based iff index 0 occurs).
    """
    import stat

    from ..datasets._formats import sniff_format
    from ..datasets._svmlight import _open_stream

    if path == "-" or _opt(args, "format", "auto") not in ("auto", "libsvm"):
        return None
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    if not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise UserError(f"{path} is a directory, not a data file")
        return None
    try:
        stream, raw = _open_stream(path)
        with raw, stream:
            head = stream.read(65536)
    except PermissionError:
        raise UserError(f"cannot read {path}: permission denied") from None
    except (OSError, EOFError) as exc:
        raise UserError(f"{path}: cannot decompress ({exc})") from None
    if _opt(args, "format", "auto") == "auto" and sniff_format(head) != "libsvm":
        return None
    from ..datasets._formats import refuse_libsvm_columns

    try:  # (as the whole-file reader refuses them)
        refuse_libsvm_columns(f"{path} (read as libsvm)", _opt(args, "label_column"),
                              _opt(args, "qid_column"))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    refuse_ignore_column(f"{path} (read as libsvm)", args)
    zb = {"yes": True, "no": False}.get(_opt(args, "zero_based", "auto"), zero_based_hint)
    n_features = n_features if n_features is not None else _opt(args, "n_features")
    if zb is None or n_features is None:
        try:
            lo, hi = _scan_indices(path, _opt(args, "duplicates", "error"))
        except ValueError as exc:
            raise libsvm_error(path, exc) from None
        if zb is None:
            zb = lo == 0
        if n_features is None:
            n_features = max(1, 0 if hi is None else hi + (1 if zb else 0))
    return bool(zb), int(n_features)
