"""scikit-learn conformance of every public estimator.

The estimators come from ``birank.__all__`` (see ``tests/_public.py``), so one
that lands later is checked with no edit here.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from _public import (is_binary_ranker, make_fast, public_estimator_classes,
                     supports_groups)
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from birank.metrics import make_pairwise_scorer, pairwise_accuracy

ESTIMATORS = [make_fast(cls) for cls in public_estimator_classes()]
IDS = [type(e).__name__ for e in ESTIMATORS]


def _variants():
    """Settings that take other code paths than the defaults (another solver, kernel,
    covariance, buffer, loss): checked here too, so that every scikit-learn check runs
    in this one place, once per configuration."""
    from birank import (BBR, CBR, LCBR, OAM, OPAUC, PGD, ActiveRankSVM, PrunedRankSVM,
                        RankSVM, WeightedSVM)

    return [
        RankSVM(loss="hinge"),
        BBR(radius=0.5, solver="cg"),
        LCBR(n_pairs=500, radius=0.5, solver="cg", random_state=0),
        WeightedSVM(fit_intercept=True, loss="squared_hinge", random_state=0, tol=1e-10,
                    max_iter=100000),
        ActiveRankSVM(budget=200, batch_size=50, strategy="hard-close", random_state=0),
        ActiveRankSVM(budget=200, batch_size=50, pair_weight=0.5, fit_intercept=True,
                      strategy="soft-close", random_state=0),
        PrunedRankSVM(kernel="rbf", random_state=0),
        PrunedRankSVM(n_closest="all", kernel="rbf"),
        CBR(covariance="diag", buffer="reservoir", random_state=0),
        OAM(variant="gra", C=0.001, random_state=0),
        OPAUC(rank=5, eta0=0.01, random_state=0),
        PGD(eta0=0.1, buffer="reservoir", random_state=0),
    ]


_SGD = "SGD: a weight equals repeated rows in expectation only"
_ONLINE = "online: a weight scales one step, while k copies of a row take k steps"
_SAMPLED = "sampled pairs: a weight of k equals k copies in distribution, not draw for draw"
_WEIGHT_CHECKS = ("check_sample_weight_equivalence_on_dense_data",
                  "check_sample_weight_equivalence_on_sparse_data")
# class name -> {check: reason}; the one list of expected failures (docs/reliability.md)
EXPECTED_FAILURES = {
    "CombinedRanking": dict.fromkeys(_WEIGHT_CHECKS, _SGD),
}


def _expected_failed_checks(estimator):
    from birank.online._stream import StreamRanker

    out = dict(EXPECTED_FAILURES.get(type(estimator).__name__, {}))
    if isinstance(estimator, StreamRanker):  # every one-pass streaming learner, by design
        out.update(dict.fromkeys(_WEIGHT_CHECKS, _ONLINE))
    if type(estimator).__name__ == "LCBR" and estimator.radius is not None:
        # (with the default ridge the check passes on its data; with a ball constraint
        # the sampled pairs' solution moves with the draws)
        out.update(dict.fromkeys(_WEIGHT_CHECKS, _SAMPLED))
    return out


@parametrize_with_checks(ESTIMATORS + _variants(),
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_check_estimator(estimator, check):
    with warnings.catch_warnings():
        # budgets capped on tiny check data, scale and chance warnings on random data;
        # PrunedRankSVM's RBF dual CD on the checks' degenerate data (converged models
        # are tested elsewhere)
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def _data(n=160, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = (X @ w + 0.5 * rng.standard_normal(n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_pipeline_gridsearch_cross_val_clone(estimator):
    X, y = _data()
    pipe = make_pipeline(StandardScaler(), clone(estimator))
    scores = cross_val_score(pipe, X, y, cv=3, scoring="roc_auc")
    assert scores.shape == (3,) and np.all(scores > 0.7)
    # a grid over one real parameter the estimator has (its first float one)
    params = clone(estimator).get_params()
    name = next((k for k in ("C", "alpha", "radius") if isinstance(params.get(k), float)),
                None)
    grid = {} if name is None else {f"{type(estimator).__name__.lower()}__{name}":
                                    [params[name], params[name] * 2]}
    search = GridSearchCV(pipe, grid, cv=3, scoring="roc_auc").fit(X, y)
    assert search.best_score_ > 0.7
    c = clone(search.best_estimator_)
    assert c.get_params(deep=False).keys() == search.best_estimator_.get_params(deep=False).keys()
    assert not hasattr(c[-1], "coef_")


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_fitted_attributes(estimator):
    import pandas as pd  # a dev dependency: feature names come from DataFrame columns
    X, y = _data()
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    labels = np.where(y == 1, "yes", "no")
    est = clone(estimator)
    with warnings.catch_warnings():
        # a fit on a DataFrame that scores its own validated (array) X through the public
        # methods warns that the feature names are missing (PrunedRankSVM did)
        warnings.filterwarnings("error", message=".*feature names")
        if is_binary_ranker(est):
            est.fit(frame, labels)
            assert list(est.classes_) == ["no", "yes"]
            assert set(est.predict(frame)) <= {"no", "yes"}
            if hasattr(est, "predict_proba"):
                est.predict_proba(frame)
        else:
            est.fit(frame, y)
        est.decision_function(frame)
    assert est.n_features_in_ == X.shape[1]
    assert list(est.feature_names_in_) == list(frame.columns)
    assert est.coef_.shape == (X.shape[1],)
    # sparse input gives the same model as dense input
    est2 = clone(estimator).fit(sp.csr_matrix(X), labels if is_binary_ranker(est) else y)
    np.testing.assert_allclose(est2.decision_function(X), est.decision_function(frame),
                               rtol=1e-6, atol=1e-8)


GROUP_RANKERS = [e for e in ESTIMATORS if supports_groups(e)]


@pytest.mark.skipif(not GROUP_RANKERS, reason="no public estimator takes groups")
@pytest.mark.parametrize("estimator", GROUP_RANKERS, ids=[type(e).__name__ for e in GROUP_RANKERS])
def test_groups_through_gridsearch_with_metadata_routing(estimator):
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(12), 10)
    X = rng.standard_normal((120, 5))
    # labels depend on the query (an offset the features do not see) and, within a
    # query, on X: only within-query pairs are learnable
    y = np.round(X @ rng.standard_normal(5) + 0.3 * rng.standard_normal(120)) \
        + 5 * rng.integers(0, 3, 12)[groups]
    calls = []

    class Spy(type(estimator)):
        def fit(self, X, y, groups=None, **kw):  # only groups is routed (requested) here
            calls.append(groups)
            return super().fit(X, y, groups=groups, **kw)

    if "C" not in estimator.get_params() and estimator.get_params().get("estimator", 0) is None:
        # a meta-estimator (ActiveRankLearner): its default ranker, RankSVM, made
        # explicit, so that the ranker's C is a parameter (estimator__C) to tune
        from birank import RankSVM
        estimator = clone(estimator).set_params(estimator=RankSVM())
    spy = Spy(**estimator.get_params(deep=False))
    # C, or the wrapped ranker's C for a meta-estimator (ActiveRankLearner)
    c_name = "C" if "C" in spy.get_params(deep=False) else next(
        k for k in spy.get_params() if k.endswith("__C"))
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_pairwise_scorer()
        search = GridSearchCV(spy.set_fit_request(groups=True),
                              {c_name: [0.1, 1.0]}, cv=GroupKFold(n_splits=3), scoring=scorer)
        search.fit(X, y, groups=groups)
    # the estimator got the groups of its training folds (never None)
    assert calls and all(g is not None for g in calls)
    # the scorer scored within queries: recompute one fold by hand
    train, test = next(GroupKFold(n_splits=3).split(X, y, groups))
    model = clone(estimator).set_params(**{c_name: search.cv_results_[f"param_{c_name}"][0]})
    model.fit(X[train], y[train], groups=groups[train])
    expected = pairwise_accuracy(y[test], model.decision_function(X[test]), groups=groups[test])
    assert search.cv_results_["split0_test_score"][0] == pytest.approx(expected)
    across = pairwise_accuracy(y[test], model.decision_function(X[test]))
    assert expected != pytest.approx(across)  # within-query scoring is not the global one


@pytest.mark.skipif(not GROUP_RANKERS, reason="no public estimator takes groups")
@pytest.mark.parametrize("estimator", GROUP_RANKERS, ids=[type(e).__name__ for e in GROUP_RANKERS])
def test_score_in_a_pipeline_with_metadata_routing(estimator):
    """Pipeline.score passes sample_weight by name when routing is on: a ranker's score
    takes it (keyword-only, with groups), weighting a pair by w_i w_j; score requests
    route groups and weights to it."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(1)
    X = rng.standard_normal((90, 4))
    y = np.round(X @ rng.standard_normal(4) + 0.5 * rng.standard_normal(90))
    groups = np.repeat(np.arange(9), 10)
    w = rng.uniform(0.5, 2.0, 90)
    model = clone(estimator).fit(X, y)
    s = model.decision_function(X)
    assert model.score(X, y, sample_weight=w, groups=groups) == pytest.approx(
        pairwise_accuracy(y, s, groups=groups, sample_weight=w))
    assert model.score(X, y, sample_weight=w) != pytest.approx(model.score(X, y))
    with pytest.raises(TypeError):
        model.score(X, y, groups)  # positional: weights or query ids? refused
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(StandardScaler(), clone(estimator)).fit(X, y)
        scaled = pipe[-1].decision_function(pipe[0].transform(X))
        assert pipe.score(X, y) == pytest.approx(pairwise_accuracy(y, scaled))
        pipe[-1].set_score_request(sample_weight=True, groups=True)
        assert pipe.score(X, y, sample_weight=w, groups=groups) == pytest.approx(
            pairwise_accuracy(y, scaled, groups=groups, sample_weight=w))
