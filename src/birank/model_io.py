"""Saving and loading fitted linear rankers as plain JSON (no pickle).

A model file holds the estimator's class and parameters, ``coef_``,
``intercept_`` and, for binary rankers, ``classes_``. It is
enough to score new data (``birank predict``) and to rebuild the estimator.
"""

from __future__ import annotations

import importlib
import json
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
    overwrite : bool, default=False
        An existing file is only replaced when this is true.
    extra : dict, optional
        More metadata to store (e.g. training file, fit seconds).
    """
    path = Path(path)
    if not hasattr(estimator, "coef_"):
        raise ValueError(f"{type(estimator).__name__} has no coef_ (a kernel model); only "
                         "linear rankers can be saved as JSON model files.")
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True (CLI: --force) to replace it.")
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
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    os.replace(tmp, path)
    return path


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
        module_name, cls_name = self.doc["estimator"].split(":")
        cls = getattr(importlib.import_module(module_name), cls_name)
        est = cls(**{k: v for k, v in self.doc["params"].items()
                     if k in cls().get_params()})
        est.coef_ = self.coef.copy()
        est.intercept_ = self.intercept
        est.n_features_in_ = self.n_features
        if "classes" in self.doc:
            est.classes_ = np.asarray(self.doc["classes"])
        return est


def load_model(path):
    """Read a model written by :func:`save_model`.

    Raises
    ------
    ValueError
        If the file is not a birank model (naming the file and what is wrong).
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a birank model file (invalid JSON at line "
                         f"{exc.lineno}: {exc.msg}).") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a birank model file (expected format {FORMAT!r}).")
    for key in ("coef", "n_features", "estimator"):
        if key not in doc:
            raise ValueError(f"{path}: model file lacks {key!r}.")
    if len(doc["coef"]) != doc["n_features"]:
        raise ValueError(f"{path}: coef has {len(doc['coef'])} values but n_features is "
                         f"{doc['n_features']}.")
    return LinearModel(doc, path)
