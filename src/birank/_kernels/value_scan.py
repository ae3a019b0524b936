"""One pass over X's stored values: are they finite, and how large are they.

A fit checks both (``birank._validation``): finiteness, as every scikit-learn
estimator does, and the largest magnitude, which the solvers' products must
not overflow (:func:`birank._validation.check_values`). numpy needs three
passes for the two (``isfinite``, ``max``, ``min``: 33 ms at 2e7 stored
values); this is one, in parts of the values that run on threads.
"""

import numpy as np
from numba import njit

__all__ = ["finite_magnitude"]


@njit(cache=True, nogil=True)
def finite_magnitude(data, out, k, p0, p1):
    """``out[k] = (z, top)`` over ``data[p0:p1]``: ``z`` is 0 when every value is
    finite and NaN otherwise, ``top`` the largest ``|value|`` among those that are
    not NaN (+inf when one is infinite)."""
    z = 0.0
    top = 0.0
    for p in range(p0, p1):
        x = abs(np.float64(data[p]))
        z += x * 0.0  # NaN from the first NaN or infinite value on
        top = x if x > top else top  # (a NaN compares False: skipped)
    out[k, 0] = z
    out[k, 1] = top
