"""``birank predict``: score a data file with a saved model, one score a line.

A LIBSVM file on disk is scored in chunks of rows (memory: one chunk, not the
file); other inputs (CSV, .npz, standard input, FIFOs) are read whole.
"""

from __future__ import annotations


def register(subparsers):
    from ._common import add_input_options

    p = subparsers.add_parser(
        "predict", help="score a data file with a saved model",
        description="Write one score per line (higher = ranked higher), in file order. "
                    "LIBSVM files are scored in chunks (bounded memory). A model that "
                    "knows its features' names takes a CSV/TSV file's columns by the "
                    "names of its header, in any order.")
    p.add_argument("model", metavar="MODEL", help="model file written by `birank train`")
    p.add_argument("data_file", metavar="DATA",
                   help="data file to score (LIBSVM, CSV/TSV, .npz, .npy; '-': standard input)")
    p.add_argument("-o", "--output", default="-", help="scores file (default: stdout)")
    p.add_argument("--force", action="store_true", help="overwrite the output file")
    p.add_argument("--chunk-size", type=int, default=50_000, metavar="ROWS",
                   help="rows scored at a time (default: 50000)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    add_input_options(p, n_features=False)
    p.set_defaults(func=run)


def _chunks(args, model, zero_based_hint):
    """Score-ready ``X`` blocks of the data file, streamed when it is a LIBSVM file.

    A model that knows its columns' names (``feature_names``) takes a CSV/TSV file's
    columns by the names of its header, in any order; input without a header is
    taken by position, with one note on stderr (not with --quiet).
    """
    from . import UserError
    from ._common import read_data, resolve_stream_layout

    n_features = model.n_features
    name = "<stdin>" if args.data_file == "-" else args.data_file
    layout = resolve_stream_layout(args.data_file, args, zero_based_hint, n_features)
    if layout is None:
        read = {}
        roles = _recorded_roles(args, model)
        X, y, _ = read_data(args.data_file, with_groups=False, quiet=args.quiet, args=args,
                            info=read, zero_based=zero_based_hint, max_features=n_features,
                            width_hint=lambda zb: _width_hint(args, n_features, zb,
                                                              zero_based_hint), roles=roles)
        absent = read.get("columns", {}).get("label_absent", False)
        if model.feature_names is not None and read.get("header") is not None:
            yield _by_name(X, y, read, model, args, name, recorded=roles is not None)
            return
        if model.feature_names is not None:
            _by_position_note(args, model, name, read["format"])
        if absent:  # the placeholder label column is a feature: back in its place
            columns = read["columns"]
            X = _take(X, y, read, sorted([*columns["features"], columns["label"]]))
            _no_label_note(args, roles, name, read)
        if read["format"] != "libsvm" and X.shape[1] != n_features:
            # a LIBSVM row may omit trailing zero features; a table has every column
            hint = (" (is its label column there? --label-column names it; the default is "
                    "the first column, or one named label, y, ...)"
                    if X.shape[1] == n_features - 1 else
                    " (a column that is not a feature, such as an id? --ignore-column drops "
                    "it)" if X.shape[1] > n_features and read["format"] != "npz" else "")
            raise UserError(f"{name} (read as {read['format']}) has {X.shape[1]} feature "
                            f"columns, but the model in {args.model} was trained on "
                            f"{n_features}{hint}")
        yield X
        return
    if model.feature_names is not None:
        _by_position_note(args, model, name, "libsvm")
    import os
    import sys

    from .._progress import byte_count, make_progress
    from ..datasets import iter_svmlight_chunks
    from ._common import libsvm_error

    zero_based, width = layout
    # progress over the file's bytes on stderr, as `birank train` streams (-q: none; nor
    # when the scores themselves go to the terminal: the line would run into them)
    to_terminal = args.output in (None, "-") and sys.stdout.isatty()
    progress = make_progress(not (args.quiet or to_terminal),
                             f"predict {os.path.basename(args.data_file)}", count=byte_count)
    try:
        for X, _ in iter_svmlight_chunks(args.data_file, chunk_size=args.chunk_size,
                                         n_features=width, zero_based=zero_based,
                                         duplicates=args.duplicates, progress=progress):
            yield X
        progress.close()
    except ValueError as exc:
        msg = str(libsvm_error(args.data_file, exc))
        if "exceeds n_features" in msg:
            msg = msg.rstrip(".") + _width_hint(args, width, zero_based, zero_based_hint)
        if "feature index 0 is invalid" in msg and zero_based_hint is False:
            # (reading it 0-based would shift every feature against the model)
            raise UserError(msg.split(" (indices are one-based")[0] + f": the model in "
                            f"{args.model} was trained on a 1-based file, where no feature "
                            "has index 0; this file is 0-based or holds a stray index 0"
                            ) from None
        raise UserError(msg) from None


def _width_hint(args, width, zero_based, zero_based_hint):
    """The end of the error for a feature index past the model: its width and indices
    (in ``zero_based``, the base the file was read with) and, for a model trained on a
    0-based file, how to read a 1-based one: files are read in the model's base."""
    first = 0 if zero_based else 1
    text = (f" (the model in {args.model} was trained on {width} features, indices "
            f"{first} to {width - 1 + first}")
    if first == 0 and zero_based_hint is True and args.zero_based == "auto":
        text += "; if this file is 1-based, give --zero-based no"
    return text + ")"


def run(args):
    import os
    import sys
    import warnings

    from ..model_io import load_model
    from . import UserError
    from ._common import check_output, stdout_or_error

    if args.chunk_size < 1:
        raise UserError("--chunk-size must be positive")
    check_output(args.output, args.force, inputs=(args.model, args.data_file))  # before the work
    if args.output in (None, "-"):
        stdout_or_error()
    model = load_model(args.model)
    hint = (model.doc.get("extra") or {}).get("zero_based")
    out, tmp = None, None
    try:
        if args.output in (None, "-"):
            out = sys.stdout
        else:
            from ..model_io import open_for_write

            out, tmp = open_for_write(args.output, overwrite=args.force)
        with warnings.catch_warnings():
            # (a model with feature names warns for X without them, as scikit-learn: the
            # columns are matched by name in _chunks, or said once to be taken by position)
            warnings.filterwarnings("ignore", message="X does not have valid feature names",
                                    category=UserWarning)
            for X in _chunks(args, model, hint):
                scores = model.decision_function(X)
                out.write("".join(f"{s:.12g}\n" for s in scores.tolist()))
        if tmp is not None:
            from ..model_io import finish_write

            finish_write(out, tmp, args.output, overwrite=args.force)
            tmp = None
    finally:
        if tmp is not None:  # an error or Ctrl-C: no half-written scores file
            out.close()
            if os.path.exists(tmp):
                os.unlink(tmp)
    return 0


def _listed(names, limit=10):
    """``a, b, c`` (at most ``limit`` names, then how many in all)."""
    shown = ", ".join(str(v) for v in names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def _recorded_roles(args, model):
    """The model file's record of its training file's label, query id and ignored
    columns (``birank train`` on a CSV/TSV/.npy file writes it), or None (other input,
    older files)."""
    from ..datasets._roles import check
    from . import UserError

    roles = (model.doc.get("extra") or {}).get("columns")
    if roles is None:
        return None
    problem = check(roles)
    if problem:
        raise UserError(f"{args.model}: extra.columns, the training file's column roles, "
                        f"is damaged or was edited: {problem}")
    return roles


def _take(X, y, read, columns):
    """The file's ``columns`` (0-based, in that order) of a table read as ``X``, ``y``
    and (``read["qid_values"]``) its query ids."""
    import scipy.sparse as sp

    roles = read["columns"]
    slot = {j: k for k, j in enumerate(roles["features"])}
    parts = [X, sp.csr_matrix(y.reshape(-1, 1))]
    slot[roles["label"]] = X.shape[1]
    if roles["qid"] is not None:
        parts.append(sp.csr_matrix(read["qid_values"].astype(float).reshape(-1, 1)))
        slot[roles["qid"]] = X.shape[1] + 1
    return sp.hstack(parts, format="csr")[:, [slot[j] for j in columns]]


def _no_label_note(args, roles, name, read):
    """One line on stderr (not with --quiet): a file without header one column narrower
    than the training file is read as its columns without the label, by position."""
    if roles is None or "n_columns" not in roles:
        return  # (by name, the label's absence is plain)
    from ._common import note

    note(f"{name} (read as {read['format']}) has {roles['n_columns'] - 1} columns, one fewer "
         f"than the file the model in {args.model} was trained on: read as its columns "
         f"without the label (column {roles['label']})", args.quiet)


def _by_name(X, y, read, model, args, name, recorded=False):
    """The columns of a CSV/TSV file with a header in the order of the model's
    ``feature_names``, matched by name.

    Besides the model's features, the file may hold its label column and its query id
    column (dropped); another column, a missing feature or a feature named twice is
    an error naming them. Columns dropped with ``--ignore-column`` (or recorded as
    ignored in the model file: ``recorded``) are not looked at.
    """
    import shlex

    from ..datasets._formats import LABEL_NAMES
    from . import UserError

    where = f"{name} (read as {read['format']})"
    header, roles = read["header"], read["columns"]
    ignored = set(roles.get("ignored", ()))
    wanted = [str(v) for v in model.feature_names.tolist()]
    position = {}  # name -> its first column (not ignored)
    repeated = []
    for j, column in enumerate(header):
        if j in ignored:
            continue
        if column in position:
            repeated.append(column)
        position.setdefault(column, j)
    missing = [v for v in wanted if v not in position]
    if missing:
        gone = [v for v in missing if v in {header[j] for j in ignored}]
        hint = f"; --ignore-column drops {_listed(gone)}" if gone else ""
        raise UserError(f"{where}: no column{'s' if len(missing) > 1 else ''} named "
                        f"{_listed(missing)}, which the model in {args.model} was trained "
                        f"on (its features: {_listed(wanted)}; the header: {_listed(header)}"
                        f"{hint})")
    features = set(wanted)
    repeated = [v for v in dict.fromkeys(repeated) if v in features]
    if repeated:
        raise UserError(f"{where}: the header names {_listed(repeated)} more than once; the "
                        f"model in {args.model} takes each of its features from one column")
    dropped = (roles["qid"],) if roles["label_absent"] else (roles["label"], roles["qid"])
    extra = [v for j, v in enumerate(header)
             if v not in features and j not in dropped and j not in ignored]
    if extra:
        fix = (" ".join(f"--ignore-column {shlex.quote(v)}" for v in extra)
               if len(extra) <= 3 else "--ignore-column COL, once for each")
        first = header[roles["label"]]
        if (len(extra) == 1 and getattr(args, "label_column", None) is None and not recorded
                and first not in LABEL_NAMES and first not in features):
            # the label was the first column by position: with an id column first, the
            # one column left over is most likely the label itself
            fix += (f" (or, if {extra[0]!r} is the label: --label-column "
                    f"{shlex.quote(extra[0])} --ignore-column {shlex.quote(first)}; "
                    f"{first!r} was read as the label because it comes first)")
        raise UserError(f"{where}: column{'s' if len(extra) > 1 else ''} {_listed(extra)} "
                        f"{'are' if len(extra) > 1 else 'is'} not among the features of the "
                        f"model in {args.model} ({_listed(wanted)}); besides them a file may "
                        "hold its label and query id columns only (--label-column, "
                        f"--qid-column name them): drop {'them' if len(extra) > 1 else 'it'} "
                        f"with {fix}")
    # the label and query id columns may be features of the model (a file of features
    # only has its first column read as its label)
    return _take(X, y, read, [position[v] for v in wanted])


def _by_position_note(args, model, name, fmt):
    """One line on stderr (not with --quiet): input without column names is scored by
    position against a model that knows its columns' names."""
    from ._common import note

    names = [str(v) for v in model.feature_names.tolist()]
    note(f"{name} (read as {fmt}) has no column names: its columns are taken by position, "
         f"as the features of the model in {args.model} in order ({_listed(names, 5)})",
         args.quiet)
