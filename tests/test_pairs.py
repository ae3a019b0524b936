import itertools

import numpy as np
import pytest

from birank.pairs import (BipartitePairs, ChosenSet, OrdinalPairs, PseudoPairs, UnionPairs,
                          sample_pair_ids)


def brute_pairs(y, groups=None):
    """All (i, j) with y_i > y_j (same group), by enumeration."""
    n = len(y)
    g = np.zeros(n) if groups is None else np.asarray(groups)
    return {(i, j) for i, j in itertools.product(range(n), range(n))
            if y[i] > y[j] and g[i] == g[j]}


@pytest.mark.parametrize("seed", range(20))
def test_bipartite_pairs_decode_every_pair_once(seed):
    rng = np.random.default_rng(seed)
    n = rng.integers(2, 30)
    y = rng.integers(0, 2, n)
    groups = rng.integers(0, 4, n) if seed % 2 else None
    space = BipartitePairs(y, groups)
    a, b = space.enumerate()
    got = list(zip(a.tolist(), b.tolist()))
    assert len(got) == len(set(got)) == space.n_pairs
    assert set(got) == brute_pairs(y, groups)


@pytest.mark.parametrize("seed", range(20))
def test_ordinal_pairs_decode_every_pair_once(seed):
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 30)
    y = rng.integers(0, 4, n).astype(float) + (0.5 * rng.random(n) if seed % 3 == 0 else 0)
    groups = rng.integers(0, 3, n) if seed % 2 else None
    space = OrdinalPairs(y, groups)
    a, b = space.enumerate()
    got = list(zip(a.tolist(), b.tolist()))
    assert len(got) == len(set(got)) == space.n_pairs
    assert set(got) == brute_pairs(y, groups)


@pytest.mark.parametrize("seed", range(6))
def test_ordinal_rows_are_int32_and_decode_equals_a_numpy_search(seed):
    # row indices (order, decode's a and b) are int32 below 2^31 rows: the pair
    # ids and offsets stay int64, and decoding equals the searchsorted definition
    rng = np.random.default_rng(seed)
    n = 200
    y = rng.integers(0, 9, n).astype(float)
    groups = rng.integers(0, 4, n) if seed % 2 else None
    space = OrdinalPairs(y, groups)
    assert space.order.dtype == np.int32 and space._offsets.dtype == np.int64
    ids = rng.integers(0, space.n_pairs, 500)
    a, b = space.decode(ids)
    assert a.dtype == b.dtype == np.int32
    p = np.searchsorted(space._offsets, ids, side="right") - 1
    np.testing.assert_array_equal(a, space.order[p])
    np.testing.assert_array_equal(b, space.order[space._group_start[p] + ids - space._offsets[p]])
    assert np.all(y[a] > y[b])


def test_ordinal_equals_bipartite_set_for_binary_labels():
    y = np.array([1, 0, 0, 1, 1, 0, 0])
    a1, b1 = BipartitePairs(y).enumerate()
    a2, b2 = OrdinalPairs(y).enumerate()
    assert set(zip(a1.tolist(), b1.tolist())) == set(zip(a2.tolist(), b2.tolist()))


def test_pseudo_and_union():
    y = np.array([1, 0, 1])
    pseudo = PseudoPairs(y)
    a, b = pseudo.enumerate()
    assert a.tolist() == [0, -1, 2] and b.tolist() == [-1, 1, -1]
    union = UnionPairs(BipartitePairs(y), pseudo)
    assert union.n_pairs == 2 + 3
    assert union.part(np.arange(5)).tolist() == [0, 0, 1, 1, 1]
    a, b = union.enumerate()
    assert list(zip(a.tolist(), b.tolist()))[2:] == [(0, -1), (-1, 1), (2, -1)]


def test_decode_rejects_out_of_range():
    with pytest.raises(ValueError, match="pair ids"):
        BipartitePairs(np.array([1, 0])).decode(np.array([1]))


def test_n_pairs_is_exact_python_int_beyond_int32():
    y = np.zeros(200_000, dtype=np.int8)
    y[:70_000] = 1
    space = BipartitePairs(y)
    assert space.n_pairs == 70_000 * 130_000
    i, j = space.decode(np.array([space.n_pairs - 1]))
    assert (i[0], j[0]) == (69_999, 199_999)


@pytest.mark.parametrize("n_pairs,size,n_chosen", [(50, 10, 0), (50, 30, 15), (10**12, 1000, 100)])
def test_sampling_without_replacement_avoids_chosen(n_pairs, size, n_chosen):
    rng = np.random.default_rng(1)
    chosen = ChosenSet(rng.choice(min(n_pairs, 10**6), n_chosen, replace=False))
    ids = sample_pair_ids(n_pairs, size, random_state=rng, chosen=chosen)
    assert ids.size == size and np.unique(ids).size == size
    assert not chosen.contains(ids).any()
    assert ids.min() >= 0 and ids.max() < n_pairs


def _first_new_draws(n_pairs, size, rng, chosen):
    # the definition, by sorting: rounds of 2 x (missing) + 8 draws; the first
    # occurrences, in draw order, of ids neither chosen nor taken
    out = np.empty(0, dtype=np.int64)
    while out.size < size:
        draw = rng.integers(0, n_pairs, size=2 * (size - out.size) + 8, dtype=np.int64)
        draw = draw[~chosen.contains(draw)] if chosen is not None else draw
        merged = np.concatenate((out, draw))
        _, first = np.unique(merged, return_index=True)
        out = merged[np.sort(first)][:size]
    return out


@pytest.mark.parametrize("seed", range(6))
def test_sparse_sampling_equals_the_sorting_definition(seed):
    # small spaces make many repeats inside a round; the hash-table kernel must keep
    # the same ids in the same order and leave the generator at the same point
    rng = np.random.default_rng(seed)
    n_pairs = int(rng.integers(30, 400))
    chosen = ChosenSet(rng.choice(n_pairs, int(rng.integers(0, n_pairs // 4)), replace=False))
    size = int(rng.integers(1, (n_pairs - len(chosen)) // 2 + 1))
    for avoid in (None, chosen):
        got = sample_pair_ids(n_pairs, size, random_state=(r1 := np.random.default_rng(seed)),
                              chosen=avoid)
        want = _first_new_draws(n_pairs, size, r2 := np.random.default_rng(seed), avoid)
        assert np.array_equal(got, want)
        assert r1.integers(0, 2**62) == r2.integers(0, 2**62)


def test_sampling_is_uniform():
    rng = np.random.default_rng(2)
    counts = np.bincount(np.concatenate([sample_pair_ids(20, 5, random_state=rng)
                                         for _ in range(4000)]),
                         minlength=20)
    expected = 4000 * 5 / 20
    # chi-square with 19 dof: 99.9% quantile is about 43.8
    assert ((counts - expected) ** 2 / expected).sum() < 43.8


def test_sampling_errors_and_reproducibility():
    with pytest.raises(ValueError, match="only 2 are left"):
        sample_pair_ids(5, 3, random_state=np.random.default_rng(0), chosen=ChosenSet([0, 1, 2]))
    a = sample_pair_ids(10**9, 100, random_state=np.random.default_rng(7))
    b = sample_pair_ids(10**9, 100, random_state=np.random.default_rng(7))
    assert np.array_equal(a, b)
    # an int seeds a fresh generator: the same ids as that generator gives
    assert np.array_equal(sample_pair_ids(10**9, 100, random_state=7), a)


def test_chosen_set():
    s = ChosenSet([5, 1, 5])
    assert len(s) == 2 and 5 in s and 2 not in s
    s.add([2, 9])
    assert s.to_array().tolist() == [1, 2, 5, 9]
    assert ChosenSet().contains(np.array([1, 2])).tolist() == [False, False]


@pytest.mark.parametrize("ids, message", [
    ([0.7, 1.2], "pair ids must be integers; got 0.7"),
    ([np.nan], "must be integers; got nan"),
    ([[0, 1]], r"1-D array \(or a scalar\); got shape \(1, 2\)"),
    ([True], r"got dtype bool \(booleans\)"),
    (["1"], "got dtype <U1"),
    ([6], r"must lie in \[0, 6\)"),
    ([-1], r"must lie in \[0, 6\)"),
])
def test_pair_ids_are_integers_in_range_and_1d(ids, message):
    """Fails on the old main: floats were truncated (decode([0.7, 1.2]) gave the pairs of ids
    0 and 1) and a 2-D array was flattened into other pairs; the same rule for every space."""
    y = np.array([1, 0, 1, 0, 0])
    for space in (BipartitePairs(y), UnionPairs(PseudoPairs(y[:3]), PseudoPairs(y[:3]))):
        with pytest.raises(ValueError, match=message):
            space.decode(ids)
    # integral values of any numeric type decode as their integer ids
    a, b = BipartitePairs(y).decode(np.array([0.0, 5.0]))
    assert (a.tolist(), b.tolist()) == ([0, 2], [1, 4])
    assert BipartitePairs(y).decode(np.array([5], dtype=np.uint8))[1].tolist() == [4]


def test_chosen_set_refuses_non_integer_and_negative_ids():
    """Fails on the old main: ChosenSet([1]).contains([1.9]) was [True] (1.9 read as 1)
    and add([-5], new=True) was accepted (-1 marks the hash table's empty slots)."""
    s = ChosenSet([1])
    with pytest.raises(ValueError, match="must be integers; got 1.9"):
        s.contains([1.9])
    assert 1.9 not in s and "a" not in s and 1 in s and 1.0 in s  # (a set's answers)
    assert s.contains(np.array([[1, 2]])).tolist() == [[True, False]]  # any shape
    for new in (True, False):
        with pytest.raises(ValueError, match="pair ids are >= 0; got -5"):
            ChosenSet().add([-5], new=new)
        with pytest.raises(ValueError, match="must be integers; got 2.5"):
            ChosenSet().add([2.5], new=new)
    with pytest.raises(ValueError, match="1-D array"):
        ChosenSet([[1, 2]])


def test_ordinal_pairs_refuse_two_label_columns():
    """Fails on the old main: OrdinalPairs(np.c_[y, y]) flattened the 2-D y into one pair
    space of 2n rows (1596 pairs for 40 rows); a single column is still one label a row."""
    y = np.array([0.5, 2.0, 0.5, 1.0])
    with pytest.raises(ValueError, match=r"y must be 1-D, one label per row; got shape \(4, 2\)"):
        OrdinalPairs(np.c_[y, y])
    assert OrdinalPairs(y[:, None]).n_pairs == OrdinalPairs(y).n_pairs == 5
    with pytest.raises(ValueError, match="y must hold real numbers"):
        OrdinalPairs(np.array(["a", "b"]))
