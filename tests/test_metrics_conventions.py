"""Evaluation conventions of birank.metrics against brute-force oracles.

The oracles follow the definitions written out, one query and one position at a time:
the LETOR 3.0/4.0 evaluation script's MAP and NDCG@k (stable sort by score, relevant =
label > 0, gain 2^l - 1, positions 1-2 undiscounted and 1/log2(p) after, NDCG@k = 0 for a
query shorter than k or without relevant documents), linear gains, and per-query AUC.
"""

import math

import numpy as np
import pytest
from sklearn.metrics import ndcg_score, roc_auc_score

from birank.metrics import mean_average_precision, ndcg_at_k, roc_auc_per_group


def _queries(seed, n_q=12):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 14, size=n_q)
    g = np.repeat(np.arange(n_q), sizes)
    y = rng.integers(0, 3, size=g.shape[0]).astype(float)
    y[g == 0] = 0  # a query without relevant documents
    s = rng.integers(0, 5, size=g.shape[0]).astype(float)  # many ties
    perm = rng.permutation(g.shape[0])  # queries need not be contiguous
    return y[perm], s[perm], g[perm]


def _letor_lists(y, s, g):
    for q in np.unique(g):
        idx = np.flatnonzero(g == q)  # file order
        order = sorted(range(len(idx)), key=lambda i: -s[idx[i]])  # Python's sort is stable
        yield [y[idx[i]] for i in order]


def _letor_map(y, s, g):
    aps = []
    for labels in _letor_lists(y, s, g):
        hits, total = 0, 0.0
        for p, lab in enumerate(labels, 1):
            if lab > 0:
                hits += 1
                total += hits / p
        aps.append(total / hits if hits else 0.0)
    return sum(aps) / len(aps)


def _letor_dcg(labels, k):
    dcg = 0.0
    for p in range(1, k + 1):
        gain = 2.0 ** labels[p - 1] - 1 if p <= len(labels) else 0.0
        dcg += gain if p <= 2 else gain / math.log2(p)
    return dcg


def _letor_ndcg(y, s, g, k):
    vals = []
    for labels in _letor_lists(y, s, g):
        if len(labels) < k:
            vals.append(0.0)
            continue
        ideal = _letor_dcg(sorted(labels, reverse=True), k)
        vals.append(_letor_dcg(labels, k) / ideal if ideal > 0 else 0.0)
    return sum(vals) / len(vals)


@pytest.mark.parametrize("seed", range(6))
def test_letor_convention_equals_the_script_definitions(seed):
    y, s, g = _queries(seed)
    assert mean_average_precision(y, s, g, no_relevant="zero", convention="letor") == \
        pytest.approx(_letor_map(y, s, g), abs=1e-12)
    for k in (1, 3, 10):
        assert ndcg_at_k(y, s, g, k=k, no_relevant="zero", convention="letor") == \
            pytest.approx(_letor_ndcg(y, s, g, k), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_linear_gain_equals_sklearn_ndcg_score_on_raw_labels(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, size=15).astype(float)
    y[0] = 3
    s = rng.normal(size=15)
    assert ndcg_at_k(y, s, k=5, gain="linear") == pytest.approx(
        ndcg_score([y], [s], k=5), abs=1e-12)
    assert ndcg_at_k(y, s, k=5, gain="exp") == pytest.approx(
        ndcg_score([2 ** y - 1], [s], k=5), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_roc_auc_per_group_is_the_mean_of_per_query_aucs(seed):
    y, s, g = _queries(seed + 10, n_q=15)
    y = (y > 0).astype(int)
    aucs = [roc_auc_score(y[g == q], s[g == q]) for q in np.unique(g)
            if 0 < y[g == q].sum() < (g == q).sum()]
    auc, used = roc_auc_per_group(y, s, g)
    assert used == len(aucs)
    assert auc == pytest.approx(np.mean(aucs), abs=1e-12)


def test_convention_and_gain_are_checked():
    with pytest.raises(ValueError, match="convention"):
        ndcg_at_k([1, 0], [0.1, 0.2], convention="trec")
    with pytest.raises(ValueError, match="gain"):
        ndcg_at_k([1, 0], [0.1, 0.2], gain="log")
    with pytest.raises(ValueError, match="convention"):
        mean_average_precision([1, 0], [0.1, 0.2], convention="x")


# ----------------------------------------------------------------- the metrics' signatures
_DATA = ("y_true", "y_score", "groups")
_SETTINGS = {
    "roc_auc": {"sample_weight", "pos_label", "n_jobs"},
    "pairwise_accuracy": {"sample_weight"},
    "kendall_tau": {"sample_weight"},
    "mean_average_precision": {"relevance_threshold", "no_relevant", "convention"},
    "ndcg_at_k": {"k", "no_relevant", "gain", "convention"},
    "roc_auc_per_group": {"pos_label"},
    "optroc_accuracy": {"pos_label"},
    "best_accuracy_threshold": {"sample_weight"},
}


@pytest.mark.parametrize("name", sorted(_SETTINGS))
def test_metric_settings_are_keyword_only_and_data_positional(name):
    """scikit-learn's rule (``roc_auc_score(y_true, y_score, *, average, sample_weight)``):
    the data (labels, scores, query ids) are positional, every setting keyword-only."""
    import inspect

    import birank.metrics as M

    params = inspect.signature(getattr(M, name)).parameters
    data = [p for p in params if p not in _SETTINGS[name]]
    assert set(params) == set(data) | _SETTINGS[name], name
    assert data == [p for p in _DATA if p in params], name  # y_true, y_score(, groups)
    for p in data:
        assert params[p].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, (name, p)
    for p in _SETTINGS[name]:
        assert params[p].kind is inspect.Parameter.KEYWORD_ONLY, (name, p)


def test_a_positional_setting_is_a_type_error():
    import birank.metrics as M

    y, s = [0, 1, 1, 0], [0.1, 0.4, 0.35, 0.8]
    with pytest.raises(TypeError):
        M.roc_auc(y, s, [1, 1, 1, 1])
    with pytest.raises(TypeError):
        M.best_accuracy_threshold(y, s, [1, 1, 1, 1])
    with pytest.raises(TypeError):
        M.pairwise_accuracy(y, s, None, [1, 1, 1, 1])
    with pytest.raises(TypeError):
        mean_average_precision(y, s, None, 1)
    with pytest.raises(TypeError):
        ndcg_at_k(y, s, None, 3)
    with pytest.raises(TypeError):  # the former name
        mean_average_precision(y, s, threshold=0.0)
    assert M.best_accuracy_threshold(y_true=[0, 1], y_score=[0.1, 0.2]) == (
        pytest.approx(0.15), 1.0)


def _ap_strict(labels, threshold):
    """AP of one ranked list, a row relevant when its label is strictly above ``threshold``
    (the former rule), written out: the mean over relevant rows of the precision at them."""
    hits, precisions = 0, []
    for rank, lab in enumerate(labels, 1):
        if lab > threshold:
            hits += 1
            precisions.append(hits / rank)
    return sum(precisions) / hits if hits else None


@pytest.mark.parametrize("seed", range(4))
def test_map_relevance_threshold_on_integer_grades_is_the_former_strict_rule(seed):
    """``relevance_threshold=t + 1`` (labels >= it) on integer grades is the former
    ``threshold=t`` (labels > t); the default 1 is the former default 0."""
    rng = np.random.default_rng(seed + 40)
    n_q = 9
    g = np.repeat(np.arange(n_q), rng.integers(1, 12, size=n_q))
    perm = rng.permutation(g.shape[0])
    g = g[perm]
    y = rng.integers(0, 5, size=g.shape[0])
    s_distinct = rng.permutation(g.shape[0]).astype(float)  # no ties: the textbook AP
    s_tied = rng.integers(0, 4, size=g.shape[0]).astype(float)
    for old in (0, 1, 2, 3):
        for s, convention in ((s_distinct, "standard"), (s_tied, "letor")):
            aps = []
            for q in np.unique(g):
                idx = np.flatnonzero(g == q)  # input order; the stable sort keeps it in ties
                ranked = [y[idx[i]] for i in sorted(range(len(idx)), key=lambda i: -s[idx[i]])]
                aps.append(_ap_strict(ranked, old))
            if all(ap is None for ap in aps):
                continue
            skip = float(np.mean([ap for ap in aps if ap is not None]))
            zero = float(np.mean([0.0 if ap is None else ap for ap in aps]))
            for labels in (y, y.astype(float)):
                got = mean_average_precision(labels, s, g, relevance_threshold=old + 1,
                                             convention=convention)
                assert got == pytest.approx(skip, abs=1e-12)
                got = mean_average_precision(labels, s, g, relevance_threshold=old + 1,
                                             no_relevant="zero", convention=convention)
                assert got == pytest.approx(zero, abs=1e-12)
                if old == 0:  # the default
                    assert mean_average_precision(labels, s, g, convention=convention) == \
                        pytest.approx(skip, abs=1e-12)
