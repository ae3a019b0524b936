"""Label scans that replace a sort of all labels (``np.unique``) in the common binary case."""

from numba import njit


@njit(cache=True)
def two_values(y):
    """Distinct values of ``y`` if there are at most two, in one pass.

    Returns ``(k, v0, v1)``: ``k`` distinct values (0, 1 or 2) with
    ``v0 < v1`` the ones found, or ``k = 3`` as soon as a third value turns
    up, or ``k = -1`` on NaN (left to the general path to report).
    """
    k = 0
    v0 = y[0] if y.shape[0] else 0
    v1 = v0
    for i in range(y.shape[0]):
        v = y[i]
        if v != v:
            return -1, v0, v1
        if k == 0:
            v0 = v
            k = 1
        elif v != v0:
            if k == 1:
                v1 = v
                k = 2
            elif v != v1:
                return 3, v0, v1
    if k == 2 and v1 < v0:
        return 2, v1, v0
    return k, v0, v1
