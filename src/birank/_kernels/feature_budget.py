"""Truncation to a feature budget (online feature selection for CBR-diag).

Wang, Zhao, Hoi & Jin (2014), "Online feature selection and its applications"
(the reference khalid-ray-chitsaz section 5 names as future work), truncate the
model after each update to the ``B`` coordinates of largest ``|w_j|`` (their
Algorithm 2, OFS with full inputs). We keep the set of coordinates that may be
non-zero (the support) explicitly, so that a truncation costs
``O(S log S)`` with ``S <= B + nnz(x_t) + nnz(buffer)`` -- the order of the
row's own pair work -- instead of ``O(d)``: a coordinate outside the support is
zero, and a row's steps can only make non-zero the coordinates of ``x_t`` and
of the buffered rows it was paired with.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def admit(w, idx, n, in_support, support, count):
    """Add the coordinates ``idx[:n]`` with ``w_j != 0`` to the support; new count."""
    for k in range(n):
        j = idx[k]
        if not in_support[j] and w[j] != 0.0:
            in_support[j] = True
            support[count] = j
            count += 1
    return count


@njit(cache=True)
def truncate(w, in_support, support, count, budget):
    """Zero every coordinate of the support but the ``budget`` largest ``|w_j|``.

    The cut is found by a partition (O(S), not a sort); among coordinates tied at
    the cut the earlier in the support are kept, so the result is deterministic.
    Returns the new support size (at most ``budget``).
    """
    if count <= budget:
        return count
    key = np.empty(count)
    for k in range(count):
        key[k] = abs(w[support[k]])
    cut = np.partition(key, count - budget)[count - budget]  # budget-th largest
    n_above = 0
    for k in range(count):
        if key[k] > cut:
            n_above += 1
    ties_left = budget - n_above
    kept = 0
    for k in range(count):
        j = support[k]
        if key[k] > cut or (key[k] == cut and ties_left > 0):
            if key[k] == cut:
                ties_left -= 1
            support[kept] = j
            kept += 1
        else:
            w[j] = 0.0
            in_support[j] = False
    return kept
