"""Input guarantees at the public boundary: canonical sparse input, the scale check,
numeric labels for graded rankers, one rule each for weights and query ids, and model
files checked field by field. Each test's docstring says what the main before the fix
did (every one of these failed there)."""

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from _public import make_fast, public_estimator_classes, supports_groups
from sklearn.base import clone

import birank
from birank._validation import as_csr_or_dense
from birank.model_io import load_model, save_model

ESTIMATORS = [make_fast(cls) for cls in public_estimator_classes()]
IDS = [type(e).__name__ for e in ESTIMATORS]
each = pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
DATA = Path(__file__).parent / "data"


def _takes_weights(est):
    import inspect

    return "sample_weight" in inspect.signature(est.fit).parameters


WEIGHTED = [e for e in ESTIMATORS if _takes_weights(e)]
each_weighted = pytest.mark.parametrize("estimator", WEIGHTED,
                                        ids=[type(e).__name__ for e in WEIGHTED])


def _data(n=80, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _quiet_fit(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clone(est).fit(X, y, **kw)


# ------------------------------------------------------------ duplicate CSR entries
def _with_duplicates(X):
    """The same matrix as CSR, every stored entry split into two halves (not canonical)."""
    coo = sp.coo_matrix(X)
    r = np.r_[coo.row, coo.row]
    c = np.r_[coo.col, coo.col]
    v = np.r_[coo.data / 2, coo.data / 2]
    order = np.lexsort((c, r))
    indptr = np.r_[0, np.cumsum(np.bincount(r, minlength=X.shape[0]))]
    D = sp.csr_matrix((v[order], c[order], indptr), shape=X.shape)
    assert not D.has_canonical_format and abs(D - sp.csr_matrix(X)).max() == 0
    return D


@each
def test_duplicate_csr_entries_give_the_model_of_the_canonical_matrix(estimator):
    """Fails on the old main: OAM, OPAUC, ActiveRankSVM and SPAM read the two halves
    of an entry as separate features (OAM coef[:3] 4.84/0.98/0.46 vs 1.92/0.29/0.12)."""
    X, y = _data()
    A = sp.csr_matrix(X)
    D = _with_duplicates(X)
    a = _quiet_fit(estimator, A, y)
    b = _quiet_fit(estimator, D, y)
    np.testing.assert_array_equal(a.decision_function(A), b.decision_function(A))
    # and scoring a matrix with duplicates scores the matrix it equals
    np.testing.assert_array_equal(a.decision_function(D), a.decision_function(A))


def test_canonical_csr_is_not_copied():
    """Canonicalization costs nothing for canonical input: the same object comes back."""
    X = sp.random(50, 20, density=0.2, format="csr", random_state=0)
    assert X.has_canonical_format
    assert as_csr_or_dense(X) is X
    D = _with_duplicates(X.toarray())
    C = as_csr_or_dense(D)
    assert C is not D and C.has_canonical_format and not D.has_canonical_format  # input untouched


# ------------------------------------------------------------------ extreme scales
@each
@pytest.mark.parametrize("sparse", [False, True])
def test_huge_values_are_refused_with_a_scaling_hint(estimator, sparse):
    """Fails on the old main: X * 1e300 gave all-zero coefficients (RankSVM, WeightedSVM,
    OAM, ...), NaN scores (CombinedRanking, PrunedRankSVM), LinAlgError (BBR, LCBR) or
    "y_score contains NaN" (AdaOAM, CBR, PGD)."""
    X, y = _data()
    X = X * 1e300
    with pytest.raises(ValueError, match=r"products of such entries overflow.*Scale the "
                                         r"features"):
        _quiet_fit(estimator, sp.csr_matrix(X) if sparse else X, y)


@each
def test_denormal_scale_warns(estimator):
    """Fails on the old main: X * 1e-310 gave constant scores without any warning."""
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            clone(estimator).fit(X * 1e-310, y)
        except ValueError:
            pass  # a clear refusal is fine too; the warning must come first
    assert any("underflow" in str(w.message) and "Scale the features" in str(w.message)
               for w in caught), [str(w.message) for w in caught]


def test_moderate_scales_are_not_flagged():
    """The bounds leave ordinary data alone: 1e-40 and 1e40 fit without the scale message."""
    X, y = _data()
    for s in (1e-40, 1e40):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            birank.RankSVM().fit(X * s, y)


# ------------------------------------------------------------ graded-ranker labels
@pytest.mark.parametrize("cls", [birank.RankSVM, birank.PrunedRankSVM])
def test_graded_rankers_refuse_string_labels(cls):
    """Fails on the old main for RankSVM: "high"/"low" were sorted alphabetically and the
    ranking came out inverted (AUC 0.047); PrunedRankSVM refused them with another message."""
    X, y = _data()
    labels = np.where(y == 1, "high", "low")
    with pytest.raises(ValueError, match="numeric relevance labels"):
        cls().fit(X, labels)
    # numbers in any numeric dtype (and object arrays of numbers) are fine
    for yy in (y, y.astype(bool), y.astype(np.float32), y.astype(object)):
        assert cls().fit(X, yy).score(X, y) > 0.8


# --------------------------------------------------------------- weights: one rule
@each_weighted
def test_a_class_with_zero_weight_is_refused_by_every_estimator(estimator):
    """Fails on the old main: RankSVM, BBR, LCBR and CombinedRanking fitted a constant
    model silently; eight others refused, each with its own message."""
    X, y = _data()
    w = np.where(y == 1, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"sample_weight is zero on every row of class 1"):
        _quiet_fit(estimator, X, y, sample_weight=w)


@each_weighted
def test_scalar_weights_broadcast_and_column_weights_are_refused(estimator):
    """Fails on the old main: a scalar was refused by the streaming learners and
    WeightedSVM and accepted by the others; (n, 1) the other way round."""
    X, y = _data()
    a = _quiet_fit(estimator, X, y, sample_weight=2.0)
    b = _quiet_fit(estimator, X, y, sample_weight=np.full(X.shape[0], 2.0))
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    with pytest.raises(ValueError, match=r"sample_weight must be a scalar or a 1-D array"):
        _quiet_fit(estimator, X, y, sample_weight=np.ones((X.shape[0], 1)))


def test_lcbr_unit_weights_equal_no_weights():
    """Fails on the old main: LCBR(sample_weight=ones) drew its pairs through the weighted
    sampler and differed from the unweighted fit."""
    X, y = _data(200)
    a = birank.LCBR(n_pairs=300, random_state=0).fit(X, y)
    b = birank.LCBR(n_pairs=300, random_state=0).fit(X, y, sample_weight=np.ones(200))
    np.testing.assert_array_equal(a.coef_, b.coef_)


# ------------------------------------------------------------------------ label dtypes
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=[type(e).__name__ for e in ESTIMATORS])
@pytest.mark.parametrize("dtype", [np.float16, np.longdouble])
def test_labels_of_any_float_width_give_the_float64_model(estimator, dtype):
    """Fails on the old main: float16 labels crashed inside numba (NotImplementedError),
    long double ones with a numba TypingError, in every estimator but ActiveRankLearner.
    They now take the sorting path and give the same model as float64 labels."""
    X, y = _data()
    a = _quiet_fit(estimator, X, y.astype(dtype))
    b = _quiet_fit(estimator, X, y.astype(np.float64))
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@each_weighted
def test_complex_weights_are_refused(estimator):
    """Fails on the old main: the imaginary part was dropped with numpy's ComplexWarning."""
    X, y = _data()
    with pytest.raises(ValueError, match="complex data is not supported"):
        _quiet_fit(estimator, X, y, sample_weight=np.ones(len(y)) + 1j)


@pytest.mark.parametrize("cls", [birank.RankSVM, birank.PrunedRankSVM])
def test_a_missing_graded_label_is_named(cls):
    """Fails on the old main: PrunedRankSVM raised numpy's TypeError ("'<' not supported
    between 'NoneType' and 'int'"), RankSVM quoted "values such as [1, 0, 0]"."""
    X, y = _data()
    y = y.astype(object)
    y[7] = None
    with pytest.raises(ValueError, match="y contains None .* at index 7"):
        cls().fit(X, y)


RANDOMIZED = [e for e in ESTIMATORS if "random_state" in e.get_params()]


@pytest.mark.parametrize("estimator", RANDOMIZED, ids=[type(e).__name__ for e in RANDOMIZED])
@pytest.mark.parametrize("seed", [-1, True])
def test_a_negative_or_bool_seed_is_refused_by_name(estimator, seed):
    """Fails on the old main: -1 passed the parameter check and failed inside numpy
    ("expected non-negative integer"), True as "random_state must be ..." without the
    estimator's name."""
    X, y = _data()
    with pytest.raises(ValueError, match=f"{type(estimator).__name__}: parameter "
                                         "'random_state' must be"):
        _quiet_fit(clone(estimator).set_params(random_state=seed), X, y)


# ------------------------------------------------------------------------ query ids
@pytest.mark.parametrize("cls", [c for c in public_estimator_classes()
                                 if supports_groups(make_fast(c))])
def test_nan_query_ids_are_refused(cls):
    """Fails on the old main: RankSVM, PrunedRankSVM and ActiveRankLearner accepted NaN
    query ids (NaN != NaN: every such row formed a query of its own)."""
    X, y = _data()
    g = np.repeat(np.arange(8.0), 10)
    g[3] = np.nan
    with pytest.raises(ValueError, match="groups contains NaN or infinity"):
        make_fast(cls).fit(X, y, groups=g)


@pytest.mark.parametrize("cls", [c for c in public_estimator_classes()
                                 if supports_groups(make_fast(c))])
@pytest.mark.parametrize("kind", ["none", "mixed"])
def test_missing_or_incomparable_query_ids_are_refused(cls, kind):
    """A None id, or ids of two types (strings and ints), got numpy's TypeError from the
    sort deep inside the fit; now one ValueError that names the problem."""
    X, y = _data()
    g = np.repeat(np.arange(8), 10).astype(object)
    if kind == "none":
        g[13] = None
        match = "groups contains None .* at index 13"
    else:
        g[:40] = [f"q{v}" for v in g[:40]]
        match = "groups mixes query ids of types that do not compare \\(int, str\\)"
    with pytest.raises(ValueError, match=match):
        make_fast(cls).fit(X, y, groups=g)


def test_group_codes_number_ids_in_sorted_order_with_one_sort():
    """The one helper every fit, metric and CLI path takes query ids through: codes 0..G-1
    in the ids' sorted order, equal ids equal codes (the same as numpy's unique), None
    one group; the metrics refuse mixed ids with the estimators' message."""
    from birank._validation import codes_of, group_codes
    from birank.metrics import ndcg_at_k, roc_auc_per_group

    ids = np.array(["q9", "q10", "q9", "a", "q10"], dtype=object)
    codes = group_codes(ids, 5)
    assert codes.dtype == np.int64 and codes.flags.c_contiguous
    assert codes.tolist() == np.unique(ids, return_inverse=True)[1].tolist() == [2, 1, 2, 0, 1]
    assert group_codes(None, 3).tolist() == [0, 0, 0]
    assert codes_of(np.array([[3.5], [1.0], [3.5]])).tolist() == [1, 0, 1]
    mixed = np.array([1, "a", 1, "a"], dtype=object)
    with pytest.raises(ValueError, match="mixes query ids of types that do not compare"):
        group_codes(mixed, 4)
    with pytest.raises(ValueError, match="mixes query ids of types that do not compare"):
        roc_auc_per_group([0, 1, 0, 1], [0.1, 0.9, 0.3, 0.2], mixed)
    with pytest.raises(ValueError, match="groups contains None"):
        ndcg_at_k([0, 1, 0, 1], [0.1, 0.9, 0.3, 0.2], k=2,
                  groups=np.array([1, None, 1, 2], dtype=object))


def test_integer_ids_numbered_without_a_sort_as_numpy_unique_numbers_them(monkeypatch):
    # integer ids over a range up to 4 rows wide are numbered by which values occur
    # (no sort); wider ranges, 64-bit unsigned and other kinds go through np.unique:
    # the codes are the same either way. The rows grouped by one counting pass
    # (forced here on small data) as numpy's stable argsort groups them
    import birank._lexsort as lexsort
    from birank._lexsort import group_bounds, rows_by_group
    from birank._validation import codes_of

    monkeypatch.setattr(lexsort, "LEXSORT_RADIX_MIN", 0)
    rng = np.random.default_rng(8)
    cases = [rng.integers(-5, 50, 300), rng.integers(0, 10**9, 50), np.array([7]),
             np.array([True, False, True]), rng.integers(0, 3, 20).astype(np.uint8),
             rng.integers(0, 3, 20).astype(np.int16), np.array([2**62, -2**62, 0]),
             np.array([2**64 - 1, 2**64 - 3, 5], dtype=np.uint64),
             np.array([0, 12, 0]), np.array([0, 13, 0])]  # (a range of 4n and just over)
    for ids in cases:
        codes = codes_of(ids)
        assert codes.dtype == np.int64 and codes.flags.c_contiguous
        np.testing.assert_array_equal(codes, np.unique(ids, return_inverse=True)[1])
        # the rows grouped (stable) and the groups' bounds, as numpy gives them
        np.testing.assert_array_equal(rows_by_group(codes), np.argsort(codes, kind="stable"))
        np.testing.assert_array_equal(group_bounds(codes),
                                      np.concatenate(([0], np.cumsum(np.bincount(codes)))))


def test_active_rank_learner_has_score():
    """Fails on the old main: ActiveRankLearner had no score (GridSearchCV needed a scorer)."""
    from birank.metrics import pairwise_accuracy

    X, y = _data()
    g = np.repeat(np.arange(4), 20)
    est = birank.ActiveRankLearner().fit(X, y, groups=g)
    assert est.score(X, y, groups=g) == pytest.approx(
        pairwise_accuracy(y, est.decision_function(X), groups=g))
    assert est.score(X, y) > 0.8


def test_online_uniexp_warns_when_its_weights_blow_up():
    """Fails on the old main: eta0=1 reached coefficients of 1e13 without a word."""
    X, y = birank.datasets.load_heart()
    with pytest.warns(UserWarning, match="hit the exponent cap"):
        birank.OnlineUniExp(eta0=1.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        birank.OnlineUniExp(eta0=0.01).fit(X, y)


# ------------------------------------------------------------------------ model files
def test_a_model_file_of_the_previous_format_still_loads():
    """tests/data/ranksvm_v0_1_0_dev0.json was written by birank before model files named
    estimators through the registry (it records "birank.batch.ranksvm:RankSVM")."""
    model = load_model(DATA / "ranksvm_v0_1_0_dev0.json")
    assert model.doc["estimator"] == "birank.batch.ranksvm:RankSVM"
    est = model.estimator()
    assert type(est) is birank.RankSVM and est.C == 1.0
    X, _ = birank.datasets.load_heart()
    X = X[:60, :5]
    np.testing.assert_array_equal(est.decision_function(X), model.decision_function(X))


def test_model_files_name_the_registered_estimator(tmp_path):
    """Fails on the old main: files recorded "module:Class", so moving a class broke them."""
    X, y = _data()
    path = save_model(birank.WeightedSVM(random_state=0).fit(X, y), tmp_path / "m.json")
    assert json.loads(path.read_text())["estimator"] == "WeightedSVM"
    assert type(load_model(path).estimator()) is birank.WeightedSVM


def _tampered(tmp_path, edit, raw=None):
    src = DATA / "ranksvm_v0_1_0_dev0.json"
    path = tmp_path / "tampered.json"
    if raw is not None:
        path.write_text(raw)
        return path
    doc = json.loads(src.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))
    return path


TAMPERED = {
    "huge coefficient": (lambda d: d["coef"].__setitem__(1, 10**400), r"coef\[1\] is not a "
                         r"finite float64"),
    "huge intercept": (lambda d: d.__setitem__("intercept", -10**400), "intercept is not a "
                       "finite"),
    "os:system": (lambda d: d.__setitem__("estimator", "os:system"),
                  "estimator: 'os:system' is not a registered birank estimator"),
    "unregistered class": (lambda d: d.__setitem__("estimator", "sklearn.svm:LinearSVC"),
                           "not a registered birank estimator"),
    "classes [1, 1]": (lambda d: d.__setitem__("classes", [1, 1]), "two different labels"),
    "three classes": (lambda d: d.__setitem__("classes", [0, 1, 2]), "list of two labels"),
    "non-numeric C": (lambda d: d["params"].__setitem__("C", "big"), r"params: .*'C' must be"),
    "negative C": (lambda d: d["params"].__setitem__("C", -1.0), r"params: .*'C' must be"),
    "unknown parameter": (lambda d: d["params"].__setitem__("kernel", "linear"),
                          "params.kernel is not a parameter of RankSVM"),
    "nested parameter": (lambda d: d["params"].__setitem__("C", {"a": [1]}),
                         "params.C must be a number"),
    "rbf rebuilt as linear": (lambda d: (d.__setitem__("estimator", "PrunedRankSVM"),
                                         d["params"].clear(),
                                         d["params"].__setitem__("kernel", "rbf")),
                              "params.kernel is 'rbf'"),
    "n_features bool": (lambda d: d.__setitem__("n_features", True), "n_features must be"),
    "unknown field": (lambda d: d.__setitem__("pickle", "x"), "unknown field 'pickle'"),
    "extra not an object": (lambda d: d.__setitem__("extra", [1]), "extra must be"),
    "feature_names too short": (lambda d: d.__setitem__("feature_names", ["a", "b"]),
                                "feature_names must be a list of 5 strings"),
    "feature_names not strings": (lambda d: d.__setitem__("feature_names", [0, 1, 2, 3, 4]),
                                  "feature_names must be a list of 5 strings"),
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_tampered_model_files_are_refused_naming_file_and_field(tmp_path, case):
    """Fails on the old main: 10**400 gave an OverflowError traceback, "os:system" was
    scored by load_model (the registry was only checked by .estimator()), classes [1, 1],
    non-numeric C and an RBF PrunedRankSVM rebuilt as linear were accepted."""
    edit, message = TAMPERED[case]
    path = _tampered(tmp_path, edit)
    # parameters are checked against the class when it is rebuilt (scoring imports none)
    params_only = case in ("non-numeric C", "negative C", "unknown parameter")
    with pytest.raises(ValueError, match=message) as info:
        model = load_model(path)
        assert params_only, "load_model accepted the file"
        model.estimator()
    assert str(info.value).startswith(str(path))


def test_deeply_nested_model_file_is_refused(tmp_path):
    """Fails on the old main: RecursionError from the JSON parser."""
    path = _tampered(tmp_path, None, raw="[" * 100000 + "]" * 100000)
    with pytest.raises(ValueError, match="nested too deeply"):
        load_model(path)


def test_tampered_file_copy_keeps_the_original_loadable(tmp_path):
    """The reference file itself is valid (the tampering tests edit copies)."""
    path = tmp_path / "copy.json"
    shutil.copy(DATA / "ranksvm_v0_1_0_dev0.json", path)
    assert load_model(path).n_features == 5


# ------------------------------------------------------------- wide, very sparse X
@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_ranksvm_solves_in_the_used_columns_of_wide_sparse_data(monkeypatch, loss):
    """Fails on the old main: the Newton solver worked on vectors of n_features entries
    (200 rows x 10^6 features took 6-26 s, all of it O(n_features) vector work per
    iteration); now it works on the columns that hold an entry, and unused columns get
    weight 0, which is their exact optimum (the model equals the fit on the used
    columns alone). The speed-up is measured by benchmarks/bench_wide_sparse.py."""
    from birank.solvers import all_pairs

    rng = np.random.default_rng(0)
    n, d = 200, 10**6
    X = sp.csr_matrix((rng.random(n * 5), rng.integers(0, d, n * 5),
                       np.arange(0, n * 5 + 1, 5)), shape=(n, d))
    X.sum_duplicates()
    y = rng.integers(0, 2, n).astype(float)
    sizes = []
    real = all_pairs.PairObjective

    def spy(Xs, *args, **kw):
        sizes.append(Xs.shape[1])
        return real(Xs, *args, **kw)

    monkeypatch.setattr(all_pairs, "PairObjective", spy)
    model = birank.RankSVM(loss=loss).fit(X, y)
    used = np.unique(X.indices)
    assert sizes and max(sizes) == used.shape[0] < d / 100
    assert model.coef_.shape == (d,) and not model.coef_[np.setdiff1d(np.arange(50), used)].any()
    narrow = birank.RankSVM(loss=loss).fit(X[:, used], y)
    np.testing.assert_allclose(model.coef_[used], narrow.coef_, rtol=1e-12, atol=1e-15)


def test_active_rank_learner_refuses_string_labels_by_name():
    """ActiveRankLearner.fit on string labels raised float()'s "could not convert string";
    now RankSVM's message (relevance labels are numbers)."""
    X, y = _data()
    labels = np.where(y > 0, "high", "low")
    # (an object array too, as a pandas Series of strings gives: it went through float())
    for given in (labels, labels.astype(object)):
        with pytest.raises(ValueError, match="Unknown label type for ActiveRankLearner"):
            birank.ActiveRankLearner().fit(X, given)


# ------------------------------------------------------- score: labels outside classes_
BINARY = [e for e in ESTIMATORS if isinstance(e, birank.base.BinaryRankerMixin)]


@pytest.mark.parametrize("estimator", BINARY, ids=[type(e).__name__ for e in BINARY])
def test_score_refuses_labels_outside_classes(estimator):
    """Fails on the old main: a label not in classes_ counted as negative, silently
    (WeightedSVM: score(X, y + 1) gave 0.170 for an AUC of 0.830; y with a NaN 0.805)."""
    X, y = _data()
    est = _quiet_fit(estimator, X, y)
    assert est.score(X, y) == birank.metrics.roc_auc(y, est.decision_function(X))
    with_nan = y.astype(float)
    with_nan[3] = np.nan
    for bad, shown in ((y + 1, r"\[2\]"), (with_nan, r"\[nan\]"),
                       (np.where(y > 0, "pos", "neg"), "'neg', 'pos'"),
                       (np.r_[y[:-1], None].astype(object), "None")):
        with pytest.raises(ValueError, match=rf"{type(est).__name__}: y holds label\(s\) "
                                             rf".*{shown}.* not in classes_ \[0, 1\]"):
            est.score(X, bad)


@pytest.mark.parametrize("estimator", BINARY, ids=[type(e).__name__ for e in BINARY])
def test_score_on_one_class_names_the_label_given(estimator):
    """The message named the encoded label (False), not the one of y ('no')."""
    X, y = _data()
    est = _quiet_fit(estimator, X, np.where(y > 0, "yes", "no"))
    for label in ("no", "yes"):
        with pytest.raises(ValueError, match=rf"only one class \('{label}'\)"):
            est.score(X, np.full(y.shape[0], label))
