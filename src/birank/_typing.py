"""Type aliases of the public API's annotations (read by type checkers only).

Modules import these under ``if TYPE_CHECKING:`` with ``from __future__ import
annotations``, so nothing here is imported at run time: ``import birank`` and the
``birank`` command's start stay as light as before.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TypeVar, Union

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

if sys.version_info >= (3, 11):
    from typing import Self
else:  # typing_extensions: a type checker has it; nothing imports this module at run time
    from typing_extensions import Self

__all__ = ["ArrayLike", "NDArray", "Self", "MatrixLike", "Matrix", "FloatArray", "IntArray",
           "IndexArray", "RandomStateLike", "StrPath", "EvalSet",
           "EstimatorT"]

#: X: anything ``np.asarray`` takes (lists, ndarrays, DataFrames) or a scipy sparse matrix
MatrixLike = Union[ArrayLike, sp.spmatrix, sp.sparray]
#: an X already converted: a 2-D ndarray or a scipy sparse matrix / array
Matrix = Union[NDArray[Any], sp.spmatrix, sp.sparray]
#: float64 arrays (scores, coefficients, probabilities)
FloatArray = NDArray[np.float64]
#: integer arrays (indices, counts)
IntArray = NDArray[np.int64]
#: row indices (int32 below 2**31 rows, see ``birank._kernels.index``, or int64)
IndexArray = NDArray[np.integer[Any]]
#: what ``birank._validation.check_random_state`` accepts
RandomStateLike = Union[int, np.random.Generator, np.random.RandomState, None]
#: held-out data of the online learners' ``eval_set``
EvalSet = tuple[MatrixLike, ArrayLike]
#: the estimator passed in, returned fitted (``birank.distributed.fit``)
EstimatorT = TypeVar("EstimatorT")
#: a file name
StrPath = Union[str, "os.PathLike[str]"]
