"""lin-jan-lin pair selection: level order against a brute-force enumeration."""

import numpy as np
import pytest

from birank.batch.pruned_ranksvm import select_pairs
from birank.pairs import OrdinalPairs
from oracles_pairs import all_pairs


def _bruteforce_level_order(y, groups=None):
    """Every ordinal pair as (i, j), sorted by (level, sorted position of i, of j)."""
    n = len(y)
    g = np.zeros(n, dtype=int) if groups is None else np.asarray(groups)
    pos = np.empty(n, dtype=int)
    pos[np.lexsort((np.arange(n), y, g))] = np.arange(n)
    rank = np.array([len(np.unique(y[(g == g[k]) & (y < y[k])])) for k in range(n)])
    I, J, _ = all_pairs(y, groups)
    key = sorted(zip(rank[I] - rank[J], pos[I], pos[J], I, J))
    return [(int(k[3]), int(k[4])) for k in key], [int(k[0]) for k in key]


@pytest.mark.kernel
@pytest.mark.parametrize("labels", ["distinct", "ties", "grouped"])
def test_closest_equals_bruteforce_level_order(labels):
    rng = np.random.default_rng(["distinct", "ties", "grouped"].index(labels))
    n = 17
    y = rng.normal(size=n) if labels == "distinct" else rng.integers(0, 5, n).astype(float)
    groups = rng.integers(0, 3, n) if labels == "grouped" else None
    space = OrdinalPairs(y, groups)
    pairs, levels = _bruteforce_level_order(y, groups)
    assert space.n_pairs == len(pairs)
    for take in (0, 1, 5, len(pairs) // 2, len(pairs)):
        ids = space.closest(take)
        a, b = space.decode(ids)
        assert list(zip(a.tolist(), b.tolist())) == pairs[:take]
        assert space.levels(ids).tolist() == levels[:take]
    counts = space.level_counts(6)
    assert counts[1:].tolist() == [levels.count(r) for r in range(1, 7)]


def _naive_level_counts(y, groups, max_level):
    """Pairs per level: every pair's level from the brute-force enumeration, counted."""
    _, levels = _bruteforce_level_order(y, groups)
    levels = np.asarray(levels, dtype=np.int64)
    return np.array([0] + [np.sum(levels == r) for r in range(1, max_level + 1)],
                    dtype=np.int64)


@pytest.mark.kernel
@pytest.mark.parametrize("seed", range(40))
def test_level_counts_equal_the_naive_per_level_count(seed):
    # ties, no ties, one odd run among equal ones, groups, levels beyond the last
    # (empty), max_level 0
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    kind = seed % 5
    if kind == 0:
        y = rng.integers(0, 6, n).astype(float)
    elif kind == 1:
        y = rng.normal(size=n)
    elif kind == 2:
        y = np.round(rng.normal(size=n), 1)
    elif kind == 3:
        y = np.repeat(rng.normal(size=n // 2 + 1), 2)[:n]
        y[: n // 4] = y[0]
    else:
        y = rng.integers(0, 3, n) * 10.0 + (rng.random(n) < 0.3)
    groups = rng.integers(0, 4, n) if seed % 2 else None
    space = OrdinalPairs(y, groups)
    for max_level in (0, 1, 2, int(rng.integers(3, 50))):
        counts = space.level_counts(max_level)
        assert counts.dtype == np.int64 and counts.shape == (max_level + 1,)
        np.testing.assert_array_equal(counts, _naive_level_counts(y, groups, max_level))
    assert space.level_counts(n)[1:].sum() == space.n_pairs


def test_default_closest_is_the_level_one_pairs():
    y = np.array([0.3, 1.5, -2.0, 0.9, 4.0, 2.2])
    ids, space, s, r = select_pairs(y, n_random=0)
    assert s == len(y) - 1 and r == 0  # no ties: N - 1 pairs, (x_k, x_{k+1})
    a, b = space.decode(ids)
    order = np.argsort(y)
    assert sorted(zip(a, b)) == sorted(zip(order[1:], order[:-1]))
    # ties: level 1 joins adjacent label values, 2 x 3 + 3 x 1 pairs
    ids, space, s, _ = select_pairs(np.array([0, 0, 1, 2, 3, 4, 5, 6, 7.0]), n_random=0)
    assert s == 2 * 1 + 6 and np.all(space.levels(ids) == 1)  # 8 <= N - 1: all of level 1


def test_default_closest_with_heavy_ties_draws_n_minus_1_level_one_pairs():
    # binary labels: level 1 is every pair; the default takes N - 1 of them,
    # uniformly (not the first N - 1 in sort order, which would all share a row)
    y = np.r_[np.ones(6), np.zeros(9)]
    ids, space, s, r = select_pairs(y, n_random=0, random_state=0)
    assert s == len(y) - 1 and r == 0 and len(np.unique(ids)) == s
    assert np.all(space.levels(ids) == 1)
    again, *_ = select_pairs(y, n_random=0, random_state=0)
    np.testing.assert_array_equal(ids, again)
    counts = np.zeros(space.n_pairs)
    rng = np.random.default_rng(1)
    for _ in range(3000):
        ids, *_ = select_pairs(y, n_random=0, random_state=rng)
        counts[ids] += 1
    # each of the 54 pairs is drawn with probability 14/54
    p = (len(y) - 1) / space.n_pairs
    sd = np.sqrt(3000 * p * (1 - p))
    assert np.all(np.abs(counts - 3000 * p) < 5 * sd)


@pytest.mark.parametrize("grouped", [False, True])
def test_level_one_ids_equal_the_bruteforce_level_one_pairs(grouped):
    rng = np.random.default_rng(5)
    n = 23
    y = rng.integers(0, 6, n).astype(float)
    groups = rng.integers(0, 3, n) if grouped else None
    space = OrdinalPairs(y, groups)
    pairs, levels = _bruteforce_level_order(y, groups)
    n1 = levels.count(1)
    assert space.level_counts(1)[1] == n1
    ids = space.level_one_ids(np.arange(n1))
    np.testing.assert_array_equal(ids, space.closest(n1))
    a, b = space.decode(ids)
    assert list(zip(a.tolist(), b.tolist())) == pairs[:n1]
    with pytest.raises(ValueError):
        space.level_one_ids([n1])


@pytest.mark.parametrize("grouped", [False, True])
def test_heavy_ties_level_one_sample_is_uniform_over_bruteforce_level_one(grouped):
    # 4 label values, tied, in 2 groups: level 1 has more than N - 1 pairs, so the
    # default draws N - 1 of them without replacement; check against brute force
    rng = np.random.default_rng(11)
    n = 20
    y = rng.integers(0, 4, n).astype(float)
    groups = np.repeat([0, 1], n // 2) if grouped else None
    pairs, levels = _bruteforce_level_order(y, groups)
    level1 = {p for p, lv in zip(pairs, levels) if lv == 1}
    assert len(level1) > n - 1
    counts = dict.fromkeys(level1, 0)
    trials = 3000
    for seed in range(trials):
        ids, space, s, r = select_pairs(y, groups=groups, n_random=0, random_state=seed)
        assert s == n - 1 and r == 0 and len(np.unique(ids)) == s
        a, b = space.decode(ids)
        drawn = list(zip(a.tolist(), b.tolist()))
        assert set(drawn) <= level1
        for pair in drawn:
            counts[pair] += 1
    again, *_ = select_pairs(y, groups=groups, n_random=0, random_state=7)
    first, *_ = select_pairs(y, groups=groups, n_random=0, random_state=7)
    np.testing.assert_array_equal(again, first)  # same random_state, same pairs
    p = (n - 1) / len(level1)
    sd = np.sqrt(trials * p * (1 - p))
    freq = np.array(list(counts.values()))
    assert np.all(np.abs(freq - trials * p) < 5 * sd)


def test_random_pairs_are_distinct_unchosen_and_uniform():
    y = np.arange(10.0)
    counts = np.zeros(45)
    space = OrdinalPairs(y)
    closest = set(space.closest(9).tolist())
    rng = np.random.default_rng(0)
    for _ in range(2000):
        ids, _, s, r = select_pairs(y, n_random=5, random_state=rng)
        assert (s, r) == (9, 5)
        extra = ids[s:]
        assert len(set(extra.tolist())) == 5 and not closest & set(extra.tolist())
        counts[extra] += 1
    rest = counts[sorted(set(range(45)) - closest)]
    expected = 2000 * 5 / 36
    assert np.all(np.abs(rest - expected) < 0.3 * expected)
    a, b = space.decode(np.arange(45))
    assert np.all(y[a] > y[b])


def test_counts_are_clipped_and_groups_respected():
    y = np.array([1.0, 2.0, 3.0, 1.0, 2.0])
    groups = np.array([0, 0, 0, 1, 1])
    ids, space, s, r = select_pairs(y, n_closest=100, groups=groups)
    assert (s, r) == (4, 0) and space.n_pairs == 4
    a, b = space.decode(ids)
    assert np.all(groups[a] == groups[b]) and np.all(y[a] > y[b])
    with pytest.raises(ValueError, match="closest pairs"):
        space.closest(5)
