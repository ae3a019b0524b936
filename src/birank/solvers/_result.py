"""The one result type of every solver driver."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["SolverResult"]


@dataclass
class SolverResult:
    """What a solver driver returns; the estimator decides what to warn about.

    Attributes
    ----------
    coef : ndarray
        The solution vector, as the solver parametrizes it (for pair-row
        solvers with a threshold its last entry is the threshold coordinate).
    n_iter : int
        Outer iterations (passes, Newton steps, smoothing-stage Newton steps).
    converged : bool
        Whether the stopping rule was met before the iteration limit.
    objective : float
        The primal objective at ``coef`` (NaN when the solver does not compute it).
    intercept : float
        The learned bias in score units (0 when the problem has none).
    info : dict
        Solver-specific diagnostics (gradient norms, duality bounds, the reason
        for stopping, ...).
    """

    coef: np.ndarray
    n_iter: int = 0
    converged: bool = True
    objective: float = float("nan")
    intercept: float = 0.0
    info: dict = field(default_factory=dict)
