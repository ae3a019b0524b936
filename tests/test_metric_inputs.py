"""Metric inputs the brute-force tests do not reach: scale of the weights, label codes,
parameters. Each failed on the code before (wrong value, a raw numpy error, or none)."""

from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from birank import metrics as M
from birank.model_selection import check_grid_edges, edge_side
from birank.pairs import BipartitePairs, PseudoPairs

Y = np.array([0, 1, 1, 0, 1, 0])
S = np.array([0.1, 0.8, 0.4, 0.4, 0.9, 0.2])
W = np.array([1.0, 2.0, 3.0, 1.0, 2.0, 1.0])


@pytest.mark.parametrize("scale", [1e-170, 1e-30, 1.0, 1e30, 1e160])
def test_weighted_metrics_do_not_depend_on_the_weights_scale(scale):
    """Products of weight totals under- or overflowed: ZeroDivisionError at 1e-170, NaN
    at 1e160. The weights are scaled by a power of two first (exact)."""
    want = roc_auc_score(Y, S, sample_weight=W)
    assert M.roc_auc(Y, S, sample_weight=W * scale) == pytest.approx(want, rel=1e-12)
    assert M.pairwise_accuracy(Y, S, sample_weight=W * scale) == pytest.approx(want, rel=1e-12)
    # a power-of-two scale: the same bits as the unscaled weights
    assert M.roc_auc(Y, S, sample_weight=W * 2.0**-600) == M.roc_auc(Y, S, sample_weight=W)


@pytest.mark.parametrize("top_exp", [1023, 1000, 10, 0, -500, -1022, -1040, -1070])
def test_weights_are_scaled_with_the_bits_of_ldexp(top_exp):
    # the scaling multiplies by 2^-e (ldexp took five times as long): one correctly
    # rounded product a weight, the bits ldexp gives, also where results are subnormal
    # or zero; ldexp itself where 2^-e is no float64
    rng = np.random.default_rng(top_exp + 2000)
    w = np.abs(rng.standard_normal(5000)) * 2.0 ** rng.integers(-1100, 60, 5000).astype(float)
    w = np.minimum(np.where(np.isfinite(w), w, 1.0), 2.0**top_exp)
    w[0] = 2.0**top_exp
    want = np.ldexp(w, -int(np.frexp(w.max())[1]))
    assert M._check_weights(w, w.shape[0]).tobytes() == want.tobytes()


def test_best_accuracy_threshold_checks_its_input():
    with pytest.raises(ValueError, match="y_true must hold 0 and 1"):
        M.best_accuracy_threshold([-1, 1, 1], [0.1, 0.2, 0.3])  # read as "all positive"
    with pytest.raises(ValueError, match="different lengths: 10 and 131072"):
        M.best_accuracy_threshold(np.ones(10, int), np.zeros(2**17))  # read past the end
    with pytest.raises(ValueError, match="non-negative"):
        M.best_accuracy_threshold([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="empty"):
        M.best_accuracy_threshold([], [])
    assert M.best_accuracy_threshold([0, 1, 1], [0.1, 0.2, 0.3]) == (pytest.approx(0.15), 1.0)
    assert M.best_accuracy_threshold(np.array([False, True]), [0.1, 0.2]) == (
        pytest.approx(0.15), 1.0)


def test_ndcg_exp_gain_refuses_labels_whose_gain_overflows():
    """2**1100 is inf: the query silently dropped out (NDCG 1.0 from the other one)."""
    with pytest.raises(ValueError, match="below 1024"):
        M.ndcg_at_k([1100, 0, 1, 0], [1, 2, 2, 1], groups=[0, 0, 1, 1])
    assert M.ndcg_at_k([1100, 0, 1, 0], [1, 2, 2, 1], groups=[0, 0, 1, 1], gain="linear") < 1


def test_pair_spaces_take_zero_one_labels_only():
    with pytest.raises(ValueError, match="y01 must hold 0 and 1"):
        BipartitePairs([-1, 1, 1, -1])  # gave 0 pairs: every row "positive"
    with pytest.raises(ValueError, match="y01 must hold 0 and 1"):
        PseudoPairs([-1, 1])
    assert BipartitePairs([0, 1, 1, 0]).n_pairs == 4 == BipartitePairs([False, True] * 2).n_pairs


def test_label_and_parameter_errors_name_the_problem():
    with pytest.raises(ValueError, match="missing values"):
        M.roc_auc(np.array([0, 1, None, 1], dtype=object), [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="pos_label=5 is not one of the label values"):
        M.roc_auc(np.array([0, 1, 1, 0], bool), [0.1, 0.2, 0.3, 0.4], pos_label=5)
    for bad in ("a", None, np.nan):
        with pytest.raises(ValueError, match="relevance_threshold must be a finite number"):
            M.mean_average_precision([1, 0], [0.2, 0.1], relevance_threshold=bad)
    for bad in ("x", 0, 1.5, True):  # refused whatever the size (were checked from 2**17 rows)
        with pytest.raises(ValueError, match="n_jobs must be None or a nonzero int"):
            M.roc_auc(Y, S, n_jobs=bad)
    with pytest.raises(ValueError, match="sample_weight must hold numbers"):
        M.roc_auc(Y, S, sample_weight=["a"] * 6)


def test_grid_edges_with_empty_nan_and_array_grids():
    with pytest.raises(ValueError, match="grid is empty"):
        edge_side([], 1)
    with pytest.raises(ValueError, match="NaN"):
        edge_side([3, np.nan, 1], 1)
    arrays = SimpleNamespace(param_grid={"w": [np.array([1, 2]), np.array([3, 4])], "C": [1, 2]},
                             best_params_={"w": np.array([3, 4]), "C": 2})
    assert check_grid_edges(arrays, warn=False) == {"C": "high"}
    # a list of grids: the one the best candidate came from (best_index_), not the first
    # holding its value (C=3 is in both; candidates 0-2 are the first grid's)
    two = SimpleNamespace(param_grid=[{"C": [1, 2, 3]}, {"C": [3, 4, 5]}],
                          best_params_={"C": 3}, best_index_=3)
    assert check_grid_edges(two, warn=False) == {"C": "low"}


@pytest.mark.parametrize("call", [
    lambda c: M.roc_auc(Y, S + c),
    lambda c: M.roc_auc(Y, S, sample_weight=W + c),
    lambda c: M.roc_auc(Y + c, S),
    lambda c: M.pairwise_accuracy(Y + c, S),
    lambda c: M.kendall_tau(Y, S + c),
    lambda c: M.ndcg_at_k(Y, S + c),
    lambda c: M.mean_average_precision(Y, S + c),
    lambda c: M.roc_auc_per_group(Y, S + c, [0, 0, 0, 1, 1, 1]),
    lambda c: M.optroc_accuracy(Y, S + c),
    lambda c: M.best_accuracy_threshold(Y, S + c),
], ids=["roc_auc", "weights", "y_true", "pairwise_accuracy", "kendall_tau", "ndcg", "map",
        "per_group", "optroc", "best_threshold"])
def test_complex_input_is_refused(call):
    """Fails on the old main: roc_auc(y, scores + 1j * other) dropped the imaginary part
    with numpy's ComplexWarning only and returned a value (scikit-learn: "Complex data not
    supported")."""
    with pytest.raises(ValueError, match="Complex data not supported"):
        call(0.5j)
    call(0.0)  # (the same call on real input works)
