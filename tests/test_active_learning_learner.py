"""ActiveRankLearner: the query/teach loop, the simulated protocol, sklearn conventions."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from birank import ActiveRankLearner, RankSVM
from birank.active_learning import STRATEGIES, LabelOracle, query_metrics
from birank.metrics import roc_auc


def _data(n_queries=6, per=25, seed=0):
    rng = np.random.default_rng(seed)
    n = n_queries * per
    X = rng.normal(size=(n, 4))
    g = np.repeat(np.arange(100, 100 + n_queries), per)
    y = np.digitize(X @ [1.0, -0.5, 0.3, 0.0] + 0.3 * rng.normal(size=n), [0.6, 1.4])
    return X, y.astype(float), g  # graded 0/1/2, about a third relevant


def _seed(y, g, k=3):
    return np.concatenate([np.flatnonzero((g == q) & ((y >= 1) == c))[:k]
                           for q in np.unique(g) for c in (False, True)])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_loop_never_queries_twice_and_reads_only_queried_labels(strategy):
    X, y, g = _data()
    oracle = LabelOracle(y)
    learner = ActiveRankLearner(strategy=strategy, per_query=4, random_state=0)
    seed = _seed(y, g)
    learner.teach(seed, oracle.label(seed), X_pool=X, groups=g)
    seen = set(seed.tolist())
    for _ in range(4):  # 19 unlabeled rows per query: 4 full rounds of 4
        rows = learner.query()
        assert rows.size == 6 * 4
        assert not seen & set(rows.tolist())
        assert np.bincount(np.unique(g[rows], return_inverse=True)[1]).max() <= 4
        seen |= set(rows.tolist())
        learner.teach(rows, oracle.label(rows))
        # the learner holds exactly the labels it asked for, nothing else
        assert oracle.n_reads == learner.labeled_mask_.sum() == len(seen)
        np.testing.assert_array_equal(oracle.read_mask, learner.labeled_mask_)
        assert np.isnan(learner.labels_[~learner.labeled_mask_]).all()
    # the pool runs dry: 6 queries x 25 rows
    while (rows := learner.query()).size:
        learner.teach(rows, oracle.label(rows))
    assert learner.labeled_mask_.all() and oracle.n_reads == X.shape[0]


def test_oracle_refuses_a_second_read():
    oracle = LabelOracle([0, 1, 2])
    oracle.label([0, 2])
    with pytest.raises(ValueError, match="row 2 requested twice"):
        oracle.label([2])
    with pytest.raises(ValueError, match="row numbers"):
        oracle.label([3])


@pytest.mark.parametrize("strategy", ["lossmin", "diverse", "random"])
def test_simulate_protocol_counts_and_reproducibility(strategy):
    X, y, g = _data(seed=1)
    Xt, yt, gt = _data(n_queries=3, seed=2)
    kw = dict(n_rounds=4, n_initial_relevant=1, n_initial_nonrelevant=5)
    r1 = ActiveRankLearner(strategy=strategy, per_query=3, random_state=7).simulate(
        X, y, g, Xt, yt, gt, **kw)
    r2 = ActiveRankLearner(strategy=strategy, per_query=3, random_state=7).simulate(
        X, y, g, Xt, yt, gt, **kw)
    n_q = 6
    assert r1["n_labeled"][0] == n_q * 6  # every query has >= 1 relevant and >= 5 others
    assert r1["n_labeled"] == [n_q * 6 + 3 * n_q * t for t in range(5)]
    queried = np.concatenate(r1["queried"])
    assert np.unique(queried).size == queried.size
    assert r1["oracle_reads"] == r1["n_labeled"][-1] == r1["oracle_read_mask"].sum()
    assert r1["oracle_read_mask"][queried].all()
    for key in ("auc", "map", "ndcg", "train_s", "rank_s", "select_s", "round_s"):
        assert len(r1[key]) == 5
    assert r1["round_s"][2] == pytest.approx(r1["train_s"][1] + r1["rank_s"][2]
                                             + r1["select_s"][2])
    for a, b in zip(r1["queried"], r2["queried"]):
        np.testing.assert_array_equal(a, b)
    assert r1["map"] == r2["map"]
    assert 0.5 < r1["auc"][-1] <= 1.0


def test_default_ranker_is_ranksvm_over_within_query_pairs():
    X, y, g = _data(seed=3)
    learner = ActiveRankLearner().fit(X, y, groups=g)
    assert isinstance(learner.estimator_, RankSVM)
    ref = RankSVM().fit(X, (y >= 1).astype(float), groups=g)
    np.testing.assert_allclose(learner.decision_function(X), ref.decision_function(X))
    # threshold 2: only the top grade is relevant
    l2 = ActiveRankLearner(relevance_threshold=2).fit(X, y, groups=g)
    ref2 = RankSVM().fit(X, (y >= 2).astype(float), groups=g)
    np.testing.assert_allclose(l2.decision_function(X), ref2.decision_function(X))


def test_any_estimator_with_decision_function_and_sparse_pool():
    X, y, g = _data(seed=4)
    learner = ActiveRankLearner(estimator=LogisticRegression(), per_query=2, random_state=0)
    seed = _seed(y, g)
    learner.teach(seed, y[seed], X_pool=sp.csr_matrix(X), groups=g)
    rows = learner.query()
    assert rows.size == 12 and isinstance(learner.estimator_, LogisticRegression)
    assert learner.estimator is not learner.estimator_  # cloned, the parameter untouched
    assert roc_auc(y >= 1, learner.decision_function(X)) > 0.7


def test_one_class_labeled_set_gives_constant_scores_not_an_error():
    X, y, g = _data(seed=5)
    learner = ActiveRankLearner(per_query=1, random_state=0)
    zeros = np.flatnonzero(y == 0)[:4]
    learner.teach(zeros, y[zeros], X_pool=X, groups=g)
    rows = learner.query()
    assert learner.estimator_ is None and rows.size == 6


def test_sklearn_params_clone_and_validation():
    learner = ActiveRankLearner(strategy="entropy", per_query=3, above_threshold_weight=0.4, random_state=1)
    assert learner.get_params()["above_threshold_weight"] == 0.4
    twin = clone(learner)
    assert twin.get_params() == learner.get_params() and twin is not learner
    X, y, g = _data()
    bad = [({"strategy": "maxent"}, "strategy"), ({"per_query": 0}, "per_query"),
           ({"above_threshold_weight": 1.0}, "above_threshold_weight"), ({"above_threshold_weight": 0}, "above_threshold_weight"), ({"estimator": object()}, "estimator"),
           ({"random_state": "x"}, "random_state"), ({"relevance_threshold": "1"},
                                                      "relevance_threshold")]
    for params, name in bad:
        with pytest.raises(ValueError, match=f"parameter '{name}'"):
            ActiveRankLearner(**params).teach([0], [1.0], X_pool=X, groups=g)


def test_teach_and_query_input_errors():
    X, y, g = _data()
    learner = ActiveRankLearner()
    with pytest.raises(ValueError, match="give X_pool"):
        learner.query()
    learner.teach([0, 1], [0.0, 1.0], X_pool=X, groups=g)
    with pytest.raises(ValueError, match="labeled already"):
        learner.teach([1], [1.0])
    with pytest.raises(ValueError, match="pool rows"):
        learner.teach([X.shape[0]], [1.0])
    with pytest.raises(ValueError, match="labels has 1 entries for 2"):
        learner.teach([2, 3], [1.0])
    with pytest.raises(ValueError, match="twice"):
        learner.teach([4, 4], [1.0, 1.0])
    # labels are numbers, as fit's: strings (even "1") were cast or failed in float()
    for bad in (["high", "low"], ["1", "0"], np.array(["high", "low"], dtype=object)):
        with pytest.raises(ValueError, match="labels must hold real numbers"):
            learner.teach([5, 6], bad)
    with pytest.raises(ValueError, match=r"labels contains NaN .* index 1"):
        learner.teach([5, 6], [1.0, np.nan])
    assert not learner.labeled_mask_[[5, 6]].any()
    with pytest.raises(ValueError, match="shape"):
        learner.query(X[:10])
    with pytest.raises(ValueError, match="groups differ"):
        learner.query(X, g[::-1])
    with pytest.raises(ValueError, match="one query id per sample"):
        ActiveRankLearner().teach([0], [1.0], X_pool=X, groups=g[:5])


def test_query_metrics_per_query_definitions():
    y = [2, 0, 0, 1, 0, 0]
    s = [0.9, 0.1, 0.5, 0.2, 0.3, 0.0]
    g = [1, 1, 1, 2, 2, 3]  # query 3 has no relevant row: out of AUC and MAP
    m = query_metrics(y, s, g)
    assert m["auc"] == pytest.approx((1.0 + 0.0) / 2)
    assert m["map"] == pytest.approx((1.0 + 0.5) / 2)


def test_groups_none_is_one_query():
    """The seed draw and the query metrics take groups=None as a single query."""
    y = np.array([1.0, 0, 0, 1, 0, 0])
    idx, labels = LabelOracle(y).seed(None, relevance_threshold=1, n_relevant=1,
                                      n_nonrelevant=2, random_state=0)
    assert (labels == 1).sum() == 1 and (labels == 0).sum() == 2
    assert np.array_equal(y[idx], labels)
    s = np.array([0.9, 0.1, 0.5, 0.2, 0.3, 0.4])
    assert query_metrics(y, s, None) == query_metrics(y, s, np.zeros(6))


def test_settings_are_keyword_only_and_data_positional():
    """scikit-learn's rule: data arrays positional, every setting keyword-only."""
    import inspect

    from birank.active_learning import lossmin_scores, random_scores, select_per_query

    cases = {
        lossmin_scores: (["scores", "groups"], ["above_threshold_weight"]),
        select_per_query: (["values", "groups"], ["k"]),
        query_metrics: (["y_true", "y_score", "groups"], ["relevance_threshold", "k"]),
        random_scores: (["n"], ["random_state"]),
        LabelOracle.seed: (["self", "groups"], ["relevance_threshold", "n_relevant",
                                                "n_nonrelevant", "random_state"]),
        ActiveRankLearner.simulate: (["self", "X", "y", "groups", "X_test", "y_test",
                                      "groups_test"],
                                     ["n_rounds", "n_initial_relevant",
                                      "n_initial_nonrelevant", "progress"]),
        ActiveRankLearner.fit: (["self", "X", "y"], ["groups"]),
    }
    for func, (positional, keyword) in cases.items():
        params = inspect.signature(func).parameters.values()
        assert [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD] == positional, func
        assert [p.name for p in params if p.kind is p.KEYWORD_ONLY] == keyword, func
    with pytest.raises(TypeError):
        select_per_query([0.5, 0.1], [0, 0], 1)
    with pytest.raises(TypeError):
        LabelOracle([0, 1]).seed(None, 1)


def test_query_metrics_takes_string_query_ids_and_checks_lengths():
    """Fails on the old main: string ids failed in np.diff (UFuncTypeError) and a short
    y_score gave an IndexError."""
    y = np.array([2, 0, 0, 1, 0, 0])
    s = np.array([0.9, 0.1, 0.5, 0.2, 0.3, 0.0])
    by_name = query_metrics(y, s, ["q1", "q1", "q1", "q2", "q2", "q3"])
    assert by_name == query_metrics(y, s, [1, 1, 1, 2, 2, 3])
    with pytest.raises(ValueError, match="different lengths: 6 and 5"):
        query_metrics(y, s[:5], [1, 1, 1, 2, 2, 3])
    with pytest.raises(ValueError, match=r"one query id per sample \(6\)"):
        query_metrics(y, s, [1, 1, 1, 2, 2])
    with pytest.raises(ValueError, match="y_true contains NaN"):
        query_metrics(np.r_[np.nan, y[1:]], s, None)


def test_simulate_takes_string_query_ids_and_checks_the_test_set():
    """Fails on the old main: string groups_test failed after the first round's fit, in
    np.diff; now the test set is checked before any round."""
    X, y, g = _data(n_queries=3)
    names = np.array([f"q{v}" for v in g])
    runs = [ActiveRankLearner(per_query=2, random_state=0).simulate(
        X, y, gg, X, y, gg, n_rounds=2) for gg in (g, names)]
    assert runs[0]["auc"] == runs[1]["auc"] and runs[0]["ndcg"] == runs[1]["ndcg"]
    with pytest.raises(ValueError, match="X_test has 75 rows but y_test has 74 labels"):
        ActiveRankLearner().simulate(X, y, g, X, y[:-1], g, n_rounds=1)


def test_simulate_progress_true_reports_on_stderr(capsys):
    """Fails on the old main: progress=True ran one round, then "'bool' object is not
    callable"; anything not a callable or a bool is refused before the first round."""
    X, y, g = _data(n_queries=2)
    ActiveRankLearner(per_query=2, random_state=0).simulate(X, y, g, X, y, g, n_rounds=2,
                                                            progress=True)
    err = capsys.readouterr().err
    assert "ActiveRankLearner" in err and "2/2" in err and "lossmin round 2" in err
    seen = []
    ActiveRankLearner(per_query=2, random_state=0).simulate(
        X, y, g, X, y, g, n_rounds=2, progress=lambda *a: seen.append(a))
    assert seen == [(1, 2, "lossmin round 1"), (2, 2, "lossmin round 2")]
    for off in (None, False):
        ActiveRankLearner(per_query=2, random_state=0).simulate(X, y, g, X, y, g, n_rounds=1,
                                                                progress=off)
    assert capsys.readouterr().err == ""
    with pytest.raises(ValueError, match="progress must be None, a bool or a callable"):
        ActiveRankLearner().simulate(X, y, g, X, y, g, n_rounds=1, progress="yes")


@pytest.mark.parametrize("sparse", [False, True])
def test_a_different_pool_of_the_same_shape_is_refused(sparse):
    """Fails on the old main: query(X_pool=-X) after teach(..., X_pool=X) went on with the
    first pool (only the shape was compared), and returned the same rows."""
    X, y, g = _data(n_queries=2)
    pool = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0)) if sparse else X.copy()
    learner = ActiveRankLearner(per_query=2, random_state=0)
    seed = _seed(y, g)
    learner.teach(seed, y[seed], X_pool=pool, groups=g)
    first = learner.query()
    # the same values are the same pool: a copy, the other format, the object itself
    for same in (pool, pool.copy(), pool.toarray() if sparse else sp.csr_matrix(pool)):
        np.testing.assert_array_equal(learner.query(X_pool=same, groups=g), first)
    other = pool.copy()
    if sparse:
        other.data[0] += 5.0  # (a stored entry: the structure stays)
    else:
        other[0, 0] += 5.0
    for new in (-pool, other, pool[::-1]):
        with pytest.raises(ValueError, match=r"other values than this learner's pool.*"
                                             r"call reset\(\) for a new pool"):
            learner.query(X_pool=new)
        with pytest.raises(ValueError, match="call reset"):
            learner.teach([int(np.flatnonzero(~learner.labeled_mask_)[0])], [0.0], X_pool=new)
    if not sparse:  # the bound array changed in place since is another pool too
        pool[1, 1] += 1.0
        with pytest.raises(ValueError, match="other values"):
            learner.query(X_pool=pool)
    learner.reset().teach(seed, y[seed], X_pool=-pool, groups=g)
    assert learner.query().size
