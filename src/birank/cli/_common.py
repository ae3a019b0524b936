"""Helpers shared by the sub-commands: reading data files, parsing --param, output files."""

from __future__ import annotations

import ast
from pathlib import Path

from . import UserError


def read_data(path, n_features=None, with_groups=True):
    """Read a LIBSVM/SVMlight file -> (X, y, groups or None).

    Groups come from ``qid:`` tokens or a ``<path>.query`` file when present.
    """
    from ..datasets import load_svmlight

    if not Path(path).is_file():
        raise UserError(f"no such file: {path}")
    if not with_groups:
        return (*load_svmlight(path, n_features), None)
    return load_svmlight(path, n_features, query_id="auto")


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
