"""The decision cut after partial_fit (birank._threshold_tail): every chunk counts, not the last.

Fails on the code before: BBR and LCBR set intercept_ and probability_ from the last
chunk alone (BBR predicted every row positive after a chunk of each class),
CombinedRanking had no probability_ after one-class chunks, and the online learners'
cut ignored sample_weight.
"""

import numpy as np
import pytest
from _public import public_estimator_classes
from sklearn.base import clone

from birank import BBR, OAM, CombinedRanking
from birank._threshold_tail import THRESHOLD_TAIL, ThresholdTail
from birank.base import set_two_class_output
from birank.online._stream import StreamRanker


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    y = (X @ np.arange(1.0, 6.0) + 2.0 * rng.standard_normal(n) > 1.0).astype(int)
    return X, y


class _Cut:
    """What set_two_class_output sets on an object, for comparison."""


def _cut_on(X, y, coef, sample_weight=None):
    out = _Cut()
    set_two_class_output(out, X @ coef, y.astype(np.int8), sample_weight=sample_weight)
    return out.intercept_, out.probability_


def test_bbr_partial_fit_by_class_sets_the_cut_of_fit():
    X, y = _data()
    ref = BBR().fit(X, y)
    model = BBR()
    model.partial_fit(X[y == 0], y[y == 0], classes=[0, 1])
    model.partial_fit(X[y == 1], y[y == 1])
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-10)
    assert model.intercept_ == pytest.approx(ref.intercept_, rel=1e-8)
    np.testing.assert_allclose(model.probability_, ref.probability_, rtol=1e-6)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


@pytest.mark.parametrize("make", [lambda: BBR(), lambda: OAM(random_state=0),
                                  lambda: CombinedRanking(fit_intercept=False, random_state=0)],
                         ids=["BBR", "OAM", "CRR"])
def test_cut_after_chunks_is_the_cut_on_all_their_rows(make):
    """Fewer than THRESHOLD_TAIL rows a class: the cut is the one set on every row seen,
    with its weight, at the final coefficients."""
    X, y = _data()
    w = np.random.default_rng(1).uniform(0.2, 3.0, y.shape[0])
    model = make()
    for k in range(0, 400, 100):
        model.partial_fit(X[k:k + 100], y[k:k + 100], classes=[0, 1], sample_weight=w[k:k + 100])
    intercept, probability = _cut_on(X, y, model.coef_, w)
    assert model.intercept_ == pytest.approx(intercept, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(model.probability_, probability, rtol=1e-6)


def test_online_cut_follows_sample_weight():
    """Weight 10 on the positives moves the cut down (more rows predicted positive), as
    it does for fit of the batch rankers."""
    X, y = _data()
    plain = OAM(random_state=0).fit(X, y)
    heavy = OAM(random_state=0).fit(X, y, sample_weight=np.where(y == 1, 10.0, 1.0))
    assert heavy.predict(X).mean() > plain.predict(X).mean() + 0.1


def test_combined_ranking_one_class_chunks_keep_a_sigmoid_and_a_cut():
    X, y = _data()
    for fit_intercept in (True, False):
        model = CombinedRanking(fit_intercept=fit_intercept, random_state=0)
        model.partial_fit(X[y == 0], y[y == 0], classes=[0, 1])
        after_first = model.predict_proba(X[:3])  # one class seen: the prior's sigmoid
        assert np.all(np.isfinite(after_first))
        model.partial_fit(X[y == 1], y[y == 1])
        proba = model.predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        if not fit_intercept:  # the cut of both chunks' rows, not 0
            intercept, _ = _cut_on(X, y, model.coef_)
            assert model.intercept_ == pytest.approx(intercept, rel=1e-9, abs=1e-12)
            assert model.intercept_ != 0.0


def test_tail_keeps_the_last_rows_and_each_class_total():
    """Beyond THRESHOLD_TAIL rows a class, the last ones, weighted to the class's total."""
    rng = np.random.default_rng(2)
    n = 3 * THRESHOLD_TAIL
    X = rng.standard_normal((n, 3))
    y = (rng.random(n) < 0.6).astype(np.int8)
    w = rng.uniform(0.5, 2.0, n)
    tail = ThresholdTail()
    for k in range(0, n, 700):
        tail.update(X[k:k + 700], y[k:k + 700], w[k:k + 700])
    for c in (0, 1):
        last = np.flatnonzero(y == c)[-THRESHOLD_TAIL:]
        np.testing.assert_array_equal(tail.rows[c].toarray(), X[last])
        np.testing.assert_array_equal(tail.weights[c], w[last])
        assert tail.seen[c] == pytest.approx(w[y == c].sum(), rel=1e-12)

    class Spy:
        def _set_threshold(self, X, y01, learned_bias=False, sample_weight=None):
            self.got = (X, y01, sample_weight)

    spy = Spy()
    tail.set_output(spy)
    _, labels, weights = spy.got
    for c in (0, 1):
        assert weights[labels == c].sum() == pytest.approx(w[y == c].sum(), rel=1e-12)


def test_refit_forgets_the_tail():
    X, y = _data()
    model = BBR()
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    refit = clone(model).fit(X[200:], y[200:])
    model.fit(X[200:], y[200:])
    assert model.intercept_ == refit.intercept_
    np.testing.assert_array_equal(model.probability_, refit.probability_)


STREAM_LEARNERS = [c for c in public_estimator_classes() if issubclass(c, StreamRanker)]


@pytest.mark.parametrize("cls", STREAM_LEARNERS, ids=lambda c: c.__name__)
def test_zero_weight_rows_are_the_rows_removed(cls):
    """Every online learner: rows of weight 0 enter no statistic, the "auto" step sizes
    included (AdaOAM, OPAUC, OnlineUniExp, SPAM and PGD resolved eta0="auto" over every
    row: scores differed by up to 0.017). The cut is the same too."""
    X, y = _data()
    w = np.ones(y.shape[0])
    w[::7] = 0.0
    a = cls(random_state=0).fit(X, y, sample_weight=w)
    b = cls(random_state=0).fit(X[w > 0], y[w > 0])
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_divergence_is_named_by_every_online_learner():
    """AdaOAM with a huge step ended in the metrics' "y_score contains NaN" (from its training
    AUC check) or "scores must be finite" (partial_fit): every online learner now names the
    parameter to lower."""
    from birank import AdaOAM

    X, y = _data()
    for call in (lambda m: m.fit(X, y), lambda m: m.partial_fit(X, y, classes=[0, 1])):
        with pytest.raises(ValueError, match=r"AdaOAM: the weights diverged .*\(eta0=1e\+200\)"):
            call(AdaOAM(eta0=1e200))


def test_pgd_auto_step_is_capped_by_alpha():
    """PGD(alpha=100) resolved eta0='auto' beyond 1/alpha: the L2 step flipped w (weights
    near 1e241, training AUC 0.38); the cap is AdaOAM's."""
    from birank import PGD

    X, y = _data()
    model = PGD(alpha=100.0, random_state=0).fit(X, y)
    assert model.eta0_ <= 1 / 100.0
    assert np.all(np.abs(model.coef_) < 1e3) and model.score(X, y) > 0.8
