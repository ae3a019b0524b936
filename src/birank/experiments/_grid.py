"""Hyper-parameter search that does not stop at the edge of its grid.

When the best value of a grid search is the smallest or the largest one, the
optimum may lie beyond it and the reported number rests on the grid, not on the
method. :func:`search_grid` extends a geometric grid past that edge with the
grid's own ratio (``extend`` values per step, at most ``max_extensions``
steps), and when the choice is still at an edge (or the grid may not be
extended) it says so: the returned record has ``at_edge`` set and a
:class:`GridEdgeWarning` is issued, so that both a report and a user of the
search functions see it. Reports mark such cells (see :func:`edge_mark`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

import numpy as np

from ..exceptions import GridEdgeWarning
from ..model_selection import edge_side

__all__ = ["GridEdgeWarning", "edge_side", "extend_grid", "search_grid", "edge_mark"]


def extend_grid(grid: Iterable[float], side: Literal["low", "high"], *, n: int = 2,
                ) -> list[float]:
    """``n`` new values beyond ``side`` of a geometric grid, with the grid's end ratio.

    Parameters
    ----------
    grid : iterable of positive float
        A geometric grid of at least two values (in any order).
    side : {"low", "high"}
        Below the smallest value or above the largest.
    n : int, default=2
        How many values.

    Returns
    -------
    values : list of float
        The new values, ascending.

    Examples
    --------
    >>> from birank.experiments._grid import extend_grid
    >>> extend_grid([1.0, 2.0, 4.0], "high"), extend_grid([1.0, 10.0], "low", n=1)
    ([8.0, 16.0], [0.1])
    """
    g = sorted(grid)
    if len(g) < 2 or g[0] <= 0:
        raise ValueError("extend_grid needs a geometric grid of at least two positive values.")
    if side == "low":
        ratio = g[1] / g[0]
        return [g[0] / ratio ** k for k in range(n, 0, -1)]
    ratio = g[-1] / g[-2]
    return [g[-1] * ratio ** k for k in range(1, n + 1)]


def search_grid(score: Callable[[float], float], grid: Iterable[float], *, extend: int = 2,
                max_extensions: int = 3, larger_is_better: bool = True,
                prefer: Literal["smaller", "larger"] = "smaller", name: str = "parameter",
                warn: bool = True) -> tuple[float, dict[str, Any]]:
    """Evaluate ``score(value)`` on ``grid``, extending it while the best value is at an edge.

    Parameters
    ----------
    score : callable value -> float
        Validation score of one value (NaN or -inf: failed, never chosen over a finite one).
    grid : sequence of positive float
        Geometric grid (e.g. ``2^[-10:10]``).
    extend, max_extensions : int, default=2, 3
        Values added per extension and the number of extensions (0: never extend, only
        report an edge).
    larger_is_better : bool, default=True
        Whether a larger score is better.
    prefer : {'smaller', 'larger'}, default='smaller'
        Tie-break between equal scores.
    name : str, default='parameter'
        Parameter name for the warning.
    warn : bool, default=True
        Issue a :class:`GridEdgeWarning` when the final choice is at an edge.

    Returns
    -------
    best : float
    record : dict with ``scores`` ({value: score}), ``grid`` (final, sorted),
        ``extended`` (number of extensions made), ``at_edge`` (None, 'low', 'high' or 'both')
        and ``initial_edge`` (the edge the first grid's choice was on).

    Examples
    --------
    >>> from birank.experiments._grid import search_grid
    >>> best, record = search_grid(lambda c: -(c - 20.0) ** 2, [1.0, 2.0, 4.0])
    >>> best, record["extended"], record["initial_edge"], record["at_edge"]
    (16.0, 2, 'high', None)
    """
    sign = 1.0 if larger_is_better else -1.0
    tie = -1.0 if prefer == "smaller" else 1.0
    scores: dict[float, float] = {}

    def key(v: float) -> tuple[float, float]:
        s = scores[v]
        s = sign * s if np.isfinite(s) else -np.inf
        return (s, tie * v)

    for v in grid:
        scores[float(v)] = float(score(v))
    best = max(scores, key=key)
    initial = side = edge_side(list(scores), best)
    extended = 0
    while side in ("low", "high") and extended < max_extensions and np.isfinite(scores[best]):
        for v in extend_grid(list(scores), side, n=extend):
            scores[float(v)] = float(score(v))
        extended += 1
        best = max(scores, key=key)
        side = edge_side(list(scores), best)
    if side is not None and warn:
        warnings.warn(f"{name} = {best:g} is at the {side} edge of the searched grid "
                      f"[{min(scores):g}, {max(scores):g}] (after {extended} extension(s)); the "
                      "optimum may lie beyond it.", GridEdgeWarning, stacklevel=2)
    return best, {"scores": dict(sorted(scores.items())), "grid": sorted(scores),
                  "extended": extended, "at_edge": side, "initial_edge": initial}


def edge_mark(records: Iterable[Mapping[str, Any] | None]) -> str:
    """Table mark for cells resting on edge choices: ``'†'`` if any record is at an edge.

    Parameters
    ----------
    records : iterable of dict or None
        Records of :func:`search_grid` (None: no search).

    Returns
    -------
    mark : str
        ``'†'`` or ``''``.

    Examples
    --------
    >>> from birank.experiments._grid import edge_mark
    >>> edge_mark([{"at_edge": None}, None]), edge_mark([{"at_edge": "high"}])
    ('', '†')
    """
    return "†" if any(r and r.get("at_edge") for r in records) else ""
