"""Estimators at extreme but legal settings (found by an audit): every one failed before."""

import numpy as np
import pytest

from birank import RankSVM
from birank._dots import norm


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("C", [1e150, 1e300])
def test_ranksvm_with_a_huge_C_is_the_hard_margin_fit(C):
    """C=1e150 returned w = 0 after 0 iterations, silently: |gradient|^2 overflowed, so
    the initial norm was inf and "converged"."""
    X, y = _data()
    ref = RankSVM(C=1e100).fit(X, y)
    model = RankSVM(C=C).fit(X, y)
    assert model.n_iter_ > 0
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-8)


def test_norm_neither_overflows_nor_underflows():
    for scale in (1e-300, 1e-160, 1.0, 1e160, 1e300):
        assert norm(np.array([3.0, 4.0]) * scale) == pytest.approx(5.0 * scale, rel=1e-15)
    assert norm(np.zeros(3)) == 0.0
    assert np.isnan(norm(np.array([1.0, np.nan]))) and norm(np.array([1.0, np.inf])) == np.inf


def test_float32_x_beyond_its_square_range_is_refused():
    """float32 X of 1e20 overflowed float32 squares inside the solver: one iteration,
    weights near 5e12 and no warning (the float64 limit, 1e50, was applied to it)."""
    X, y = _data()
    with pytest.raises(ValueError, match="float32 X holds values up to .* Pass X as float64"):
        RankSVM().fit((X * 1e20).astype(np.float32), y)
    ok = RankSVM().fit((X * 1e17).astype(np.float32), y)
    ref = RankSVM().fit(X * 1e17, y)
    np.testing.assert_allclose(ok.decision_function(X * 1e17), ref.decision_function(X * 1e17),
                               rtol=1e-4, atol=1e-6)


def test_bbr_eigh_refuses_moments_that_do_not_fit(monkeypatch):
    """BBR(solver='eigh') on wide sparse X formed D x D matrices until memory ran out."""
    import scipy.sparse as sp

    from birank import BBR

    monkeypatch.setattr("birank._memory.available_memory", lambda: 2**30)  # 1 GiB
    X = sp.random(40, 6000, density=0.01, format="csr", random_state=0)
    y = np.arange(40) % 2
    with pytest.raises(ValueError, match=r"solver='eigh' forms 6000 x 6000 matrices, about "
                                         r"1\.3 GiB, more than the 1\.0 GiB available"):
        BBR(solver="eigh").fit(X, y)
    assert BBR().fit(X, y).coef_.shape == (6000,)  # auto: cg, no D x D matrix


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_joblib_context_and_bad_n_jobs():
    """n_jobs=None inside joblib's parallel_config(n_jobs=2) ran the one-thread path (the
    solver), contrary to the documented scikit-learn meaning; n_jobs=0 failed inside joblib
    (and Threads.__del__ raised AttributeError); roc_auc took any n_jobs with weights."""
    import joblib
    import scipy.sparse as sp

    from birank import WeightedSVM
    from birank._parallel import Threads
    from birank.metrics import roc_auc

    rng = np.random.default_rng(0)
    X = sp.random(3000, 30, density=0.3, format="csr", random_state=0)
    y = (X @ rng.normal(size=30) > 0).astype(int)
    two = RankSVM(C=1e-3, n_jobs=2).fit(X, y)
    with joblib.parallel_config(n_jobs=2):
        ctx = RankSVM(C=1e-3).fit(X, y)
    np.testing.assert_array_equal(ctx.coef_, two.coef_)
    for bad in (0, 1.5, "x", True):
        for est in (RankSVM(n_jobs=bad), WeightedSVM(n_jobs=bad)):
            with pytest.raises(ValueError, match="'n_jobs' must be None or a nonzero int"):
                est.fit(X, y)
        with pytest.raises(ValueError, match="n_jobs must be None or a nonzero int"):
            roc_auc(y, X @ np.ones(30), sample_weight=np.ones(3000), n_jobs=bad)
    with pytest.raises(ValueError):  # and no AttributeError from __del__ (unraisable)
        Threads(0)


def test_graded_active_learner_and_pruned_pair_choices():
    """ActiveRankLearner(relevance="graded") trained nothing when every grade was on one
    side of relevance_threshold (grades 1 and 2); PrunedRankSVM(n_closest=0) trained on
    no pair without a word; n_closest="all" with the RBF kernel refused solver="newton",
    which is what it uses."""
    from birank import ActiveRankLearner, PrunedRankSVM

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    learner = ActiveRankLearner(relevance="graded").fit(X, np.array([1, 1, 2, 2]))
    assert learner.estimator_ is not None
    assert np.all(np.diff(learner.decision_function(X)) > 0)
    Xr = np.random.default_rng(0).normal(size=(20, 3))
    yr = np.arange(20) % 3
    with pytest.raises(ValueError, match="selects no pair to train on"):
        PrunedRankSVM(n_closest=0).fit(Xr, yr)
    assert PrunedRankSVM(n_closest=0, n_random=5, random_state=0).fit(Xr, yr).n_pairs_ == 5
    PrunedRankSVM(n_closest="all", kernel="rbf", solver="newton").fit(Xr, yr)


def _float_settings():
    from _public import public_estimator_classes

    cases = []
    for cls in public_estimator_classes():
        for name, value in cls().get_params().items():
            if isinstance(value, float) or (cls.__name__ == "BBR" and name == "radius"):
                cases.append(pytest.param(cls, name, id=f"{cls.__name__}-{name}"))
    return cases


@pytest.mark.parametrize("cls, name", _float_settings())
def test_a_python_int_beyond_int64_is_a_valid_float_setting(cls, name):
    # 2**70 is a legal float setting; numpy refuses such an int in np.isfinite, so a
    # check that did not convert it first raised TypeError from inside a solver
    import warnings

    from _public import make_fast

    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    y = (X[:, 0] + rng.randn(60) > 0).astype(int)
    est = make_fast(cls).set_params(**{name: 2**70})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
    except ValueError as exc:  # out of the parameter's range: said by name
        assert name in str(exc)
        return
    assert np.all(np.isfinite(est.decision_function(X)))
