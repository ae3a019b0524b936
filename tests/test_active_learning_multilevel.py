"""Multi-level LossMin (donmez-carbonell footnote 2's projected extension) against a reference."""

import numpy as np
import pytest

from birank import ActiveRankLearner
from birank.active_learning.strategies import lossmin_multilevel_scores, lossmin_scores


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _reference(scores, groups, n_levels, lam):
    """Plain-Python derivation: per query, sort ascending, the K largest gaps as thresholds,
    eq. (7) per threshold with its calibrated posterior, then the mean over thresholds."""
    scores = np.asarray(scores, float)
    out = np.zeros(scores.shape[0])
    for q in np.unique(groups):
        rows = np.flatnonzero(groups == q)
        rows = rows[np.lexsort((rows, scores[rows]))]  # ascending score, ties by row
        m = rows.shape[0]
        if m < 2:
            continue
        s = scores[rows]
        gaps = [(-(s[i] - s[i - 1]), i) for i in range(1, m)]  # rank i: gap above it
        k = min(n_levels - 1, m - 1)
        thresholds = sorted(i for _, i in sorted(gaps)[:k])
        for i_hat in thresholds:
            c, theta = s[i_hat - 1], i_hat + 0.5
            for pos, row in enumerate(rows):
                r = pos + 1
                v = 0.0
                if 0.5 - (r - theta) > 0:
                    v += _sigmoid(s[pos] - c) * (0.5 - (r - theta)) / abs(1 - theta) * (1 - lam)
                if 0.5 + (r - theta) > 0:
                    v += _sigmoid(c - s[pos]) * (0.5 + (r - theta)) / abs(m - theta) * lam
                out[row] += v / k
    return out


@pytest.mark.parametrize("n_levels", [2, 3, 5])
@pytest.mark.parametrize("lam", [0.6, 0.3])
def test_multilevel_lossmin_matches_the_reference_derivation(n_levels, lam):
    rng = np.random.default_rng(n_levels)
    scores = rng.normal(size=70)
    groups = rng.integers(0, 6, 70)
    groups[:1] = 99  # a one-document query: value 0
    got = lossmin_multilevel_scores(scores, groups, n_levels=n_levels,
                                    above_threshold_weight=lam)
    np.testing.assert_allclose(got, _reference(scores, groups, n_levels, lam), rtol=1e-12,
                               atol=1e-15)
    assert got[0] == 0.0


def test_two_levels_is_the_papers_lossmin():
    rng = np.random.default_rng(0)
    scores, groups = rng.normal(size=60), np.repeat(np.arange(4), 15)
    np.testing.assert_array_equal(lossmin_multilevel_scores(scores, groups, n_levels=2),
                                  lossmin_scores(scores, groups))


def test_second_threshold_changes_the_values_and_bad_levels_fail():
    # two clear gaps: binary LossMin calibrates at the larger (0.2 | 5.0) only; with
    # three levels the second (5.2 | 8.0) adds its own eq. (7) term
    scores = np.array([0.0, 0.1, 0.2, 5.0, 5.1, 5.2, 8.0, 8.1])
    ml = lossmin_multilevel_scores(scores, None, n_levels=3)
    ref = _reference(scores, np.zeros(8, int), 3, 0.6)
    np.testing.assert_allclose(ml, ref, rtol=1e-12)
    assert not np.allclose(ml, lossmin_scores(scores))
    with pytest.raises(ValueError, match="n_levels"):
        lossmin_multilevel_scores(scores, None, n_levels=1)


def test_learner_multilevel_strategy_with_graded_ranker():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(180, 4))
    qid = np.repeat([1, 2, 3], 60)
    y = np.digitize(X @ [1.0, -1.0, 0.5, 0.2] + 0.3 * rng.normal(size=180), [0.3, 1.2])
    seed = np.concatenate([np.flatnonzero((qid == q) & (y == c))[:2]
                           for q in (1, 2, 3) for c in (0, 1, 2)])
    runs = []
    for relevance in ("graded", "graded", "binary"):
        learner = ActiveRankLearner(strategy="lossmin-multilevel", relevance=relevance,
                                    per_query=3, random_state=0)
        learner.teach(seed, y[seed], X_pool=X, groups=qid)
        rows = learner.query()
        assert rows.size == 9 and not np.intersect1d(rows, seed).size
        assert all(np.sum(qid[rows] == q) == 3 for q in (1, 2, 3))
        runs.append((rows, learner.coef_.copy()))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])  # deterministic
    # the graded ranker learns from the three levels, the binary one from two
    assert not np.allclose(runs[0][1], runs[2][1])
    with pytest.raises(ValueError, match="relevance"):
        ActiveRankLearner(relevance="ordinal").teach(seed, y[seed], X_pool=X, groups=qid)
