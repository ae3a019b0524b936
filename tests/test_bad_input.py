"""Bad input gets a clear error and nothing is lost, for every public
estimator (discovered, see ``tests/_public.py``) and for the LIBSVM reader."""

import bz2
import gzip
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _public import (has_partial_fit, is_binary_ranker, make_fast, public_estimator_classes)
from sklearn.base import clone

from birank.cli import main
from birank.datasets import dump_svmlight, load_heart, load_svmlight
from birank.datasets import _svmlight

ESTIMATORS = [make_fast(cls) for cls in public_estimator_classes()]
IDS = [type(e).__name__ for e in ESTIMATORS]
each = pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)


def _data(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def _fit(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return clone(est).fit(X, y, **kw)


@each
@pytest.mark.parametrize("bad, message", [(np.nan, "Input X contains NaN"),
                                          (np.inf, "Input X contains infinity")])
@pytest.mark.parametrize("sparse", [False, True])
def test_non_finite_X(estimator, bad, message, sparse):
    X, y = _data()
    X[3, 1] = bad
    with pytest.raises(ValueError, match=message):
        clone(estimator).fit(sp.csr_matrix(X) if sparse else X, y)
    fitted = _fit(estimator, *_data())
    with pytest.raises(ValueError, match=message):
        fitted.decision_function(X)


@each
def test_non_finite_y(estimator):
    X, y = _data()
    y = y.astype(float)
    y[5] = np.nan
    with pytest.raises(ValueError, match="Input y contains NaN"):
        clone(estimator).fit(X, y)


@each
def test_single_class_or_all_labels_tied(estimator):
    X, _ = _data()
    y = np.ones(X.shape[0])
    if is_binary_ranker(estimator):
        # the class as the user wrote it (1.0, True), not numpy's repr (np.float64(1.0))
        with pytest.raises(ValueError, match=r"only one class \(1\.0\)"):
            clone(estimator).fit(X, y)
        with pytest.raises(ValueError, match=r"only one class \(True\)"):
            clone(estimator).fit(X, y > 0)
    else:  # a ranker of real labels: no pair to rank, said out loud
        with pytest.warns(UserWarning, match="no pair of rows has different labels"):
            clone(estimator).fit(X, y)


@each
def test_empty_one_row_and_mismatched_lengths(estimator):
    X, y = _data()
    with pytest.raises(ValueError, match=r"0 sample\(s\)"):
        clone(estimator).fit(X[:0], y[:0])
    if is_binary_ranker(estimator):
        with pytest.raises(ValueError, match="only one class"):
            clone(estimator).fit(X[:1], y[:1])
    else:
        with pytest.warns(UserWarning, match="nothing to rank"):
            clone(estimator).fit(X[:1], y[:1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        clone(estimator).fit(X, y[:-1])


@each
def test_three_labels_for_a_binary_ranker(estimator):
    if not is_binary_ranker(estimator):
        pytest.skip("ranks graded labels: three values are valid (tested in test_ranksvm)")
    X, _ = _data()
    with pytest.raises(ValueError, match="exactly two label values"):
        clone(estimator).fit(X, np.arange(X.shape[0]) % 3)


@each
def test_counts_below_one_are_refused_naming_the_parameter(estimator):
    from birank._validation import Interval

    X, y = _data()
    counted = [name for name, allowed in getattr(estimator, "_parameter_constraints", {}).items()
               if any(isinstance(c, Interval) and c.kind == "integer" and c.low == 1
                      for c in allowed)]
    for name in counted:
        for bad in (0, -5):
            with pytest.raises(ValueError, match=rf"parameter '{name}' must be (None or )?an "
                                                 r"int in \[1, "):
                clone(estimator).set_params(**{name: bad}).fit(X, y)


@each
def test_budget_above_all_items_works_and_says_so(estimator):
    if "budget" not in estimator.get_params():
        pytest.skip("no budget parameter")
    X, y = _data(n=30)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = clone(estimator).set_params(budget=10**6).fit(X, y)
    if not hasattr(est, "budget_"):
        pytest.skip("budget scales weights here (WeightedSVM), it counts no items")
    assert any("exceeds" in str(w.message) for w in caught)
    assert est.budget_ < 10**6 and est.score(X, y) > 0.8


@each
def test_feature_count_change_between_partial_fit_calls(estimator):
    if not has_partial_fit(estimator):
        pytest.skip("no partial_fit")
    X, y = _data()
    est = clone(estimator).partial_fit(X, y, classes=np.unique(y))
    with pytest.raises(ValueError, match=r"X has 3 features, but \w+ is expecting 4 features"):
        est.partial_fit(X[:, :3], y)


LAYOUTS = {
    "csc": sp.csc_matrix,
    "coo": sp.coo_matrix,
    "float32": lambda X: X.astype(np.float32),
    "non-contiguous": lambda X: np.asfortranarray(X),
    "strided": lambda X: np.repeat(X, 2, axis=1)[:, ::2],
    "int": lambda X: np.round(X * 4).astype(np.int64),
    "bool": lambda X: X > 0,
}


@each
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_input_layouts_accepted_and_never_mutated(estimator, layout):
    X, y = _data()
    if layout in ("int", "bool"):
        base = LAYOUTS[layout](X)
        Xin, ref_X = base, base.astype(np.float64)
    else:
        Xin = LAYOUTS[layout](X)
        ref_X = X.astype(np.float32).astype(np.float64) if layout == "float32" else X
    before = Xin.copy()
    y_in = y.copy()
    est = _fit(estimator, Xin, y_in)
    ref = _fit(estimator, ref_X, y)
    np.testing.assert_allclose(est.decision_function(Xin), ref.decision_function(ref_X),
                               rtol=1e-6, atol=1e-8)
    if sp.issparse(Xin):
        assert (Xin != before).nnz == 0 and Xin.format == before.format
    else:
        np.testing.assert_array_equal(Xin, before)
        assert Xin.dtype == before.dtype
    np.testing.assert_array_equal(y_in, y)


# --------------------------------------------------------------------------- LIBSVM files
def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def test_huge_feature_index_is_refused_without_allocating(tmp_path):
    for fast in (0, 1 << 40):  # scikit-learn's parser and the line parser
        path = _write(tmp_path, "huge.svm", "1 1:1 1099511627776:1\n-1 2:1\n" * (1 + fast % 2))
        old = _svmlight._SMALL_BYTES
        _svmlight._SMALL_BYTES = fast
        try:
            with pytest.raises(ValueError, match=r"huge\.svm, line 1: feature index "
                                                 r"1099511627776 is too large .*remap or hash"):
                load_svmlight(path)
        finally:
            _svmlight._SMALL_BYTES = old


def test_cli_huge_index_is_one_line_error(tmp_path, capsys):
    path = _write(tmp_path, "huge.svm", "1 1:1 1099511627776:1\n-1 2:1\n")
    assert main(["train", "-q", str(path), "-o", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is too large" in err[0]


def test_index_zero(tmp_path):
    path = _write(tmp_path, "z.svm", "1 1:1\n-1 0:2\n")
    with pytest.raises(ValueError, match=r"z\.svm, line 2: feature index 0 is invalid "
                                         r"\(indices are one-based; pass zero_based=True"):
        load_svmlight(path)
    X, y = load_svmlight(path, zero_based=True)
    assert X.shape == (2, 2) and X[1, 0] == 2


def test_empty_lines_comments_and_crlf(tmp_path):
    lf = "# header\n\n1 1:0.5 3:2 # note\n\n   \n-1 2:1\n# end\n"
    a = load_svmlight(_write(tmp_path, "lf.svm", lf))
    b = load_svmlight(_write(tmp_path, "crlf.svm", lf.replace("\n", "\r\n")))
    assert a[0].shape == b[0].shape == (2, 3)
    assert (a[0] != b[0]).nnz == 0 and a[1].tolist() == b[1].tolist() == [1.0, -1.0]


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress])
def test_truncated_compressed_file(tmp_path, compress):
    X, y = load_heart()
    full = tmp_path / "h.svm"
    dump_svmlight(X, y, full)
    raw = compress(full.read_bytes())
    path = _write(tmp_path, "cut.svm.z", raw[: len(raw) // 2])
    with pytest.raises(ValueError, match=r"cut\.svm\.z: cannot decompress \(\w+ data is "
                                         r"truncated"):
        load_svmlight(path)
    # concatenated members are read whole
    two = _write(tmp_path, "two.svm.z", raw + raw)
    assert load_svmlight(two)[0].shape[0] == 2 * X.shape[0]


def test_directory_and_unreadable_path(tmp_path, monkeypatch, capsys):
    with pytest.raises(IsADirectoryError, match="is a directory, not a data file"):
        load_svmlight(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_svmlight(tmp_path / "missing.svm")
    assert main(["train", "-q", str(tmp_path), "-o", str(tmp_path / "m.json")]) == 2
    assert "is a directory, not a data file" in capsys.readouterr().err
    path = _write(tmp_path, "locked.svm", "1 1:1\n")
    real_open = open

    def deny(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", deny)
    with pytest.raises(PermissionError, match=r"cannot read .*locked\.svm: permission denied"):
        load_svmlight(path)


def test_existing_output_is_kept_without_force(tmp_path, capsys):
    X, y = load_heart()
    data = tmp_path / "h.svm"
    dump_svmlight(X, y, data)
    model = tmp_path / "m.json"
    assert main(["train", "-q", "-m", "wsvm", str(data), "-o", str(model)]) == 0
    scores = _write(tmp_path, "s.txt", "precious\n")
    assert main(["predict", str(model), str(data), "-o", str(scores)]) == 2
    assert "exists; use --force" in capsys.readouterr().err
    assert scores.read_text() == "precious\n"
    assert main(["predict", "--force", str(model), str(data), "-o", str(scores)]) == 0
    assert len(scores.read_text().split()) == X.shape[0]
