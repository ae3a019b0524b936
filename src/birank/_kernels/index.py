"""Width of row-index arrays: int32 while it holds every index (half the memory)."""

import numpy as np


def index_dtype(n):
    """``np.int32`` for indices ``0 .. n - 1`` (and -1) when ``n < 2^31``, else ``np.int64``."""
    return np.int32 if n < 2**31 else np.int64
