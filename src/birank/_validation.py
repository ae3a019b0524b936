"""Input and parameter validation shared by every public estimator and function.

Validation happens once, at the public boundary; kernels receive contiguous
float64 or float32 data and int32/int64 indices and trust them. float32 input
stays float32 (no copy of X at url scale); everything else becomes float64.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from ._kernels.labels import two_values

__all__ = [
    "check_sample_weight",
    "Interval",
    "Options",
    "validate_params",
    "check_random_state",
    "check_X",
    "check_X_y",
    "encode_binary",
    "as_csr_or_dense",
    "draw_seed",
]


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
            if not isinstance(value, numbers.Integral):
                return False
        elif not isinstance(value, numbers.Real):
            return False
        if not np.isfinite(value):
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
    if constraint == "random_state":
        return value is None or isinstance(value, (numbers.Integral, np.random.Generator,
                                                   np.random.RandomState))
    if constraint == "array-like":
        return value is not None and not isinstance(value, str)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return constraint.accepts(value)


def _describe(constraint):
    if constraint is None:
        return "None"
    if constraint == "random_state":
        return "None, an int or a numpy Generator"
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
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return np.random.default_rng(int(random_state))
    raise ValueError(
        f"random_state must be None, an int or a numpy Generator; got {random_state!r}."
    )


def draw_seed(rng):
    """An explicit int64 seed for a numba kernel, drawn from ``rng``."""
    return int(rng.integers(0, 2**62))


#: the data types X keeps; others are converted to the first one
FLOAT_DTYPES = (np.float64, np.float32)


def _float_dtype(X):
    return X.dtype if X.dtype in FLOAT_DTYPES else np.float64


def as_csr_or_dense(X):
    """Canonical kernel layout: C-contiguous ndarray or sorted CSR, float64 or float32.

    A float32 X stays float32 (the kernels read it and accumulate in float64);
    a canonical X comes back as is, without a copy.
    """
    if sp.issparse(X):
        dtype = _float_dtype(X)
        if not (isinstance(X, sp.csr_matrix) and X.dtype == dtype):
            X = sp.csr_matrix(X, dtype=dtype)
        # (the same object when canonical: scipy caches has_sorted_indices on it,
        # and a new wrapper would check all nnz indices again)
        if not X.has_sorted_indices:
            X = X.copy()
            X.sort_indices()
        return X
    return np.ascontiguousarray(X, dtype=_float_dtype(np.asarray(X)))


def check_X(estimator, X, *, reset):
    """Validate X for ``estimator`` (dense or CSR float64 or float32, finite, 2-D)."""
    X = validate_data(estimator, X, accept_sparse="csr", dtype=FLOAT_DTYPES, reset=reset)
    return as_csr_or_dense(X)


def check_X_y(estimator, X, y, *, reset=True, y_numeric=False):
    """Validate X and y together; y comes back as a 1-D array."""
    X, y = validate_data(
        estimator, X, y, accept_sparse="csr", dtype=FLOAT_DTYPES, reset=reset,
        y_numeric=y_numeric,
    )
    return as_csr_or_dense(X), np.asarray(y)


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

    y = np.asarray(y)
    if y.ndim == 1 and y.size and y.dtype.kind in "iuf":
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
        raise ValueError(
            f"{name} has only one class ({classes[0]!r} if any); bipartite ranking "
            "needs samples of both classes, so there are no pairs to rank."
            if len(classes) else f"{name} is empty."
        )
    if len(classes) > 2 or kind not in ("binary",):
        raise ValueError(
            f"{name} must hold exactly two label values for bipartite ranking; got "
            f"{len(classes)} distinct values (target type {kind!r}). Only binary "
            "classification is supported; for graded or real-valued labels use RankSVM."
        )
    return classes, y01.astype(np.int8).reshape(-1)


def check_sample_weight(sample_weight, n):
    """None, or ``sample_weight`` as n finite non-negative floats (a scalar is broadcast)."""
    if sample_weight is None:
        return None
    try:
        sw = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be numeric.") from None
    if sw.ndim == 0:
        sw = np.full(n, float(sw))
    if sw.ndim != 1 or sw.shape[0] != n:
        raise ValueError(
            f"sample_weight must have shape ({n},) (one weight per sample); got {sw.shape}."
        )
    if not np.all(np.isfinite(sw)) or np.any(sw < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    if n and not np.any(sw > 0):
        raise ValueError("sample_weight is all zero: at least one weight must be positive.")
    return np.ascontiguousarray(sw)
