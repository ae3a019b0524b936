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
    lower_bound : float
        A certified lower bound on the optimal objective (a dual value), or NaN
        when the solver has none (the hinge solvers stop on ``objective -
        lower_bound <= tol objective``).
    reason : str
        Why the solver stopped without converging ('' when it converged).
    n_pairs : int
        The number of pairs of an all-pairs objective (0 when not counted).
    dual_coef : ndarray or None
        A feasible dual point of a row solver (one ``alpha_p`` per row), when the
        solver built one (:func:`birank.solvers.newton.solve_rows`).
    stopped_early : bool
        Whether a caller's ``stop`` callback ended the run (Newton stages of the
        hinge smoothing stop at the first certified iterate).
    widths : tuple of float
        The smoothing widths a hinge-by-smoothing run went through (empty otherwise).
    info : dict
        Diagnostics for progress lines and tests only (gradient norms, CG
        steps); callers never read a result's meaning from it.
    """

    coef: np.ndarray
    n_iter: int = 0
    converged: bool = True
    objective: float = float("nan")
    intercept: float = 0.0
    lower_bound: float = float("nan")
    reason: str = ""
    n_pairs: int = 0
    dual_coef: np.ndarray | None = None
    stopped_early: bool = False
    widths: tuple = ()
    info: dict = field(default_factory=dict)
