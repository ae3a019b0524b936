"""Helpers shared by the sub-commands: reading data files, parsing --param, output files."""

from __future__ import annotations

import ast
from pathlib import Path

from . import UserError


def read_data(path, n_features=None, with_groups=True):
    """Read a LIBSVM/SVMlight file -> (X, y, groups or None).

    Groups come from ``qid:`` tokens or a ``<path>.query`` file when present.
    """
    import os

    from ..datasets._svmlight import load_svmlight_bytes, read_bytes, read_query_file

    if not Path(path).is_file():
        raise UserError(f"no such file: {path}")
    X, y, qid = load_svmlight_bytes(read_bytes(path), os.fspath(path), n_features)
    if not with_groups:
        return X, y, None
    if qid is None and os.path.exists(f"{path}.query"):
        qid = read_query_file(f"{path}.query", n_rows=X.shape[0])
    return X, y, qid


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


def open_output(path, force):
    """A new file opened for writing; an existing one only with ``force``."""
    path = Path(path)
    if path.exists() and not force:
        raise UserError(f"{path} exists; use --force to overwrite it")
    return path.open("w")
