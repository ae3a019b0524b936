"""WeightedSVM (shen-lin eq. (2)) against scikit-learn's LinearSVC with the same weights."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from birank import WeightedSVM
from birank.datasets import load_heart, load_ionosphere


def wsvm_objective(X, y_pm, C_point, w, b, loss):
    """Objective of eq. (2) (plus b^2/2 for a regularized bias) for per-point weights."""
    Xd = X.toarray() if sp.issparse(X) else X
    xi = np.maximum(0.0, 1.0 - y_pm * (Xd @ w + b))
    if loss == "squared_hinge":
        xi = xi**2
    return 0.5 * (w @ w + b * b) + C_point @ xi


def linearsvc_reference(X, y, C_point, loss, fit_intercept):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svc = LinearSVC(C=1.0, loss=loss, fit_intercept=fit_intercept, intercept_scaling=1.0,
                        dual=True, tol=1e-10, max_iter=1_000_000, random_state=0)
        svc.fit(X, y, sample_weight=C_point)
    return svc.coef_.ravel(), float(np.ravel(svc.intercept_)[0]) if fit_intercept else 0.0


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("weights", ["none", "balanced", "budget", "sample_weight"])
def test_objective_equals_linearsvc(loss, weights, layout):
    X, y = load_heart()
    X = layout(X)
    y_pm = np.where(y > 0, 1.0, -1.0)
    kwargs, sw = {}, None
    if weights == "balanced":
        kwargs = {"class_weight": "balanced"}
    elif weights == "budget":
        kwargs = {"budget": 500}
    elif weights == "sample_weight":
        sw = np.random.default_rng(0).uniform(0.0, 2.0, y.shape[0])
        sw[:10] = 0.0
    est = WeightedSVM(C=0.3, loss=loss, tol=1e-9, max_iter=100000, random_state=0, **kwargs)
    est.fit(X, y, sample_weight=sw)
    C_point = est.class_C_[(y > 0).astype(int)] * (1.0 if sw is None else sw)
    w_ref, b_ref = linearsvc_reference(X, y, C_point, loss, False)
    ref = wsvm_objective(X, y_pm, C_point, w_ref, 0.0, loss)
    ours = wsvm_objective(X, y_pm, C_point, est.coef_, 0.0, loss)
    assert est.objective_ == pytest.approx(ours, rel=1e-12)
    assert ours == pytest.approx(ref, rel=1e-6)
    # no bias in eq. (2): intercept_ is only the best-accuracy cut, predict = score > 0
    scores = est.decision_function(X)
    np.testing.assert_allclose(scores - est.intercept_, X @ est.coef_)
    np.testing.assert_array_equal(est.predict(X), est.classes_[(scores > 0).astype(int)])


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_fit_intercept_equals_linearsvc_with_regularized_intercept(loss, layout):
    X, y = load_ionosphere()
    X = layout(X)
    y_pm = np.where(y > 0, 1.0, -1.0)
    est = WeightedSVM(C=0.5, class_weight={-1.0: 2.0}, loss=loss, fit_intercept=True,
                      tol=1e-9, max_iter=100000, random_state=0).fit(X, y)
    C_point = est.class_C_[(y > 0).astype(int)]
    np.testing.assert_allclose(est.class_C_, [1.0, 0.5])
    w_ref, b_ref = linearsvc_reference(X, y, C_point, loss, True)
    ref = wsvm_objective(X, y_pm, C_point, w_ref, b_ref, loss)
    ours = wsvm_objective(X, y_pm, C_point, est.coef_, est.intercept_, loss)
    assert est.objective_ == pytest.approx(ours, rel=1e-12)
    assert ours == pytest.approx(ref, rel=1e-6)
    np.testing.assert_array_equal(est.predict(X),
                                  est.classes_[(est.decision_function(X) > 0).astype(int)])


def test_budget_weights_sum_to_BC_typo_fixed():
    """shen-lin 4.1 prints C- = B/(2N+) C; the corrected B/(2N-) C makes the weights sum to B C."""
    X, y = load_heart()
    n_pos, n_neg = int((y > 0).sum()), int((y < 0).sum())
    est = WeightedSVM(C=0.1, budget=8000, max_iter=50000, random_state=0).fit(X, y)
    c_neg, c_pos = est.class_C_
    assert c_pos == pytest.approx(8000 / (2 * n_pos) * 0.1)
    assert c_neg == pytest.approx(8000 / (2 * n_neg) * 0.1)
    assert n_pos * c_pos + n_neg * c_neg == pytest.approx(8000 * 0.1)
    # the printed form would not sum to B C on unbalanced data (here N+ != N-)
    assert n_pos * c_pos + n_neg * (8000 / (2 * n_pos) * 0.1) != pytest.approx(800.0)
    # balanced class weights are the same problem scaled: C * n / (2 n_class)
    bal = WeightedSVM(C=0.1 * 8000 / y.shape[0], class_weight="balanced", max_iter=50000,
                      random_state=0).fit(X, y)
    np.testing.assert_allclose(bal.class_C_, est.class_C_)


def test_dense_equals_sparse_and_reproducible():
    X, y = load_heart()
    a = WeightedSVM(C=0.1, random_state=3).fit(X, y)
    b = WeightedSVM(C=0.1, random_state=3).fit(X.toarray(), y)
    c = WeightedSVM(C=0.1, random_state=3).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(a.coef_, c.coef_)


def test_integer_sample_weight_equals_repeated_rows():
    X, y = load_heart()
    sw = np.random.default_rng(1).integers(0, 3, y.shape[0])
    rep = np.repeat(np.arange(y.shape[0]), sw)
    kw = dict(C=0.2, class_weight={1.0: 1.5}, tol=1e-10, max_iter=100000, random_state=0)
    a = WeightedSVM(**kw).fit(X, y, sample_weight=sw)
    b = WeightedSVM(**kw).fit(X[rep], y[rep])
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-7)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-9)


def test_labels_and_predict():
    X, y = load_heart()
    y_str = np.where(y > 0, "sick", "absent")
    est = WeightedSVM(C=0.1, class_weight="balanced", random_state=0).fit(X, y_str)
    assert est.classes_.tolist() == ["absent", "sick"]
    ref = WeightedSVM(C=0.1, class_weight="balanced", random_state=0).fit(X, y)
    np.testing.assert_allclose(est.coef_, ref.coef_)
    assert set(est.predict(X)) <= {"absent", "sick"}
    assert est.score(X, y_str) == pytest.approx(ref.score(X, y))
    assert est.score(X, y_str) > 0.85


def test_bad_parameters():
    X, y = load_heart()
    with pytest.raises(ValueError, match="'C'"):
        WeightedSVM(C=-1).fit(X, y)
    with pytest.raises(ValueError, match="'loss'"):
        WeightedSVM(loss="log").fit(X, y)
    with pytest.raises(ValueError, match="either budget or a class_weight dict"):
        WeightedSVM(budget=10, class_weight={1.0: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="not in the classes"):
        WeightedSVM(class_weight={7: 1.0}).fit(X, y)
    with pytest.raises(ValueError, match="sample_weight"):
        WeightedSVM().fit(X, y, sample_weight=-np.ones(y.shape[0]))
    with pytest.raises(ValueError, match="sample_weight is all zero"):
        WeightedSVM().fit(X, y, sample_weight=np.zeros(y.shape[0]))
    with pytest.raises(ValueError, match="two label values|only one class"):
        WeightedSVM().fit(X, np.arange(y.shape[0]) % 3)




def test_newton_tolerance_below_float64_is_met_without_a_false_warning():
    """A tolerance below what float64 can show (rel. gradient 1e-15) ends where the Newton
    model promises no representable decrease: converged, no warning, the optimum to the
    last digits; a run cut by max_iter still warns."""
    import warnings

    X, y = load_heart()
    ref = WeightedSVM(C=0.3, loss="squared_hinge", tol=1e-6, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        tight = WeightedSVM(C=0.3, loss="squared_hinge", tol=1e-12, max_iter=1000,
                            random_state=0).fit(X, y)
    assert tight.objective_ == pytest.approx(ref.objective_, rel=1e-12)
    assert tight.objective_ <= ref.objective_ * (1 + 1e-15)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        WeightedSVM(C=0.3, loss="squared_hinge", tol=1e-12, max_iter=1,
                    random_state=0).fit(X, y)
