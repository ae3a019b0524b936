import numpy as np
import pytest

from birank._validation import Interval, Options, check_random_state, encode_binary
from birank.metrics import best_accuracy_threshold


@pytest.mark.kernel
@pytest.mark.parametrize("seed", range(60))
def test_best_accuracy_threshold_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 6, n).astype(float)  # heavy ties
    w = rng.integers(0, 3, n).astype(float) if seed % 2 else None
    ww = np.ones(n) if w is None else w
    if ww.sum() == 0:  # no row to cut: an error, not an "accuracy" of 0
        with pytest.raises(ValueError, match="sample_weight is 0 for every row"):
            best_accuracy_threshold(y, s, sample_weight=w)
        return
    thr, acc = best_accuracy_threshold(y, s, sample_weight=w)
    # brute force: every cut below, between and above the distinct scores
    distinct = np.unique(s[ww > 0])
    cuts = np.concatenate(([distinct[0] - 1], (distinct[:-1] + distinct[1:]) / 2,
                           [distinct[-1] + 1]))
    accs = [(ww * ((s > c) == (y == 1))).sum() / ww.sum() for c in cuts]
    assert acc == pytest.approx(max(accs), abs=1e-12)
    assert (ww * ((s > thr) == (y == 1))).sum() / ww.sum() == pytest.approx(acc, abs=1e-12)


@pytest.mark.kernel
@pytest.mark.parametrize("seed", range(20))
def test_unweighted_merge_path_equals_weighted_path(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 50))
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 8, n).astype(float) if seed % 2 else rng.normal(size=n)
    assert best_accuracy_threshold(y, s) == best_accuracy_threshold(y, s, sample_weight=np.ones(n))


@pytest.mark.kernel
@pytest.mark.parametrize("seed", range(24))
def test_bucketed_cut_equals_sorted_cut_on_large_inputs(seed):
    """Many buckets: ties, outliers that squeeze most scores into one bucket, one class."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(100, 6000))
    kind = seed % 6
    if kind == 0:
        s = rng.normal(size=n)
    elif kind == 1:
        s = rng.integers(0, 30, n).astype(float)
    elif kind == 2:
        s = np.r_[rng.normal(size=n - 2), 1e12, -1e12]  # outliers
    elif kind == 3:
        s = np.full(n, 0.5)
    elif kind == 4:
        s = rng.standard_cauchy(n)
    else:
        s = np.round(rng.normal(size=n), 2)
    y = (rng.random(n) < (0.0 if seed == 11 else 0.3)) | (s > 1.5)
    y = y & (rng.random(n) < 0.9)
    assert best_accuracy_threshold(y, s) == best_accuracy_threshold(y, s, sample_weight=np.ones(n))


@pytest.mark.kernel
@pytest.mark.filterwarnings("ignore:overflow encountered")  # numpy scalars, JIT off
def test_bucketed_cut_with_extreme_spans():
    """Subnormal and overflowing score ranges: bucketing degrades to one bucket, stays exact."""
    rng = np.random.default_rng(0)
    y = rng.random(400) < 0.4
    for s in (np.where(y, 5e-324, 0.0), rng.choice([0.0, 5e-324, 1e-323], 400),
              np.where(rng.random(400) < 0.5, -1.7e308, 1.7e308)):
        assert best_accuracy_threshold(y, s) == best_accuracy_threshold(y, s, sample_weight=np.ones(400))


def test_non_finite_scores_are_an_error():
    with pytest.raises(ValueError, match="finite"):
        best_accuracy_threshold(np.array([0, 1]), np.array([0.0, np.nan]))


def test_weights_equal_repeats():
    rng = np.random.default_rng(0)
    y, s = rng.integers(0, 2, 30), rng.normal(size=30)
    w = rng.integers(0, 4, 30)
    rep = np.repeat(np.arange(30), w)
    assert best_accuracy_threshold(y, s, sample_weight=w) == pytest.approx(
        best_accuracy_threshold(y[rep], s[rep]))


def test_encode_binary_messages():
    classes, y01 = encode_binary(np.array(["b", "a", "b"]))
    assert classes.tolist() == ["a", "b"] and y01.tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="only one class"):
        encode_binary(np.array([3, 3, 3]))
    with pytest.raises(ValueError, match="exactly two label values"):
        encode_binary(np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="Unknown label type"):
        encode_binary(np.array([0.5, 1.5, 2.25]))


def test_parameter_constraints_describe_what_is_allowed():
    assert Interval("real", 0, None, closed="neither").accepts(0.1)
    assert not Interval("real", 0, None, closed="neither").accepts(0.0)
    assert not Interval("integer", 1, None).accepts(2.0)
    assert not Interval("real", 0, 1).accepts(True)
    assert not Interval("real", None, None).accepts(float("nan"))
    # Python ints beyond int64 / float64: refused, not a TypeError from np.isfinite
    assert not Interval("integer", 1, None).accepts(10**30)
    assert Interval("integer", 1, None).accepts(2**63 - 1)
    assert not Interval("real", 0, None).accepts(10**400)
    assert Interval("real", 0, None).accepts(10**30)
    assert str(Interval("real", 0, 1, closed="left")) == "a float in [0, 1)"
    assert Options("a", "b").accepts("a") and not Options("a").accepts("c")


def test_check_random_state_is_reproducible():
    a = check_random_state(3).integers(0, 10**9, 5)
    b = check_random_state(3).integers(0, 10**9, 5)
    assert np.array_equal(a, b)
    g = np.random.default_rng(1)
    assert check_random_state(g) is g
    with pytest.raises(ValueError, match="random_state"):
        check_random_state("seed")
