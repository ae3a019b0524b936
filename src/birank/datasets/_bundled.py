"""Small real datasets shipped inside the package (xz-compressed LIBSVM text).

Origins and licenses: ``birank/datasets/data/SOURCE.md``.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING, overload

from ._svmlight import load_svmlight_bytes

if TYPE_CHECKING:
    from typing import Any, Literal

    from scipy.sparse import csr_matrix

    from .._typing import FloatArray, IntArray

__all__ = [
    "BUNDLED",
    "load_bundled",
    "load_heart",
    "load_german_numer",
    "load_ionosphere",
    "load_housing",
    "load_diabetes",
    "load_w1a",
    "load_a9a",
    "load_tfranking_toy",
]

# name -> (file in data/, n_features, rows, label kind, description)
BUNDLED = {
    "heart": ("heart_scale.xz", 13, 270, "binary -1/+1", "Statlog heart, scaled"),
    "german.numer": ("german.numer.xz", 24, 1000, "binary -1/+1", "Statlog German credit, numeric"),
    "ionosphere": ("ionosphere_scale.xz", 34, 351, "binary -1/+1", "UCI ionosphere, scaled"),
    "housing": ("housing_scale.xz", 13, 506, "real 5..50", "Boston housing, scaled; MEDV target"),
    "diabetes": ("diabetes.xz", 8, 768, "binary -1/+1", "Pima Indians diabetes, unscaled"),
    "w1a": ("w1a.xz", 300, 2477, "binary -1/+1", "Platt web pages, sparse binary features"),
    "a9a": ("a9a.xz", 123, 32561, "binary -1/+1", "UCI Adult (Platt), training file"),
    "a9a.t": ("a9a.t.xz", 123, 16281, "binary -1/+1", "UCI Adult (Platt), test file"),
    "tfranking_toy": ("tfranking_toy_train.txt.xz", 136, 119, "graded 0..2 + qid",
                      "TF-Ranking toy LETOR train.txt"),
}


def _read(filename: str) -> bytes:
    return (resources.files("birank.datasets") / "data" / filename).read_bytes()


@overload
def load_bundled(name: Literal["tfranking_toy"]) -> tuple[csr_matrix, FloatArray, IntArray]: ...


@overload
def load_bundled(name: Literal["heart", "german.numer", "ionosphere", "housing", "diabetes",
                               "w1a", "a9a", "a9a.t"]) -> tuple[csr_matrix, FloatArray]: ...


@overload
def load_bundled(name: str) -> (tuple[csr_matrix, FloatArray]
                                | tuple[csr_matrix, FloatArray, IntArray]): ...


def load_bundled(name: str) -> (tuple[csr_matrix, FloatArray]
                                 | tuple[csr_matrix, FloatArray, IntArray]):
    """Load a bundled dataset by name (see :data:`BUNDLED`).

    Parameters
    ----------
    name : str
        A key of :data:`BUNDLED` (``"heart"``, ``"a9a.t"``, ``"tfranking_toy"``, ...);
        any other name raises ValueError listing them.

    Returns
    -------
    X : csr_matrix of shape (n_samples, n_features)
        The features (``BUNDLED[name][1]`` columns).
    y : ndarray of float64, shape (n_samples,)
        The labels as the file has them (``BUNDLED[name][3]``).
    groups : ndarray of int64, shape (n_samples,)
        The query ids; only for ``"tfranking_toy"``, the one bundled file with them
        (for the others the result is ``(X, y)``).

    Examples
    --------
    >>> from birank.datasets import BUNDLED, load_bundled
    >>> X, y = load_bundled("heart")
    >>> X.shape == (BUNDLED["heart"][2], BUNDLED["heart"][1])
    True
    >>> X, y, groups = load_bundled("tfranking_toy")
    >>> X.shape, groups.shape
    ((119, 136), (119,))
    """
    X, y, qid = _load(name)
    if name == "tfranking_toy":
        return X, y, qid
    return X, y


def _xy(name: str) -> tuple[csr_matrix, FloatArray]:
    X, y, _ = _load(name)
    return X, y


def _load(name: str) -> tuple[csr_matrix, FloatArray, Any]:  # qid: None for files without
    if name not in BUNDLED:
        raise ValueError(
            f"unknown bundled dataset {name!r}; choose one of {', '.join(sorted(BUNDLED))}."
        )
    filename, n_features = BUNDLED[name][:2]
    dup: Literal["last", "error"] = "last" if name == "tfranking_toy" else "error"
    return load_svmlight_bytes(
        _read(filename), name=f"birank/datasets/data/{filename}", n_features=n_features,
        duplicates=dup,
    )


def load_heart() -> tuple[csr_matrix, FloatArray]:
    """Statlog heart (LIBSVM ``heart_scale``): 270 rows, 13 features, labels -1/+1.

    Returns
    -------
    X : csr_matrix of shape (270, 13)
    y : ndarray of float64 (-1: 150, +1: 120)

    Examples
    --------
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> X.shape, int((y == 1).sum())
    ((270, 13), 120)
    """
    return _xy("heart")


def load_german_numer() -> tuple[csr_matrix, FloatArray]:
    """Statlog German credit, numeric (LIBSVM ``german.numer``, unscaled): 1000 x 24, -1/+1.

    Returns
    -------
    X : csr_matrix of shape (1000, 24)
    y : ndarray of float64 (-1: 300, +1: 700)

    Examples
    --------
    >>> from birank.datasets import load_german_numer
    >>> X, y = load_german_numer()
    >>> X.shape, int((y == 1).sum())
    ((1000, 24), 700)
    """
    return _xy("german.numer")


def load_ionosphere() -> tuple[csr_matrix, FloatArray]:
    """UCI ionosphere (LIBSVM ``ionosphere_scale``): 351 x 34, labels -1/+1 (225 are +1).

    Returns
    -------
    X : csr_matrix of shape (351, 34)
    y : ndarray of float64 (-1: 126, +1: 225)

    Examples
    --------
    >>> from birank.datasets import load_ionosphere
    >>> load_ionosphere()[0].shape
    (351, 34)
    """
    return _xy("ionosphere")


def load_housing() -> tuple[csr_matrix, FloatArray]:
    """Boston housing (LIBSVM ``housing_scale``): 506 x 13, real-valued target 5..50.

    Returns
    -------
    X : csr_matrix of shape (506, 13)
    y : ndarray of float64
        The median home value (MEDV, in $1000s), from 5.0 to 50.0.

    Examples
    --------
    >>> from birank.datasets import load_housing
    >>> X, y = load_housing()
    >>> X.shape, float(y.min()), float(y.max())
    ((506, 13), 5.0, 50.0)
    """
    return _xy("housing")


def load_diabetes() -> tuple[csr_matrix, FloatArray]:
    """Pima Indians diabetes (LIBSVM ``diabetes``, unscaled): 768 x 8, -1 (268) / +1 (500).

    Returns
    -------
    X : csr_matrix of shape (768, 8)
    y : ndarray of float64 (-1: 268, +1: 500)

    Examples
    --------
    >>> from birank.datasets import load_diabetes
    >>> load_diabetes()[0].shape
    (768, 8)
    """
    return _xy("diabetes")


def load_w1a() -> tuple[csr_matrix, FloatArray]:
    """LIBSVM ``w1a`` (Platt web pages): 2477 x 300 sparse binary features, 72 positives.

    Returns
    -------
    X : csr_matrix of shape (2477, 300)
        0/1 features.
    y : ndarray of float64 (-1: 2405, +1: 72)

    Examples
    --------
    >>> from birank.datasets import load_w1a
    >>> X, y = load_w1a()
    >>> X.shape, int((y == 1).sum())
    ((2477, 300), 72)
    """
    return _xy("w1a")


def load_a9a(*, subset: Literal["train", "test"] = "train") -> tuple[csr_matrix, FloatArray]:
    """LIBSVM ``a9a`` (UCI Adult, Platt's binarised features), 123 features, labels -1/+1.

    Parameters
    ----------
    subset : {"train", "test"}, default="train"
        ``"train"`` is ``a9a`` (32561 rows), ``"test"`` is ``a9a.t`` (16281 rows);
        both have 123 columns.

    Returns
    -------
    X : csr_matrix of shape (32561, 123) or (16281, 123)
        0/1 features.
    y : ndarray of float64, labels -1/+1 (+1: 7841 in ``"train"``)

    Examples
    --------
    >>> from birank.datasets import load_a9a
    >>> X, y = load_a9a()
    >>> X.shape, int((y == 1).sum())
    ((32561, 123), 7841)
    >>> load_a9a(subset="test")[0].shape
    (16281, 123)
    """
    if subset not in ("train", "test"):
        raise ValueError(f"subset must be 'train' or 'test'; got {subset!r}.")
    return _xy("a9a" if subset == "train" else "a9a.t")


def load_tfranking_toy() -> tuple[csr_matrix, FloatArray, IntArray]:
    """TF-Ranking toy LETOR data (``train.txt``): 119 rows, 27 queries, grades 0..2.

    The file repeats a feature index within some rows; the last value wins
    (as in TF-Ranking's own parser, which fills a dict).

    Returns
    -------
    X : csr_matrix of shape (119, 136)
    y : ndarray of float64, grades 0, 1, 2
    groups : ndarray of int64, the ``qid`` of each row

    Examples
    --------
    >>> import numpy as np
    >>> from birank.datasets import load_tfranking_toy
    >>> X, y, groups = load_tfranking_toy()
    >>> X.shape, len(np.unique(groups))
    ((119, 136), 27)
    """
    return _load("tfranking_toy")

