"""Dot products and norms of vectors on the calling thread, never through OpenBLAS.

OpenBLAS runs ``np.dot`` (and ``a @ b``, ``np.linalg.norm``) of two float vectors of
more than about 10^4 entries on all its threads, and its workers then spin for
a while on the other cores, waiting for more work: every fit that takes a few
such dots (a loss value, Platt's calibration, a conjugate-gradient step over 2^20
features) used up to twice its wall time in CPU on a 2-core machine and took a
core from other jobs. numpy's einsum runs its own vectorized loop in the calling
thread. A module of its own, without numba: the metrics import it, and a small
file is evaluated without loading numba. ``tests/test_no_blas_dots.py`` keeps
``np.dot`` out of the package.
"""

from __future__ import annotations

import numpy as np

__all__ = ["dot", "norm"]


def dot(a, b):
    """``a . b`` of two 1-D arrays, on this thread (not ``a @ b``: see the module).

    Examples
    --------
    >>> import numpy as np
    >>> dot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    11.0
    """
    return float(np.einsum("i,i->", a, b))


def norm(a):
    """``|a|``, the Euclidean norm of a 1-D float array, on this thread (:func:`dot`:
    ``np.linalg.norm`` of a vector is a BLAS dot).

    Examples
    --------
    >>> import numpy as np
    >>> norm(np.array([3.0, 4.0]))
    5.0
    >>> norm(np.array([3.0, 4.0]) * 2.0**700) == 5 * 2.0**700  # (its square would overflow)
    True
    """
    s = dot(a, a)
    if 1e-290 < s < np.inf:
        return float(np.sqrt(s))
    # the square over- or underflowed (|a| beyond about 1e154 or below 1e-145), or a
    # holds inf / NaN, or is 0: the norm of a / max|a|, times max|a|
    m = float(np.max(np.abs(a))) if a.shape[0] else 0.0
    if m == 0.0 or not np.isfinite(m):
        return m
    b = a / m
    return m * float(np.sqrt(dot(b, b)))
