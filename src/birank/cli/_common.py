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


def read_data(path, n_features=None, with_groups=True, duplicates="error", quiet=True,
              require_features=False):
    """Read a LIBSVM/SVMlight file -> (X, y, groups or None).

    Groups come from ``qid:`` tokens or a ``<path>.query`` file when present.
    Big files show parsing progress on stderr unless ``quiet``. With
    ``require_features`` a file whose rows are all empty (labels only) is refused.
    """
    from ..datasets._svmlight import load_svmlight_bytes, read_bytes, read_query_file

    path = os.fspath(path)
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory, not a data file")
    if not os.path.exists(path):
        raise UserError(f"no such file: {path}")
    if not os.access(path, os.R_OK):
        raise UserError(f"cannot read {path}: permission denied")
    progress = None
    if not quiet and os.path.getsize(path) >= _PROGRESS_BYTES:
        from .._progress import Progress

        progress = _ByteProgress(Progress(f"reading {os.path.basename(path)}"))
    try:
        X, y, qid = load_svmlight_bytes(read_bytes(path), path, n_features,
                                        duplicates=duplicates, progress=progress)
    except ValueError as exc:
        raise loader_error(exc) from None
    if require_features and (X.shape[1] == 0 or X.nnz == 0):
        raise UserError(f"{path}: the file has labels but no features (every row is "
                        "empty); nothing to learn from or to score")
    if not with_groups:
        return X, y, None
    if qid is None and os.path.exists(path + ".query"):
        qid = read_query_file(path + ".query", n_rows=X.shape[0])
    return X, y, qid


def loader_error(exc):
    """A loader's ValueError as a UserError, its advice in the CLI's words."""
    return UserError(str(exc).replace("pass duplicates='sum' or 'last' to accept such files",
                                      "use --duplicates sum or --duplicates last"))


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


def check_output(path, force):
    """Refuse an output path that exists (without ``force``) or is a directory."""
    if path in (None, "-"):
        return
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory; give a file name for the output")
    if os.path.exists(path) and not force:
        raise UserError(f"{path} exists; use --force to overwrite it")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UserError(f"cannot write {path}: folder {parent} does not exist")


def write_output(path, text, force):
    """Write ``text`` to ``path`` atomically (``-`` or None: standard output)."""
    if path in (None, "-"):
        sys.stdout.write(text)
        return
    from ..model_io import atomic_write_text

    check_output(path, force)
    atomic_write_text(path, text, overwrite=force)


def open_output(path, force):
    """A new file opened for writing; an existing one only with ``force``."""
    check_output(path, force)
    return open(path, "w")
