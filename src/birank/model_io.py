"""Saving and loading fitted linear rankers as plain JSON (no pickle).

A model file holds the estimator's class and parameters, ``coef_``,
``intercept_``, for binary rankers ``classes_`` and ``probability_``
(``predict_proba``'s sigmoid), and ``feature_names_in_`` when the estimator was
fitted on a DataFrame (scoring then checks the columns by name). It is
enough to score new data (``birank predict``) and to rebuild the estimator.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import stat
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ._registry import _registered_name, estimator_class, estimator_name

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, TextIO

    from sklearn.base import BaseEstimator

    from ._typing import FloatArray, MatrixLike, StrPath

__all__ = ["save_model", "load_model", "LinearModel"]

FORMAT = "birank-linear-model/1"


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def save_model(estimator: BaseEstimator, path: StrPath, *, overwrite: bool = False,
               extra: Mapping[str, Any] | None = None) -> Path:
    """Write a fitted linear ranker to ``path`` as JSON.

    Parameters
    ----------
    estimator : estimator
        A fitted linear birank ranker (anything with ``coef_``).
    path : str or Path
        ``"-"`` writes the JSON to standard output. Otherwise the file is
        written atomically (see :func:`atomic_write_text`).
    overwrite : bool, default=False
        An existing file is only replaced when this is true.
    extra : dict, optional
        More metadata to store (e.g. training file, fit seconds).

    Returns
    -------
    path : Path
        ``Path(path)``: the file written (``Path("-")`` when written to
        standard output).

    Raises
    ------
    ValueError
        The estimator is not fitted or its coefficients are not finite (such a
        model would be refused by :func:`load_model`).

    Examples
    --------
    >>> import json, os, tempfile
    >>> import numpy as np
    >>> from birank import BBR
    >>> from birank.model_io import save_model
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [0.0, 0.0]])
    >>> est = BBR().fit(X, [1, 0, 1, 0])
    >>> path = save_model(est, os.path.join(tempfile.mkdtemp(), "bbr.json"),
    ...                   extra={"train": "toy"})
    >>> doc = json.loads(path.read_text())
    >>> doc["estimator"], doc["n_features"], doc["extra"]
    ('BBR', 2, {'train': 'toy'})
    >>> save_model(est, path)  # an existing file is kept unless overwrite=True
    Traceback (most recent call last):
    ...
    FileExistsError: ...bbr.json exists; pass overwrite=True (CLI: --force) to replace it.
    """
    if str(path) == "":
        raise ValueError("path is empty; give a model file name (or '-' for standard output).")
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; give a model file name.")
    if not hasattr(estimator, "coef_"):
        # either unfitted or a kernel expansion (PrunedRankSVM(kernel='rbf'))
        raise ValueError(f"{type(estimator).__name__} has no coef_ (not fitted, or a kernel "
                         "model): nothing to save; only fitted linear rankers can be saved "
                         "as JSON model files.")
    if str(path) != "-" and os.path.lexists(path) and not overwrite and not is_special_file(path):
        raise FileExistsError(f"{path} exists; pass overwrite=True (CLI: --force) to replace it.")
    coef = np.asarray(estimator.coef_, dtype=float).reshape(-1)
    if not np.isfinite(coef).all() or not np.isfinite(getattr(estimator, "intercept_", 0.0)):
        raise ValueError(f"{type(estimator).__name__} has non-finite coefficients (NaN or "
                         "inf; the fit diverged): refusing to save it.")
    every = estimator.get_params(deep=False)
    params = {k: _plain(v) for k, v in every.items()
              if isinstance(_plain(v), (int, float, str, bool, type(None), list))}
    doc = {
        "format": FORMAT,
        # the registry's public name: a class may move between modules, the name stays
        "estimator": estimator_name(estimator),
        "params": params,
        "n_features": int(np.asarray(estimator.coef_).shape[0]),
        "coef": np.asarray(estimator.coef_, dtype=float).tolist(),
        "intercept": float(getattr(estimator, "intercept_", 0.0)),
    }
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:  # (fitted on a DataFrame: scoring checks the columns by name)
        doc["feature_names"] = [str(v) for v in np.asarray(names).reshape(-1)]
    if hasattr(estimator, "classes_"):
        doc["classes"] = _plain(np.asarray(estimator.classes_))
    if hasattr(estimator, "probability_"):  # predict_proba's two slopes (birank._calibration)
        doc["probability"] = [float(v) for v in np.asarray(estimator.probability_).reshape(-1)]
    # parameters a JSON file cannot hold (a class_weight dict, an estimator, a
    # RandomState): named, so that rebuilding says which ones took their defaults
    unsaved = sorted(k for k in every if k not in params)
    if unsaved:
        doc["unsaved_params"] = unsaved
    if extra:
        doc["extra"] = {k: _plain(v) for k, v in extra.items()}
        for k, v in doc["extra"].items():
            try:
                json.dumps(v)
            except (TypeError, ValueError):
                raise TypeError(f"extra[{k!r}] is a {type(v).__name__}, which JSON cannot "
                                "hold; give numbers, strings, booleans, lists or dicts of "
                                "them.") from None
    text = json.dumps(doc, indent=1) + "\n"
    if str(path) == "-":  # the CLI's "-o -": standard output
        import sys

        if sys.stdout is None:  # `>&-`
            raise OSError("standard output is closed; give a model file name instead of '-'.")
        sys.stdout.write(text)
        return path
    atomic_write_text(path, text, overwrite=overwrite)
    return path


def is_special_file(path: StrPath) -> bool:
    """A FIFO or a device: written through (opening it), never replaced by a file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


_TMP_COUNTER = itertools.count()


def open_for_write(path: StrPath, *, overwrite: bool = False) -> tuple[TextIO, Path | None]:
    """``(text file, temporary path or None)`` to write ``path`` all at once.

    Regular files: a hidden temporary file next to ``path`` (the target of a
    symbolic link: links are followed), published by :func:`finish_write`.
    FIFOs and devices: opened directly (``tmp`` is None). Checks as
    :func:`atomic_write_text`.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; give a file name to write to.")
    if is_special_file(path):
        return open(path, "w"), None
    target = Path(os.path.realpath(path))  # a symlink is followed: its target is written
    if os.path.lexists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True (CLI: --force) to replace it.")
    if not target.parent.is_dir():
        raise FileNotFoundError(f"cannot write {path}: folder {target.parent} does not exist.")
    # a name of its own per call (process, thread, counter), created exclusively: concurrent
    # writers, threads included, never share a temporary file; the file gets the umask's mode
    tmp = target.with_name(
        f".{target.name}.{os.getpid()}.{threading.get_ident()}.{next(_TMP_COUNTER)}.tmp")
    try:
        return open(tmp, "x"), tmp
    except PermissionError:
        raise PermissionError(f"cannot write {path}: permission denied.") from None


def finish_write(fh: TextIO, tmp: Path | None, path: StrPath, *, overwrite: bool = False) -> None:
    """Close ``fh`` and publish ``tmp`` as ``path``.

    Without ``overwrite`` the publication is a hard link, which fails if
    ``path`` appeared meanwhile: of concurrent writers exactly one succeeds
    (``O_EXCL`` semantics, no check-then-replace race). Where hard links are
    not supported, an ``O_EXCL`` create reserves the name first.
    """
    fh.close()
    if tmp is None:
        return
    target = Path(os.path.realpath(path))
    try:
        if overwrite:
            try:  # the replaced file's permissions are kept (a 0600 model stays private)
                os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
            except FileNotFoundError:
                pass
            os.replace(tmp, target)
            return
        try:
            os.link(tmp, target)
        except FileExistsError:
            raise FileExistsError(
                f"{path} exists; pass overwrite=True (CLI: --force) to replace it.") from None
        except OSError:  # no hard links here (some network or FAT file systems)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            os.close(fd)
            os.replace(tmp, target)
    except PermissionError:
        raise PermissionError(f"cannot write {path}: permission denied.") from None
    except FileExistsError:
        raise
    except OSError as exc:
        raise OSError(f"cannot write {path}: {exc.strerror or exc}.") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def atomic_write_text(path: StrPath, text: str, *, overwrite: bool = False) -> None:
    """Write ``text`` to ``path`` all at once: a reader (or a Ctrl-C) never sees half a file.

    The text goes to a hidden temporary file next to ``path``, which then
    replaces it (``overwrite``) or is hard-linked to it (not ``overwrite``: if
    another writer created ``path`` meanwhile this one fails, so exactly one of
    concurrent writers succeeds); the temporary file is removed on any error
    or interruption, and errors name ``path``, not the temporary file.
    A symbolic link is followed (its target is replaced; the link stays); a
    FIFO or a device is written through, never replaced by a regular file.

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is false.
    IsADirectoryError
        ``path`` is a directory (even with ``overwrite``).
    PermissionError, OSError
        The folder is missing or not writable (naming ``path``).
    """
    fh, tmp = open_for_write(path, overwrite=overwrite)
    try:
        try:
            fh.write(text)
        except OSError as exc:
            raise OSError(f"cannot write {path}: {exc.strerror or exc}.") from None
        finish_write(fh, tmp, path, overwrite=overwrite)
    finally:  # also on KeyboardInterrupt: no half-written output left behind
        fh.close()
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


class LinearModel:
    """A loaded model: scores ``X @ coef + intercept``; ``estimator()`` rebuilds the class.

    Made by :func:`load_model`, which reads and parses the file.

    Parameters
    ----------
    doc : dict
        The parsed JSON document of a model file (the fields of
        :func:`save_model`); checked against the schema here (ValueError
        naming ``path`` and the field).
    path : str or Path
        The file ``doc`` was read from; named in error messages and warnings.

    Attributes
    ----------
    doc : dict
        ``doc`` as given.
    path : str or Path
        ``path`` as given.
    coef : ndarray of shape (n_features,)
        The weights, float64.
    intercept : float
        Added to every score (0.0 when the file has none).
    n_features : int
        The number of features the model was trained on.
    feature_names : ndarray of str of shape (n_features,) or None
        The column names the model was fitted with (a pandas DataFrame), as the
        estimator's ``feature_names_in_``; None when it was fitted without
        names (or the file predates the field).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from birank import BBR
    >>> from birank.model_io import load_model, save_model
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [0.0, 0.0]])
    >>> est = BBR().fit(X, [1, 0, 1, 0])
    >>> model = load_model(save_model(est, os.path.join(tempfile.mkdtemp(), "bbr.json")))
    >>> model.n_features, type(model.estimator()).__name__
    (2, 'BBR')
    >>> bool(np.allclose(model.decision_function(X), est.decision_function(X)))
    True
    """

    def __init__(self, doc: dict[str, Any], path: StrPath) -> None:
        _check_doc(doc, path)
        self.doc, self.path = doc, path
        self.coef = np.asarray(doc["coef"], dtype=np.float64)
        self.intercept = float(doc.get("intercept", 0.0))
        self.n_features = int(doc["n_features"])
        names = doc.get("feature_names")
        self.feature_names = None if names is None else np.asarray(names, dtype=object)

    def decision_function(self, X: MatrixLike) -> FloatArray:
        """Scores ``X @ coef + intercept`` of the rows of X.

        X is a 2-D array of numbers or a scipy sparse matrix with ``n_features``
        columns; a sparse X may have fewer (a LIBSVM file whose last features are
        all zero), a dense one may not. NaN, infinity and other shapes are refused,
        naming the problem (scikit-learn is not imported to check them).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Nested lists and other array-likes are converted with ``np.asarray``.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            The float64 scores; higher means ranked higher. The same as the saved
            estimator's ``decision_function(X)``.

        Raises
        ------
        ValueError
            X is not numeric, not 2-D, holds NaN or infinity, or has another
            number of features (naming the model file); or, for a model with
            ``feature_names``, X is a DataFrame whose column names differ from
            them (other names, or another order: scikit-learn's rule, and its
            message). Given without names (an array) such a model warns, as a
            scikit-learn estimator does, and scores the columns by position.
        """
        import scipy.sparse as sp

        self._check_feature_names(X)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            if X.dtype.kind not in "biuf":
                raise ValueError(f"X must hold numbers; got dtype {X.dtype}.")
            values = X.data
        else:
            X = np.asarray(X)
            if X.dtype.kind not in "biuf":
                try:
                    X = X.astype(np.float64)
                except (TypeError, ValueError):
                    raise ValueError(f"X must hold numbers; got dtype {X.dtype}.") from None
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D (rows, features); got shape {X.shape}.")
            # row-major, as the estimators score it (a DataFrame's column-major array gave
            # scores a rounding away from the estimator's)
            X = values = np.ascontiguousarray(X)
        if values.dtype.kind == "f" and not np.isfinite(values).all():
            raise ValueError("X contains NaN or infinite values.")
        width = X.shape[1]
        if width > self.n_features or (width < self.n_features and not sp.issparse(X)):
            raise ValueError(f"X has {width} features, but the model in {self.path} was "
                             f"trained on {self.n_features}.")
        if width < self.n_features:  # a LIBSVM file whose last features are all zero
            X.resize((X.shape[0], self.n_features))
        return np.asarray(X @ self.coef, dtype=np.float64).reshape(-1) + self.intercept

    def _check_feature_names(self, X):
        """scikit-learn's feature-name rule (``validate_data``), without importing it.

        Names are X's string column names (``X.columns``: pandas and the like); a
        model with ``feature_names`` refuses other names or another order, and warns
        for X without names. A model without them takes any X.
        """
        fitted = self.feature_names
        columns = getattr(X, "columns", None)
        given = None
        if columns is not None:
            given = np.asarray(columns, dtype=object)
            kinds = {isinstance(v, str) for v in given}
            if kinds == {True, False}:
                raise TypeError("Feature names are only supported if all input features have "
                                "string names, but your input has "
                                f"{sorted({type(v).__name__ for v in given})} as feature "
                                "name / column name types. Convert them all to strings "
                                "(e.g. X.columns = X.columns.astype(str)).")
            if kinds != {True}:
                given = None  # integer column labels: no names (as scikit-learn)
        if fitted is None:
            return
        if given is None:
            import warnings

            warnings.warn(f"X does not have valid feature names, but the model in {self.path} "
                          "was fitted with feature names; its columns are taken in the order "
                          f"of fit: {', '.join(fitted[:5].tolist())}"
                          f"{', ...' if len(fitted) > 5 else ''}.", UserWarning, stacklevel=3)
            return
        if len(given) == len(fitted) and (given == fitted).all():
            return
        seen, now = set(fitted.tolist()), set(given.tolist())
        unexpected = [v for v in given.tolist() if v not in seen]
        missing = [v for v in fitted.tolist() if v not in now]
        lines = ["The feature names should match those that were passed during fit "
                 f"(the model in {self.path})."]
        for title, names in (("Feature names unseen at fit time:", unexpected),
                             ("Feature names seen at fit time, yet now missing:", missing)):
            if names:
                lines += [title] + [f"- {v}" for v in names[:5]]
                if len(names) > 5:
                    lines.append("- ...")
        if not unexpected and not missing:
            lines.append("Feature names must be in the same order as they were in fit "
                         f"({', '.join(fitted[:5].tolist())}{', ...' if len(fitted) > 5 else ''}"
                         "); reorder the columns, e.g. X[model.feature_names].")
        raise ValueError("\n".join(lines))

    def estimator(self) -> BaseEstimator:
        """The fitted estimator object, rebuilt from the file.

        The parameters are checked against the class here (scoring needs no
        class, so ``load_model`` imports none): names it has, values its own
        validation accepts; ValueError naming the file and the field.

        Returns
        -------
        estimator : estimator
            A new instance of the saved class with the saved parameters and the
            fitted attributes ``coef_``, ``intercept_``, ``n_features_in_`` and,
            when saved, ``feature_names_in_``, ``classes_`` and ``probability_``:
            it scores, predicts
            and (two-class models) gives probabilities like the saved one.
            Parameters JSON could not hold take their defaults (a UserWarning
            names them).
        """
        est = _checked_params(self.doc, self.path)
        unsaved = self.doc.get("unsaved_params")
        if unsaved:
            import warnings

            warnings.warn(f"{self.path}: {', '.join(unsaved)} could not be saved as JSON; the "
                          f"rebuilt {type(est).__name__} has the default value of "
                          f"{'each' if len(unsaved) > 1 else 'it'} (the scores are those saved, "
                          "but a refit may differ).", UserWarning, stacklevel=2)
        est.coef_ = self.coef.copy()
        est.intercept_ = self.intercept
        est.n_features_in_ = self.n_features
        if self.feature_names is not None:  # (scikit-learn's check then guards the columns)
            est.feature_names_in_ = self.feature_names.copy()
        if "classes" in self.doc:
            est.classes_ = np.asarray(self.doc["classes"])
        if "probability" in self.doc:
            est.probability_ = np.asarray(self.doc["probability"], dtype=np.float64)
        return est


def load_model(path: StrPath) -> LinearModel:
    """Read a model written by :func:`save_model`.

    The file is checked against the schema before anything is built from it:
    every field, each with one error naming the file and the field. ``format``
    is this module's tag; ``estimator`` is a registered estimator (its public
    name, or the ``"module:Class"`` older files wrote; nothing else is ever
    imported, see :func:`birank._registry.estimator_class`); ``params`` hold
    scalars (and a ``kernel`` other than ``'linear'`` is refused: a kernel
    model has no coefficient vector); ``n_features`` an int in [0, 2**31 - 1];
    ``coef`` that many finite float64 numbers; ``intercept`` a finite float64
    number; ``classes`` two different labels (numbers, strings or the two
    booleans); ``feature_names`` (optional, written for an estimator fitted on a
    DataFrame) ``n_features`` strings; ``unsaved_params`` the names of parameters
    JSON could not hold (``estimator()`` warns that they take their defaults); ``extra`` an object. Unknown
    fields, invalid JSON and JSON nested too deeply are refused.
    :meth:`LinearModel.estimator` then checks the parameters against the class
    (names it has, values its validation accepts: a non-numeric ``C`` is
    refused). Loading and scoring import no estimator (and so neither
    scikit-learn nor numba).

    Parameters
    ----------
    path : str or Path
        A model file written by :func:`save_model`.

    Returns
    -------
    model : LinearModel
        The checked model: ``model.decision_function(X)`` scores new data and
        ``model.estimator()`` rebuilds the fitted estimator.

    Raises
    ------
    ValueError
        If the file is not a birank model or is corrupted (naming the file and
        the field).
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
    except RecursionError:
        raise ValueError(f"{path}: not a birank model file (JSON nested too deeply).") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a birank model file (expected format {FORMAT!r}).")
    for key in ("coef", "n_features", "estimator"):
        if key not in doc:
            raise ValueError(f"{path}: model file lacks {key!r}.")
    return LinearModel(doc, path)


#: every top-level field of a model file
FIELDS = ("format", "estimator", "params", "n_features", "coef", "intercept", "classes",
          "probability", "feature_names", "unsaved_params", "extra")
#: a bound on n_features (a dense coefficient vector of 2**31 float64 is 16 GB)
MAX_FEATURES = 2**31 - 1


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _as_float(v, path, field):
    """A JSON number as a finite float64; ValueError naming the field otherwise."""
    if not _is_number(v):
        raise ValueError(f"{path}: {field} must be a number; got {v!r:.40}.")
    try:
        f = float(v)  # a JSON integer beyond float64 (10**400) overflows here
    except OverflowError:
        f = math.inf
    if not math.isfinite(f):
        raise ValueError(f"{path}: {field} is not a finite float64 number (NaN, inf or "
                         "out of range): the model diverged or the file is corrupted.")
    return f


def _check_doc(doc, path):
    """The schema of a parsed model document (no import); ValueError naming the file and
    the field."""
    unknown = sorted(set(doc) - set(FIELDS))
    if unknown:
        raise ValueError(f"{path}: unknown field {unknown[0]!r} (a model file has "
                         f"{', '.join(FIELDS)}).")
    n = doc["n_features"]
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_FEATURES:
        raise ValueError(f"{path}: n_features must be an integer in [0, {MAX_FEATURES}]; got "
                         f"{n!r:.40}.")
    coef = doc["coef"]
    if not isinstance(coef, list):
        raise ValueError(f"{path}: coef must be a list of numbers.")
    if len(coef) != n:
        raise ValueError(f"{path}: coef has {len(coef)} values but n_features is {n}.")
    for i, v in enumerate(coef):
        _as_float(v, path, f"coef[{i}]")
    _as_float(doc.get("intercept", 0.0), path, "intercept")
    name = doc["estimator"]
    if not isinstance(name, str):
        raise ValueError(f"{path}: estimator must be a registered estimator name; got "
                         f"{name!r:.40}.")
    # only birank's own registered estimators: a model file is data, and must not be
    # able to make us import (and so run) a module it names
    if _registered_name(name) is None:
        try:
            estimator_class(name)  # (raises: the registry's message)
        except ValueError as exc:
            raise ValueError(f"{path}: estimator: {exc} Refusing to load it.") from None
    params = doc.get("params", {})
    if not isinstance(params, dict):
        raise ValueError(f"{path}: params must be a JSON object.")
    for key, value in params.items():
        if not isinstance(value, (int, float, str, bool, type(None))):
            raise ValueError(f"{path}: params.{key} must be a number, a string, a boolean or "
                             f"null; got {type(value).__name__}.")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            _as_float(value, path, f"params.{key}")
    if params.get("kernel", "linear") != "linear":
        raise ValueError(f"{path}: params.kernel is {params['kernel']!r}; a model file holds a "
                         "linear model (coef), and a kernel model cannot be rebuilt from it.")
    if "classes" in doc:
        classes = doc["classes"]
        # two numbers, two strings or the booleans (a model fitted on y > 0)
        if not isinstance(classes, list) or len(classes) != 2 or not (
                all(_is_number(c) or isinstance(c, str) for c in classes)
                or all(isinstance(c, bool) for c in classes)):
            raise ValueError(f"{path}: classes must be a list of two labels; got "
                             f"{classes!r:.60}.")
        for i, c in enumerate(classes):
            if _is_number(c):
                _as_float(c, path, f"classes[{i}]")
        if classes[0] == classes[1]:
            raise ValueError(f"{path}: classes must be two different labels; got {classes!r}.")
    if "probability" in doc:  # predict_proba's slopes (a_neg, a_pos): two numbers >= 0
        prob = doc["probability"]
        if "classes" not in doc or not isinstance(prob, list) or len(prob) != 2:
            raise ValueError(f"{path}: probability must be a list of two slopes, with classes; "
                             f"got {prob!r:.60}.")
        for i, v in enumerate(prob):
            if _as_float(v, path, f"probability[{i}]") < 0:
                raise ValueError(f"{path}: probability[{i}] is negative ({v!r}): a slope is "
                                 ">= 0 (the probability never decreases with the score).")
    if "feature_names" in doc:  # (optional: files of estimators fitted on arrays, and older
        names = doc["feature_names"]  # files, have none)
        if not isinstance(names, list) or len(names) != n or not all(
                isinstance(v, str) for v in names):
            raise ValueError(f"{path}: feature_names must be a list of {n} strings (one per "
                             f"feature); got {names!r:.60}.")
    if not isinstance(doc.get("extra", {}), dict):
        raise ValueError(f"{path}: extra must be a JSON object.")
    unsaved = doc.get("unsaved_params", [])
    if not isinstance(unsaved, list) or not all(isinstance(k, str) for k in unsaved):
        raise ValueError(f"{path}: unsaved_params must be a list of parameter names.")


def _checked_params(doc, path):
    """The registered estimator built from ``params``, each checked against the class."""
    from ._validation import validate_params

    cls = estimator_class(doc["estimator"])
    params = renamed_params(cls.__name__, doc.get("params", {}), path)
    valid = cls().get_params()
    for key in params:
        if key not in valid:
            raise ValueError(f"{path}: params.{key} is not a parameter of {cls.__name__}.")
    est = cls(**params)
    try:
        validate_params(est)
    except ValueError as exc:
        raise ValueError(f"{path}: params: {exc}") from None
    return est


#: parameters renamed for 1.0 (CHANGELOG.md): estimator -> old name -> new name.
#: Files written before the rename hold the old names; they load under the new ones.
RENAMED = {
    "CombinedRanking": {"n_iter": "max_iter"},
    "OPAUC": {"lam": "alpha", "eta": "eta0"},
    "PGD": {"lam": "alpha", "eta": "eta0"},
    "AdaOAM": {"reg": "alpha", "learning_rate": "eta0"},
    "SPAM": {"eta": "eta0"},  # beta, beta1: see renamed_params
    "OnlineUniExp": {"eta": "eta0"},
    "CBR": {"eta": "confidence"},
    "ActiveRankLearner": {"lam": "above_threshold_weight"},
}


def renamed_params(name: str, params: Mapping[str, Any], path: StrPath) -> dict[str, Any]:
    """``params`` of a file with every pre-1.0 name (:data:`RENAMED`) under its new name.

    SPAM's ``beta`` (L2) and ``beta1`` (L1, with ``penalty="elasticnet"``) become
    ``alpha = beta + beta1`` and ``l1_ratio = beta1 / alpha`` (scikit-learn's
    elastic net: ``alpha l1_ratio |w|_1 + alpha (1 - l1_ratio) / 2 |w|^2``);
    with ``penalty="l2"``, ``alpha = beta`` and ``beta1`` was unused. A file
    holding both an old name and its new one is refused (naming the field).
    """
    out = dict(params)
    old = dict(RENAMED.get(name, {}))
    if name == "SPAM" and ("beta" in out or "beta1" in out):
        if "alpha" in out or "l1_ratio" in out:
            raise ValueError(f"{path}: params has both SPAM's old beta/beta1 and alpha/l1_ratio.")
        beta, beta1 = out.pop("beta", 1e-4), out.pop("beta1", 1e-4)  # the old defaults
        for key, v in (("beta", beta), ("beta1", beta1)):
            if not _is_number(v):
                raise ValueError(f"{path}: params.{key} must be a number; got {v!r:.40}.")
        if out.get("penalty", "l2") == "elasticnet":
            out["alpha"] = beta + beta1
            if out["alpha"] > 0:
                out["l1_ratio"] = beta1 / out["alpha"]
        else:
            out["alpha"] = beta
    for key, new in old.items():
        if key in out:
            if new in out:
                raise ValueError(f"{path}: params.{key} (the old name of {new}) and "
                                 f"params.{new} are both given.")
            out[new] = out.pop(key)
    return out
