"""Exceptions shared across layers (a leaf module: it imports nothing from birank)."""

__all__ = ["UserError", "GridEdgeWarning"]


class UserError(Exception):
    """An error in what the user asked for (bad file, bad option value).

    The command line shows it as one line and exits with status 2; experiments
    raise it for invalid protocol settings.
    """


class GridEdgeWarning(UserWarning):
    """The value a grid search chose sits on the grid's edge: the optimum may lie beyond it.

    Issued by :func:`birank.model_selection.check_grid_edges` and by the
    reproductions' own searches.

    Examples
    --------
    >>> import warnings
    >>> from types import SimpleNamespace
    >>> from birank.model_selection import GridEdgeWarning, check_grid_edges
    >>> search = SimpleNamespace(  # stands for a fitted GridSearchCV
    ...     param_grid={"C": [0.1, 1.0, 10.0]}, best_params_={"C": 0.1})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", GridEdgeWarning)  # as an exception, to show it
    ...     try:
    ...         check_grid_edges(search)
    ...     except GridEdgeWarning as warning:
    ...         print(str(warning)[:41])
    C = 0.1 is at the low edge of the searche
    >>> issubclass(GridEdgeWarning, UserWarning)
    True
    """
