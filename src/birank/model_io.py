"""Saving and loading fitted linear rankers as plain JSON (no pickle).

A model file holds the estimator's class and parameters, ``coef_``,
``intercept_`` and, for binary rankers, ``classes_``. It is
enough to score new data (``birank predict``) and to rebuild the estimator.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

__all__ = ["save_model", "load_model", "LinearModel"]

FORMAT = "birank-linear-model/1"


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def save_model(estimator, path, *, overwrite=False, extra=None):
    """Write a fitted linear ranker to ``path`` as JSON.

    Parameters
    ----------
    estimator : fitted birank estimator (anything with ``coef_``).
    path : str or Path
        ``"-"`` writes the JSON to standard output. Otherwise the file is
        written atomically (see :func:`atomic_write_text`).
    overwrite : bool, default=False
        An existing file is only replaced when this is true.
    extra : dict, optional
        More metadata to store (e.g. training file, fit seconds).

    Raises
    ------
    ValueError
        The estimator is not fitted or its coefficients are not finite (such a
        model would be refused by :func:`load_model`).
    """
    path = Path(path)
    if not hasattr(estimator, "coef_"):
        # either unfitted or a kernel expansion (PrunedRankSVM(kernel='rbf'))
        raise ValueError(f"{type(estimator).__name__} has no coef_ (not fitted, or a kernel "
                         "model): nothing to save; only fitted linear rankers can be saved "
                         "as JSON model files.")
    if str(path) != "-" and path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True (CLI: --force) to replace it.")
    coef = np.asarray(estimator.coef_, dtype=float).reshape(-1)
    if not np.isfinite(coef).all() or not np.isfinite(getattr(estimator, "intercept_", 0.0)):
        raise ValueError(f"{type(estimator).__name__} has non-finite coefficients (NaN or "
                         "inf; the fit diverged): refusing to save it.")
    params = {k: _plain(v) for k, v in estimator.get_params(deep=False).items()
              if isinstance(_plain(v), (int, float, str, bool, type(None), list))}
    doc = {
        "format": FORMAT,
        "estimator": f"{type(estimator).__module__}:{type(estimator).__name__}",
        "params": params,
        "n_features": int(np.asarray(estimator.coef_).shape[0]),
        "coef": np.asarray(estimator.coef_, dtype=float).tolist(),
        "intercept": float(getattr(estimator, "intercept_", 0.0)),
    }
    if hasattr(estimator, "classes_"):
        doc["classes"] = _plain(np.asarray(estimator.classes_))
    if extra:
        doc["extra"] = {k: _plain(v) for k, v in extra.items()}
    text = json.dumps(doc, indent=1) + "\n"
    if str(path) == "-":  # the CLI's "-o -": standard output
        import sys

        sys.stdout.write(text)
        return path
    atomic_write_text(path, text, overwrite=overwrite)
    return path


def atomic_write_text(path, text, *, overwrite=False):
    """Write ``text`` to ``path`` all at once: a reader (or a Ctrl-C) never sees half a file.

    The text goes to a hidden temporary file next to ``path``, which then
    replaces it; the temporary file is removed on any error or interruption,
    and errors name ``path``, not the temporary file.

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is false.
    IsADirectoryError
        ``path`` is a directory (even with ``overwrite``).
    PermissionError, OSError
        The folder is missing or not writable (naming ``path``).
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; give a file name to write to.")
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True (CLI: --force) to replace it.")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"cannot write {path}: folder {path.parent} does not exist.")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        try:
            tmp.write_text(text)
            os.replace(tmp, path)
        except PermissionError:
            raise PermissionError(f"cannot write {path}: permission denied.") from None
        except OSError as exc:
            raise OSError(f"cannot write {path}: {exc.strerror or exc}.") from None
    finally:  # also on KeyboardInterrupt: no half-written output left behind
        if tmp.exists():
            tmp.unlink()


class LinearModel:
    """A loaded model: scores ``X @ coef + intercept``; ``estimator()`` rebuilds the class."""

    def __init__(self, doc, path):
        self.doc, self.path = doc, path
        self.coef = np.asarray(doc["coef"], dtype=np.float64)
        self.intercept = float(doc.get("intercept", 0.0))
        self.n_features = int(doc["n_features"])

    def decision_function(self, X):
        if X.shape[1] > self.n_features:
            raise ValueError(f"data has {X.shape[1]} features but the model in {self.path} "
                             f"was trained on {self.n_features}.")
        if X.shape[1] < self.n_features:  # a LIBSVM file whose last features are all zero
            import scipy.sparse as sp

            X = sp.csr_matrix(X)
            X.resize((X.shape[0], self.n_features))
        return np.asarray(X @ self.coef).reshape(-1) + self.intercept

    def estimator(self):
        """The fitted estimator object, rebuilt from the file."""
        from ._registry import registered_class

        # only birank's own registered estimators: a model file is data, and must
        # not be able to make us import (and so run) a module it names
        cls = registered_class(self.doc["estimator"], source=str(self.path))
        est = cls(**{k: v for k, v in self.doc.get("params", {}).items()
                     if k in cls().get_params()})
        est.coef_ = self.coef.copy()
        est.intercept_ = self.intercept
        est.n_features_in_ = self.n_features
        if "classes" in self.doc:
            est.classes_ = np.asarray(self.doc["classes"])
        return est


def load_model(path):
    """Read a model written by :func:`save_model`.

    The file is checked before anything is built from it: the format tag, the
    estimator (one of birank's registered classes, see
    :func:`birank._registry.registered_class`), ``n_features``, finite
    coefficients and intercept, and two classes if any.

    Raises
    ------
    ValueError
        If the file is not a birank model or is corrupted (naming the file and
        what is wrong).
    FileNotFoundError, IsADirectoryError, PermissionError
        If the path cannot be read as a file.

    Examples
    --------
    >>> import os, tempfile
    >>> from birank import WeightedSVM
    >>> from birank.datasets import load_heart
    >>> from birank.model_io import load_model, save_model
    >>> X, y = load_heart()
    >>> path = os.path.join(tempfile.mkdtemp(), "wsvm.json")
    >>> _ = save_model(WeightedSVM(random_state=0).fit(X, y), path)
    >>> model = load_model(path)
    >>> bool((model.decision_function(X) == model.estimator().decision_function(X)).all())
    True
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a model file.")
    if not path.exists():
        raise FileNotFoundError(f"no such model file: {path}")
    raw = path.read_bytes()
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a birank model file (binary data, not JSON text; "
                         "compressed model files are not supported).") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a birank model file (invalid JSON at line "
                         f"{exc.lineno}: {exc.msg}).") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a birank model file (expected format {FORMAT!r}).")
    for key in ("coef", "n_features", "estimator"):
        if key not in doc:
            raise ValueError(f"{path}: model file lacks {key!r}.")
    _check_doc(doc, path)
    return LinearModel(doc, path)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_doc(doc, path):
    """Types and values of a parsed model document; ValueError naming the field."""
    n = doc["n_features"]
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"{path}: n_features must be a non-negative integer; got {n!r}.")
    coef = doc["coef"]
    if not isinstance(coef, list) or not all(_is_number(v) for v in coef):
        raise ValueError(f"{path}: coef must be a list of numbers.")
    if len(coef) != n:
        raise ValueError(f"{path}: coef has {len(coef)} values but n_features is {n}.")
    bad = [i for i, v in enumerate(coef) if not math.isfinite(v)]
    if bad:
        raise ValueError(f"{path}: coef holds {len(bad)} non-finite value(s) (NaN or inf, "
                         f"first at index {bad[0]}): the model diverged or the file is corrupted.")
    intercept = doc.get("intercept", 0.0)
    if not _is_number(intercept) or not math.isfinite(intercept):
        raise ValueError(f"{path}: intercept must be a finite number; got {intercept!r}.")
    if not isinstance(doc["estimator"], str) or doc["estimator"].count(":") != 1:
        raise ValueError(f"{path}: estimator must be 'module:Class'; got {doc['estimator']!r}.")
    if not isinstance(doc.get("params", {}), dict):
        raise ValueError(f"{path}: params must be a JSON object.")
    if "classes" in doc:
        classes = doc["classes"]
        if not isinstance(classes, list) or len(classes) != 2 or \
                not all(_is_number(c) or isinstance(c, str) for c in classes):
            raise ValueError(f"{path}: classes must be a list of two labels; got {classes!r}.")
