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
    """
