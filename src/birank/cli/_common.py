"""Helpers shared by the sub-commands: reading data files, parsing --param, output files."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from . import UserError


def read_data(path, n_features=None, with_groups=True):
    """Read a LIBSVM/SVMlight file (qid optional) -> (X, y, groups or None)."""
    from ..datasets import load_svmlight

    if not Path(path).exists():
        raise UserError(f"no such file: {path}")
    out = load_svmlight(path, n_features=n_features, query_id=with_groups)
    if with_groups:
        X, y, groups = out
        if groups is not None and len(groups) and (groups == groups[0]).all() and \
                not _file_has_qid(path):
            groups = None
        return X, y, groups
    X, y = out
    return X, y, None


def _file_has_qid(path):
    from ..datasets import load_svmlight  # noqa: F401  (same opener as the loader)

    opener = _opener(path)
    with opener(path, "rt") as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if line:
                return "qid:" in line
    return False


def _opener(path):
    import bz2
    import gzip
    import lzma

    suffix = Path(path).suffix
    return {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(suffix, open)


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
    """A writable text stream: stdout for None or '-', else a new file (no clobbering)."""
    if path in (None, "-"):
        return sys.stdout
    path = Path(path)
    if path.exists() and not force:
        raise UserError(f"{path} exists; use --force to overwrite it")
    return path.open("w")
