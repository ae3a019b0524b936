"""birank.model_selection.check_grid_edges: the grid-edge rule for a user's own searches."""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

from birank import RankSVM
from birank.datasets import load_heart
from birank.exceptions import GridEdgeWarning
from birank.model_selection import check_grid_edges, edge_side


def _search(grid, best):
    return SimpleNamespace(param_grid=grid, best_params_=best)


@pytest.mark.parametrize("chosen, side", [(0.01, "low"), (1.0, "high"), (0.1, None)])
def test_edge_side_of_an_unsorted_grid(chosen, side):
    assert edge_side([1.0, 0.01, 0.1], chosen) == side


def test_a_grid_of_one_value_is_at_both_edges():
    assert edge_side([3.0], 3.0) == "both"
    assert edge_side([3.0, 3.0], 3.0) == "both"  # (was 'low': the value twice is one value)


@pytest.mark.parametrize("chosen, side", [(7, "high"), (0.5, "low"), (2.5, None)])
def test_a_value_beyond_the_grid_is_past_its_edge(chosen, side):
    """Fails on the old main: 7 beyond [1, 2, 3] was None, 'strictly inside'."""
    assert edge_side([1, 2, 3], chosen) == side


def test_a_grid_that_does_not_compare_is_refused():
    with pytest.raises(ValueError, match="grid values must be numbers that compare"):
        edge_side([1, None], 1)


def test_each_numeric_parameter_at_an_edge_warns_once_and_is_returned():
    search = _search({"C": [0.01, 0.1, 1.0], "tol": [1e-4, 1e-3, 1e-2], "loss": ["hinge", "x"]},
                     {"C": 1.0, "tol": 1e-3, "loss": "hinge"})
    with pytest.warns(GridEdgeWarning, match=r"C = 1\.0 is at the high edge") as record:
        edges = check_grid_edges(search)
    assert edges == {"C": "high"}
    assert len([w for w in record if issubclass(w.category, GridEdgeWarning)]) == 1


def test_interior_choices_strings_booleans_and_single_values_never_warn():
    search = _search({"C": [0.01, 0.1, 1.0], "fit": [True, False], "kernel": ["rbf"],
                      "gamma": [0.5]}, {"C": 0.1, "fit": True, "kernel": "rbf", "gamma": 0.5})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_grid_edges(search) == {}


def test_a_list_of_grids_uses_the_grid_the_best_candidate_came_from():
    # C = 1 is the top of the first grid but inside the second, where it was chosen
    grids = [{"C": [0.1, 1.0], "loss": ["hinge"]},
             {"C": [0.1, 1.0, 10.0], "loss": ["squared_hinge"]}]
    assert check_grid_edges(_search(grids, {"C": 1.0, "loss": "squared_hinge"}), warn=False) == {}
    assert check_grid_edges(_search(grids, {"C": 1.0, "loss": "hinge"}),
                            warn=False) == {"C": "high"}


def test_unfitted_or_gridless_searches_are_refused():
    with pytest.raises(ValueError, match="fitted search"):
        check_grid_edges(SimpleNamespace(param_grid={"C": [1, 2]}))
    with pytest.raises(ValueError, match="no param_grid"):
        check_grid_edges(SimpleNamespace(best_params_={"C": 1}))


def test_a_real_grid_search_agrees_with_its_own_best_params():
    X, y = load_heart()
    grid = {"C": [1e-4, 1e-2, 1.0]}
    search = GridSearchCV(RankSVM(), grid, cv=3).fit(X, y)
    best = search.best_params_["C"]
    expected = {} if best == 1e-2 else {"C": "low" if best == 1e-4 else "high"}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert check_grid_edges(search) == expected
    assert sum(issubclass(w.category, GridEdgeWarning) for w in record) == len(expected)
    assert np.isfinite(search.best_score_)
