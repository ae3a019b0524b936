"""Checks for hyper-parameter searches: is the chosen value inside the searched grid?

When a grid search picks the smallest or the largest value of a numeric grid,
the optimum may lie beyond it, and the reported score rests on where the grid
stopped rather than on the method. :func:`check_grid_edges` reads a fitted
scikit-learn search (``GridSearchCV`` or anything with ``best_params_`` and
``param_grid``) and warns with :class:`~birank.exceptions.GridEdgeWarning` for
every such parameter, so that the user extends the grid. The reproductions
apply the same rule, extending their own grids (see the reports).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from .exceptions import GridEdgeWarning

__all__ = ["GridEdgeWarning", "edge_side", "check_grid_edges"]

EdgeSide = Literal["low", "high", "both"]


def edge_side(grid: Sequence[float], chosen: float) -> EdgeSide | None:
    """Which edge of a numeric grid ``chosen`` sits on, if any.

    Parameters
    ----------
    grid : sequence of float
        The searched values (any order).
    chosen : float
        The value the search picked.

    Returns
    -------
    side : {'low', 'high', 'both'} or None
        ``'low'`` / ``'high'`` when ``chosen`` is the grid's smallest / largest
        value or lies beyond it, ``'both'`` for a grid of one value (it has no
        inside; a value given twice is one value), None when ``chosen`` lies
        strictly inside.

    Examples
    --------
    >>> from birank.model_selection import edge_side
    >>> edge_side([0.1, 1, 10], 10), edge_side([0.1, 1, 10], 1)
    ('high', None)
    """
    values = list(grid)
    if not values:
        raise ValueError("grid is empty: there is no edge to compare with.")
    if any(v != v for v in values) or chosen != chosen:  # NaN: no order to speak of
        raise ValueError(f"grid and chosen value must be numbers without NaN; got {values!r} "
                         f"and {chosen!r}.")
    try:  # (a value given twice is one grid point)
        values = sorted(set(values))
    except TypeError:
        raise ValueError(f"grid values must be numbers that compare; got {values!r}.") from None
    if len(values) == 1 and chosen == values[0]:
        return "both"
    # a value beyond the grid (a search that extended it) is past that edge, not inside
    if chosen <= values[0]:
        return "low"
    if chosen >= values[-1]:
        return "high"
    return None


def _numeric_grid(values: Any) -> list[float] | None:
    """The values as floats when every one is a real number (bools excluded), else None."""
    try:
        items = list(values)
    except TypeError:
        return None
    if not items or not all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                            for v in items):
        return None
    return [float(v) for v in items]


def _same(a: Any, b: Any) -> bool:
    """``a == b`` for grid values, arrays included (compared whole, not elementwise)."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _grid_of_best(search: Any, grids: list[Mapping[str, Any]],
                  best: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The grid the best candidate came from: by ``best_index_`` (candidates are numbered
    grid after grid, as :class:`sklearn.model_selection.ParameterGrid` lists them), else
    the first grid holding every chosen value."""
    index = getattr(search, "best_index_", None)
    if isinstance(index, numbers.Integral) and len(grids) > 1:
        from sklearn.model_selection import ParameterGrid

        start = 0
        for g in grids:
            start += len(ParameterGrid(g))
            if index < start:
                return g
    return next((g for g in grids if set(g) == set(best)
                 and all(any(_same(v, best[k]) for v in g[k]) for k in best)), None)


def check_grid_edges(search: Any, *, warn: bool = True) -> dict[str, EdgeSide]:
    """Report the numeric parameters a fitted grid search chose at an edge of its grid.

    Parameters
    ----------
    search : fitted search object
        Anything with ``best_params_`` and ``param_grid`` (a dict, or a list of
        dicts as scikit-learn's ``GridSearchCV`` takes), such as a fitted
        ``sklearn.model_selection.GridSearchCV``.
    warn : bool, default=True
        Issue one :class:`~birank.exceptions.GridEdgeWarning` per parameter at an edge.

    Returns
    -------
    edges : dict of str to {'low', 'high', 'both'}
        Each numeric parameter of two or more values whose chosen value is the
        smallest or the largest of the grid it was chosen from. Non-numeric
        parameters (strings, booleans, None) have no edge and never appear.

    Raises
    ------
    ValueError
        If ``search`` is not fitted or has no ``param_grid``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from birank.model_selection import check_grid_edges
    >>> search = SimpleNamespace(  # stands for a fitted GridSearchCV
    ...     param_grid={"C": [0.01, 0.1, 1.0], "loss": ["hinge", "squared_hinge"]},
    ...     best_params_={"C": 1.0, "loss": "hinge"})
    >>> check_grid_edges(search, warn=False)
    {'C': 'high'}
    """
    best = getattr(search, "best_params_", None)
    grids = getattr(search, "param_grid", None)
    if best is None:
        raise ValueError("check_grid_edges needs a fitted search (no best_params_); call fit first.")
    if grids is None:
        raise ValueError(f"{type(search).__name__} has no param_grid; check_grid_edges reads "
                         "grid searches (GridSearchCV).")
    if isinstance(grids, Mapping):
        grids = [grids]
    grid = _grid_of_best(search, list(grids), best)
    if grid is None:
        return {}
    edges: dict[str, EdgeSide] = {}
    for name in sorted(best):
        values = _numeric_grid(grid[name])
        if values is None or len(set(values)) < 2:
            continue
        side = edge_side(values, float(best[name]))
        if side is not None:
            edges[name] = side
            if warn:
                warnings.warn(
                    f"{name} = {best[name]!r} is at the {side} edge of the searched grid "
                    f"[{min(values):g}, {max(values):g}]; the optimum may lie beyond it: "
                    "extend the grid on that side.", GridEdgeWarning, stacklevel=2)
    return edges
