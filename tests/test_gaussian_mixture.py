"""Gaussian-mixture generator of gultekin-paisley 5.1 and its exact population quantities."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from birank import BBR, LCBR
from birank.datasets._gaussian_mixture import (
    GaussianMixtureParams,
    gaussian_mixture_bayes_scores,
    make_gaussian_mixture,
)


def _auc(y, s):
    from sklearn.metrics import roc_auc_score

    return roc_auc_score(y, s)


def test_shapes_skew_and_means():
    X, y, p = make_gaussian_mixture(1000, n_features=3, n_components=2, sigma=2.0, rho=0.2,
                                    random_state=0)
    assert X.shape == (1000, 3) and int(y.sum()) == 200
    assert p.means_pos.shape == (2, 3) and np.all((p.means_pos >= 0) & (p.means_pos <= 1))
    assert np.all((p.means_neg >= -1) & (p.means_neg <= 0))
    np.testing.assert_allclose(p.weights, [0.5, 0.5])


def test_reproducible_and_params_reuse():
    a = make_gaussian_mixture(300, n_components=3, random_state=5)
    b = make_gaussian_mixture(300, n_components=3, random_state=5)
    np.testing.assert_array_equal(a[0], b[0])
    X2, y2, p2 = make_gaussian_mixture(300, params=a[2], random_state=6)
    assert p2 is a[2] and not np.array_equal(X2, a[0])


def test_bayes_scores_equal_scipy_log_likelihood_ratio():
    X, y, p = make_gaussian_mixture(50, n_features=2, n_components=3, sigma=1.5,
                                    weights=[0.2, 0.3, 0.5], random_state=1)
    cov = p.sigma ** 2 * np.eye(2)

    def dens(M):
        return sum(c * multivariate_normal(m, cov).pdf(X) for c, m in zip(p.weights, M))

    expected = np.log(dens(p.means_pos)) - np.log(dens(p.means_neg))
    np.testing.assert_allclose(gaussian_mixture_bayes_scores(X, p), expected, rtol=1e-10,
                               atol=1e-10)


def test_population_quantities_match_large_sample():
    X, y, p = make_gaussian_mixture(200_000, n_components=2, sigma=2.0, random_state=2)
    mu, sig = p.pair_moments()
    est = BBR().fit(X, y)
    np.testing.assert_allclose(est.pair_mean_, mu, atol=0.03)
    np.testing.assert_allclose(est.pair_second_moment_, sig, rtol=0.02, atol=0.05)
    w = np.array([0.7, -0.2])
    assert p.linear_auc(w) == pytest.approx(_auc(y, X @ w), abs=0.005)
    a, b = np.flatnonzero(y == 1)[:3000], np.flatnonzero(y == 0)[:3000]
    loss = 0.5 * (1 - (X[a][:, None, :] - X[b][None, :, :]) @ w) ** 2
    assert p.phi_risk(w) == pytest.approx(loss.mean(), rel=0.02)
    assert p.linear_auc(np.zeros(2)) == 0.5


def test_bayes_ranker_beats_any_linear_ranker():
    X, y, p = make_gaussian_mixture(40_000, n_components=3, sigma=2.0, random_state=3)
    bayes = _auc(y, gaussian_mixture_bayes_scores(X, p))
    w = BBR().fit(X, y).coef_
    assert bayes >= p.linear_auc(w) - 0.005
    # K = 1: the likelihood ratio is linear along m1 - m0, so both rank alike
    X1, y1, p1 = make_gaussian_mixture(2000, n_components=1, random_state=4)
    s = gaussian_mixture_bayes_scores(X1, p1)
    d = p1.means_pos[0] - p1.means_neg[0]
    assert np.corrcoef(s, X1 @ d)[0, 1] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.slow
def test_lcbr_close_to_bbr_at_5000_pairs():
    """gultekin-paisley 5.1: LCBR with S = 5000 matches BBR (mean AUC within 0.005)."""
    diffs = []
    for rep in range(10):
        X, y, p = make_gaussian_mixture(2000, n_components=2, sigma=3.0, random_state=rep)
        w_bbr = BBR(radius=1.0).fit(X, y).coef_
        w_lcbr = LCBR(n_pairs=5000, radius=1.0, random_state=rep).fit(X, y).coef_
        diffs.append(p.linear_auc(w_bbr) - p.linear_auc(w_lcbr))
    assert abs(np.mean(diffs)) < 0.005


@pytest.mark.parametrize("kwargs, match", [
    ({"n_samples": 1}, "n_samples"), ({"rho": 1.0}, "rho"), ({"sigma": 0.0}, "sigma"),
    ({"n_components": 0}, "n_components"), ({"weights": [0.5, 0.6]}, "weights"),
    ({"params": "x"}, "params"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make_gaussian_mixture(**{"n_components": 2, **kwargs})


def test_bayes_scores_bad_input():
    _, _, p = make_gaussian_mixture(10, random_state=0)
    with pytest.raises(ValueError, match="shape"):
        gaussian_mixture_bayes_scores(np.zeros((3, 5)), p)
    with pytest.raises(TypeError, match="params"):
        gaussian_mixture_bayes_scores(np.zeros((3, 2)), object())
    assert isinstance(p, GaussianMixtureParams)


def test_reproduction_smoke(tmp_path):
    """The section 5.1 reproduction runs end to end and writes JSON, markdown and PNG."""
    import argparse
    import json

    from birank.experiments import gultekin_paisley as gp

    args = gp.add_arguments(argparse.ArgumentParser()).parse_args(
        ["--quick", "--part", "5.1", "--repetitions", "1", "--output", str(tmp_path),
         "--quiet"])
    assert gp.run(args) == 0
    res = json.loads((tmp_path / "gultekin-paisley-quick.json").read_text())
    summ = res["section_5_1"]["summary"]
    assert [(s["K"], s["sigma"]) for s in summ] == [(1, 2.0), (2, 3.0), (3, 4.0)]
    for s in summ:  # BBR is the exact minimizer of the empirical risk, never below optimal
        assert s["phi_bbr"]["mean"] >= s["phi_optimal"]["mean"] - 1e-12
        assert 0.5 <= s["auc_bbr"]["mean"] <= 1.0
    assert (tmp_path / "gultekin-paisley-fig1.png").stat().st_size > 10_000
    assert "Section 5.1" in (tmp_path / "gultekin-paisley-quick.md").read_text()
    with pytest.raises(ValueError, match="radius"):
        gp.run(gp.add_arguments(argparse.ArgumentParser()).parse_args(["--radius", "-1"]))
