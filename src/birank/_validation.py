"""Input and parameter validation shared by every public estimator and function.

Validation happens once, at the public boundary; kernels receive contiguous
float64 or float32 data and int32/int64 indices and trust them. float32 input
stays float32 (no copy of X at url scale); everything else becomes float64.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, overload

import numpy as np
import scipy.sparse as sp

from ._memory import check_feature_memory

if TYPE_CHECKING:
    from typing import Any

    from ._typing import ArrayLike, FloatArray, Matrix, MatrixLike, NDArray

__all__ = [
    "check_sample_weight",
    "check_groups",
    "group_codes",
    "codes_of",
    "check_eval_set",
    "check_graded_labels",
    "check_values",
    "kernel_rows",
    "Interval",
    "Options",
    "validate_params",
    "check_random_state",
    "check_X",
    "check_X_y",
    "encode_binary",
    "as_csr_or_dense",
    "draw_seed",
    "check_n_jobs",
]


def _finite(value):
    """A real number that is finite as a float64 (an int beyond it is not)."""
    try:
        return bool(np.isfinite(float(value)))
    except OverflowError:
        return False


class Interval:
    """A numeric parameter constraint ``low <op> value <op> high``.

    Parameters
    ----------
    kind : {"real", "integer"}
    low, high : float or None
        Bounds; None means unbounded.
    closed : {"both", "left", "right", "neither"}
    """

    def __init__(self, kind, low=None, high=None, closed="both"):
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def accepts(self, value):
        if isinstance(value, bool):
            return False
        if self.kind == "integer":
            # (a Python int may exceed int64, which the kernels take, and np.isfinite)
            if not isinstance(value, numbers.Integral) or not -2**63 <= value < 2**63:
                return False
        elif not isinstance(value, numbers.Real) or not _finite(value):
            return False
        lo_ok = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low
        )
        hi_ok = self.high is None or (
            value <= self.high if self.closed in ("both", "right") else value < self.high
        )
        return lo_ok and hi_ok

    def __str__(self):
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        lo = "-inf" if self.low is None else self.low
        hi = "inf" if self.high is None else self.high
        return f"{'an int' if self.kind == 'integer' else 'a float'} in {left}{lo}, {hi}{right}"


class NonzeroInteger:
    """A parameter constraint: an int other than 0 (``n_jobs``: -1 is every core, 0 means
    nothing)."""

    def accepts(self, value):
        return isinstance(value, numbers.Integral) and not isinstance(value, bool) \
            and value != 0

    def __str__(self):
        return "a nonzero int (-1: all cores)"


class Options:
    """A parameter constraint: one of a fixed set of values."""

    def __init__(self, *values):
        self.values = values

    def accepts(self, value):
        return any(value is v or (type(value) is type(v) and value == v) for v in self.values)

    def __str__(self):
        return "one of " + ", ".join(repr(v) for v in self.values)


def _accepts(constraint, value):
    if constraint is None:
        return value is None
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "random_state":  # (an int seeds numpy's PCG64: non-negative, no bool)
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
            return value >= 0
        return value is None or isinstance(value, (np.random.Generator, np.random.RandomState))
    if constraint == "array-like":
        return value is not None and not isinstance(value, str)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return constraint.accepts(value)


def _describe(constraint):
    if constraint is None:
        return "None"
    if constraint == "random_state":
        return "None, an int >= 0, a numpy Generator or a RandomState"
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__}"
    return str(constraint)


def validate_params(estimator):
    """Check ``estimator.get_params()`` against ``estimator._parameter_constraints``.

    Raises
    ------
    ValueError
        Naming the parameter, what is allowed, and the value received.
    """
    constraints = getattr(estimator, "_parameter_constraints", {})
    params = estimator.get_params(deep=False)
    for name, allowed in constraints.items():
        value = params[name]
        if not any(_accepts(c, value) for c in allowed):
            raise ValueError(
                f"{type(estimator).__name__}: parameter {name!r} must be "
                f"{' or '.join(_describe(c) for c in allowed)}; got {value!r}."
            )


def check_random_state(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    An int seeds a fresh PCG64 generator, so the same int always gives the same
    stream; a Generator is used as is; a legacy RandomState is converted by
    drawing a seed from it.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if (isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
            and random_state >= 0):
        return np.random.default_rng(int(random_state))
    raise ValueError(
        f"random_state must be None, an int >= 0, a numpy Generator or a RandomState; got "
        f"{random_state!r}."
    )


def check_n_jobs(n_jobs):
    """Refuse an ``n_jobs`` that is not None or a nonzero int (scikit-learn's meaning:
    -1 is every core), whatever the size of the work (small inputs run on one thread
    but take the same values)."""
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(
            n_jobs, numbers.Integral) or n_jobs == 0):
        raise ValueError(f"n_jobs must be None or a nonzero int (-1: all cores); "
                         f"got {n_jobs!r}.")


def draw_seed(rng):
    """An explicit int64 seed for a numba kernel, drawn from ``rng``."""
    return int(rng.integers(0, 2**62))


#: the data types X keeps; others are converted to the first one
FLOAT_DTYPES = (np.float64, np.float32)


def _float_dtype(X):
    return X.dtype if X.dtype in FLOAT_DTYPES else np.float64


def as_csr_or_dense(X):
    """Canonical kernel layout: C-contiguous ndarray or canonical CSR, float64 or float32.

    Canonical CSR has sorted column indices and no duplicate entries (duplicates
    are summed, as scipy's own arithmetic does).

    A float32 X stays float32 (the kernels read it and accumulate in float64);
    a canonical X comes back as is, without a copy.
    """
    if sp.issparse(X):
        dtype = _float_dtype(X)
        if not (isinstance(X, sp.csr_matrix) and X.dtype == dtype):
            X = sp.csr_matrix(X, dtype=dtype)
        # canonical = sorted indices and no duplicate (row, column) entries. scipy
        # sums duplicates in every operation, the kernels would read them as
        # separate features: sum them here, once. A canonical X comes back as the
        # same object (scipy caches the flag on it; a new wrapper would scan again).
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        return X
    return np.ascontiguousarray(X, dtype=_float_dtype(np.asarray(X)))


#: largest |entry| of X a fit accepts: the solvers sum products of up to four
#: entries (squared norms of pair rows, curvature terms |z|^2 |z|^2, moments) over
#: many rows, which stay far below float64's 1.8e308 at this bound (1e300 gave
#: all-zero or NaN models; 1e90 already overflowed inside ActiveRankSVM)
SCALE_MAX = 1e50
#: the same for float32 X, which the solvers keep as given (no float64 copy): its
#: squares (the preconditioner's X^2, products of two entries) overflow float32 beyond
#: about 1.8e19; 1e18 leaves a margin (float32 fits matched float64 up to 1e18)
SCALE_MAX_FLOAT32 = 1e18
#: below this largest |entry| products of four entries reach the subnormal range
#: (1e-310 gave constant scores everywhere): a fit warns
SCALE_MIN = 1e-50


def check_y01(y01: ArrayLike, name: str = "y01") -> NDArray[np.bool_]:
    """Labels in {0, 1} (or booleans), a 1-D array or a column, as a 1-D bool array.

    Other values are refused, naming one (``{-1, 1}`` read as "not 0" would make
    every row positive), as are other shapes.
    """
    y = np.asarray(y01)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {y.shape}.")
    if y.dtype == bool:
        return y
    if y.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold 0 and 1 (or booleans); got dtype {y.dtype}.")
    odd = (y != 0) & (y != 1)
    if odd.any():
        raise ValueError(f"{name} must hold 0 and 1 (or booleans); got {y[odd][0].item()!r}: "
                         "map the positive class to 1 and the other to 0 (e.g. y == 1).")
    return y != 0


def _values_of(X):
    """X's stored values as one 1-D array, without a copy of a canonical X."""
    if sp.issparse(X):
        return X.data
    return np.ascontiguousarray(X).reshape(-1)


def check_values(estimator, X, *, scale):
    """Refuse NaN or infinite values in X and, with ``scale`` (a fit's X), values too
    large for the solvers; warn when they are so small that products underflow.

    One pass over the stored values (:func:`birank._parallel.scan_values`, on the
    estimator's ``n_jobs`` threads for a large X) where numpy's checks take three
    (``isfinite``, ``max``, ``min``: 33 ms at 2e7 values). The errors read as
    scikit-learn's own for X (``Input X contains NaN`` / ``infinity``).
    """
    from ._parallel import resolve_n_jobs, scan_values  # (lazy: the kernels import numba)

    data = _values_of(X)
    if data.size == 0:
        return
    name = type(estimator).__name__
    n_jobs = getattr(estimator, "n_jobs", None)  # (unchecked yet in some methods: else None)
    n_jobs = n_jobs if NonzeroInteger().accepts(n_jobs) else None
    finite, top = scan_values(data, resolve_n_jobs(n_jobs))
    if not finite:
        if bool(np.isnan(data).any()):
            raise ValueError(
                f"Input X contains NaN. {name} does not accept missing values encoded as "
                "NaN: impute them first (e.g. sklearn.impute.SimpleImputer) or drop the "
                "rows or columns that hold them.")
        raise ValueError(f"Input X contains infinity or a value too large for "
                         f"{data.dtype!r}.")
    if not scale:
        return
    if data.dtype == np.float32 and top > SCALE_MAX_FLOAT32:
        raise ValueError(
            f"{name}: float32 X holds values up to {top:.8g} in magnitude; the solvers "
            f"square such entries in float32 (as X is kept), which overflows beyond "
            f"about 1.8e19. Pass X as float64 (limit {SCALE_MAX:g}) or scale the features "
            f"to |x| <= {SCALE_MAX_FLOAT32:g}.")
    if top > SCALE_MAX:
        raise ValueError(
            f"{name}: X holds values up to {top:.8g} in magnitude; products of such "
            f"entries overflow float64 in the solvers (up to four factors), so no model "
            f"can be fitted. Scale the features (e.g. sklearn.preprocessing.MaxAbsScaler "
            f"or StandardScaler) to |x| <= {SCALE_MAX:g}.")
    if 0.0 < top < SCALE_MIN:
        import warnings

        warnings.warn(
            f"{name}: the largest value in X is {top:.3g}; products of entries underflow "
            "float64 and the scores would be constant. Scale the features (e.g. "
            "sklearn.preprocessing.MaxAbsScaler or StandardScaler).", UserWarning, stacklevel=4)


def check_X(estimator: object, X: MatrixLike, *, reset: bool) -> Matrix:
    """Validate X for ``estimator`` (dense or CSR float64 or float32, finite, 2-D).

    With ``reset`` (a fit's X) its scale is checked too (:func:`check_values`).
    """
    from sklearn.utils.validation import validate_data  # lazy: `birank evaluate` needs no sklearn

    # (finiteness: check_values, in the same pass as the scale)
    X = validate_data(estimator, X, accept_sparse="csr", dtype=FLOAT_DTYPES, reset=reset,
                      ensure_all_finite=False)
    X = as_csr_or_dense(X)
    check_values(estimator, X, scale=reset)
    return X


def check_X_y(estimator: object, X: MatrixLike, y: ArrayLike, *, reset: bool = True,
              y_numeric: bool = False) -> tuple[Matrix, NDArray[Any]]:
    """Validate a fit's X and y together; y comes back as a 1-D array.

    X is canonical (:func:`as_csr_or_dense`), finite and its scale checked
    (:func:`check_values`), on every chunk of a chunked fit too.
    """
    from sklearn.utils.validation import validate_data  # lazy, as in check_X

    X, y = validate_data(
        estimator, X, y, accept_sparse="csr", dtype=FLOAT_DTYPES, reset=reset,
        y_numeric=y_numeric, ensure_all_finite=False,
    )
    X = as_csr_or_dense(X)
    check_values(estimator, X, scale=True)
    check_feature_memory(X.shape[1], f"{type(estimator).__name__}: X has ")  # before any w is allocated
    return X, np.asarray(y)


def check_graded_labels(estimator: object, y: ArrayLike) -> FloatArray:
    """Relevance labels of a graded ranker as finite float64 (bool and numbers only).

    Strings are refused even when there are two of them: their sorted order
    (alphabetical) need not be the relevance order ("high" < "low").
    """
    y = np.asarray(y).reshape(-1)
    name = type(estimator).__name__
    if y.dtype.kind == "O" and all(isinstance(v, numbers.Real) for v in y):
        y = y.astype(np.float64)  # numbers in an object array (pandas)
    if y.dtype.kind == "O":
        missing = [i for i, v in enumerate(y) if v is None]
        if missing:
            raise ValueError(f"{name}: y contains None (a missing label) at index "
                             f"{missing[0]}: every sample needs a relevance label.")
    if y.dtype.kind not in "biuf":
        # (scikit-learn's "Unknown label type" wording, which its checks look for)
        raise ValueError(
            f"Unknown label type for {name}: it ranks by numeric relevance labels (higher "
            f"ranks higher); got y of dtype {y.dtype} with values such as "
            f"{y[:3].tolist()!r}. Map the labels to numbers (e.g. {{'low': 0, 'high': 1}}).")
    y = y.astype(np.float64)
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name}: y contains NaN or infinity; relevance labels must be "
                         "finite.")
    return y


@overload
def check_groups(groups: None, n: int) -> None: ...


@overload
def check_groups(groups: ArrayLike, n: int) -> NDArray[Any]: ...


def check_groups(groups: ArrayLike | None, n: int) -> NDArray[Any] | None:
    """None, or ``groups`` as one finite query id per sample (a 1-D array of length n).

    Raises
    ------
    ValueError
        One message per problem: wrong shape, NaN or infinite ids, missing (None)
        ids, ids of types that do not compare.
    """
    if groups is None:
        return None
    g = _group_values(groups, n)
    if g.dtype.kind == "O":
        codes_of(g)  # the fits sort the ids: they must compare with each other
    return g


def _group_values(groups: ArrayLike, n: int) -> NDArray[Any]:
    """:func:`check_groups` without its comparability test (the sort that makes codes
    makes it)."""
    g = np.asarray(groups)
    if g.ndim != 1 or g.shape[0] != n:
        raise ValueError(f"groups must be a 1-D array of one query id per sample ({n}); got "
                         f"shape {g.shape}.")
    if g.dtype.kind == "f" and not np.all(np.isfinite(g)):
        raise ValueError("groups contains NaN or infinity: query ids must be finite.")
    if g.dtype.kind == "O":
        for i, v in enumerate(g):  # one pass (pandas: NaN ids are floats inside)
            if v is None:
                raise ValueError(f"groups contains None (a missing query id) at index {i}: "
                                 "every sample needs a query id.")
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError("groups contains NaN or infinity: query ids must be finite.")
    return g


def codes_of(ids: ArrayLike) -> NDArray[np.int64]:
    """Ids (query ids, or any comparable values) as int64 codes ``0 .. G-1`` in the ids'
    sorted order: equal ids, equal codes. Not validated (:func:`group_codes` is).

    Raises
    ------
    ValueError
        Ids of types that do not compare with each other.
    """
    g = np.asarray(ids).reshape(-1)
    if g.shape[0] and (g.dtype.kind in "ib" or (g.dtype.kind == "u" and g.dtype.itemsize < 8)):
        # integer ids over a range not much wider than the rows: which values occur,
        # numbered in order, with no sort (np.unique sorts: 0.13 s at 10^6 shuffled ids)
        lo, hi = int(g.min()), int(g.max())
        if hi - lo <= 4 * g.shape[0]:
            at = g.astype(np.int64) - lo
            seen = np.zeros(hi - lo + 1, dtype=np.int64)
            seen[at] = 1
            return np.cumsum(seen)[at] - 1
    try:
        codes = np.unique(g, return_inverse=True)[1]
    except TypeError:
        kinds = sorted({type(v).__name__ for v in g})
        raise ValueError(f"groups mixes query ids of types that do not compare "
                         f"({', '.join(kinds)}): use one type, e.g. all strings.") from None
    return np.ascontiguousarray(codes.reshape(-1), dtype=np.int64)


def group_codes(groups: ArrayLike | None, n: int) -> NDArray[np.int64]:
    """Validated query ids (:func:`check_groups`) as int64 codes ``0 .. G-1`` in the ids'
    sorted order, one sort in all; None: every row in group 0.

    Raises
    ------
    ValueError
        As :func:`check_groups`.
    """
    if groups is None:
        return np.zeros(n, dtype=np.int64)
    return codes_of(_group_values(groups, n))


def check_eval_set(estimator, eval_set):
    """``(X_val, y_val)`` validated against the fitted ``estimator`` (its features).

    Raises
    ------
    ValueError
        Not a pair, or rows and labels of different lengths.
    """
    name = type(estimator).__name__
    try:
        Xv, yv = eval_set
    except (TypeError, ValueError):
        raise ValueError(f"{name}: eval_set must be a pair (X_val, y_val); got "
                         f"{type(eval_set).__name__}.") from None
    Xv = check_X(estimator, Xv, reset=False)
    yv = np.asarray(yv).reshape(-1)
    if yv.shape[0] != Xv.shape[0]:
        raise ValueError(f"{name}: eval_set has {Xv.shape[0]} rows but {yv.shape[0]} labels.")
    return Xv, yv


def kernel_rows(X, *, sparse=False, indicator=False):
    """The rows argument of the kernels: the dense array, or ``(data, indices, indptr)``.

    X must be canonical (:func:`as_csr_or_dense`, as every ``check_X`` returns it),
    so nothing is copied. ``sparse=True``: kernels that read CSR only; a dense X is
    converted (canonical CSR). ``indicator=True``, for kernels whose row primitives
    take it (``_kernels.sparse_rows``): a CSR X whose stored values are all 1 is
    passed as ``(None, indices, indptr)``, and the values are never read.
    """
    if sparse and not sp.issparse(X):
        X = as_csr_or_dense(sp.csr_matrix(X))
    if sp.issparse(X):
        if indicator and X.nnz:
            from ._kernels.dual_cd import all_ones  # (no temporary; stops at a value != 1)

            if all_ones(X.data):
                return (None, X.indices, X.indptr)
        return (X.data, X.indices, X.indptr)
    return X


def as_written(value):
    """A numpy scalar as the Python value it holds (``1``, ``True``, ``'a'``) for a message,
    where its repr would read ``np.int64(1)``; anything else as it is."""
    return value.item() if isinstance(value, np.generic) else value


def encode_binary(y, *, name="y"):
    """Map two-valued labels to {0, 1}: the larger label is the positive class.

    Returns
    -------
    classes : ndarray of shape (2,)
    y01 : ndarray of int8, 1 where ``y == classes[1]``.

    Raises
    ------
    ValueError
        If y has one class or more than two.
    """
    from sklearn.utils.multiclass import type_of_target

    from ._kernels.labels import scannable, two_values  # (lazy: the metrics need no numba)

    y = np.asarray(y)
    if y.size and scannable(y):
        # one O(N) scan instead of sorting y twice (type_of_target, np.unique): at
        # 10^7 rows that is most of ActiveRankSVM's fit. Integer-valued floats
        # only, as type_of_target calls other floats continuous.
        k, v0, v1 = two_values(y)
        if k == 2 and (y.dtype.kind != "f" or (v0 == np.floor(v0) and v1 == np.floor(v1)
                                               and np.isfinite(v0) and np.isfinite(v1))):
            return np.array([v0, v1], dtype=y.dtype), (y == v1).astype(np.int8)
    kind = type_of_target(y, input_name=name)
    if kind not in ("binary", "multiclass"):
        # scikit-learn's wording, so callers and check_estimator recognise it
        raise ValueError(
            f"Unknown label type: {kind!r} for {name}. A bipartite ranker needs two "
            "classes; for graded or real-valued labels use RankSVM."
        )
    classes, y01 = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        if not len(classes):
            raise ValueError(f"{name} is empty.")
        raise ValueError(
            f"{name} has only one class ({as_written(classes[0])!r}); bipartite ranking "
            "needs samples of both classes, so there are no pairs to rank.")
    if len(classes) > 2 or kind not in ("binary",):
        raise ValueError(
            f"{name} must hold exactly two label values for bipartite ranking; got "
            f"{len(classes)} distinct values (target type {kind!r}). Only binary "
            "classification is supported; for graded or real-valued labels use RankSVM."
        )
    return classes, y01.astype(np.int8).reshape(-1)


def check_sample_weight(sample_weight, n, *, y=None, ones=False):
    """None, or ``sample_weight`` as n finite non-negative floats.

    The one rule (scikit-learn's): a scalar is broadcast to every sample, a 1-D
    array has one weight per sample, anything else (e.g. shape ``(n, 1)``) is
    refused. With ``y`` (the labels of a whole training set), the rows of
    positive weight must hold two different labels: a class whose every row
    has weight 0 leaves no pair to rank, and is refused rather than fitted as a
    constant model. ``ones``: return ``np.ones(n)`` instead of None.
    """
    if sample_weight is None:
        return np.ones(n) if ones else None
    try:  # (float64 would drop an imaginary part, with numpy's warning only)
        is_complex = np.asarray(sample_weight).dtype.kind == "c"
    except (TypeError, ValueError):
        is_complex = False  # (refused below as not numeric)
    if is_complex:
        raise ValueError("sample_weight must be real numbers; complex data is not supported.")
    try:
        sw = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be numeric.") from None
    if sw.ndim == 0:
        sw = np.full(n, float(sw))
    if sw.ndim != 1 or sw.shape[0] != n:
        raise ValueError(
            f"sample_weight must be a scalar or a 1-D array of one weight per sample "
            f"(shape ({n},)); got shape {sw.shape}."
        )
    if not np.all(np.isfinite(sw)) or np.any(sw < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    if n and not np.any(sw > 0):
        raise ValueError("sample_weight is all zero: at least one weight must be positive.")
    if y is not None:
        y = np.asarray(y).reshape(-1)
        labels = np.unique(y)
        kept = np.unique(y[sw > 0])
        if kept.shape[0] == 1 and labels.shape[0] > 1:
            zero = ", ".join(repr(v.item()) for v in labels[labels != kept[0]][:3])
            raise ValueError(
                f"sample_weight is zero on every row of class {zero}: no pair of rows with "
                "different labels has positive weight, so there is nothing to rank.")
    return np.ascontiguousarray(sw)
