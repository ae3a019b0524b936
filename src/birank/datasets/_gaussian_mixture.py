"""Gaussian-mixture bipartite data of gultekin-paisley section 5.1, with its Bayes ranker.

Each class ``i in {0, 1}`` is a K-component isotropic Gaussian mixture
(gultekin-paisley eq. (24)) with common scale ``sigma``; class-1 means are uniform in
the unit cube of the positive orthant ``[0, 1]^D``, class-0 means uniform in
``[-1, 0]^D``. The paper does not state D; we default to 2.

Typo note: eq. (24) normalizes each component by ``1/sqrt(2 pi sigma^2)``; in D
dimensions the isotropic density needs ``(2 pi sigma^2)^(-D/2)``. The constant is the
same for both classes, so it cancels in the likelihood ratio and nothing here
depends on it.

Everything a comparison needs is exact for this family: the population pair moments
``mu = E[z]``, ``Sigma = E[zz']`` of ``z = x1 - x0`` (so the population phi-risk of
any linear ranker, and the best linear ranker in a ball), the population AUC of a
linear ranker (``w.z`` is a mixture of K^2 Gaussians), and the Bayes-optimal ranker
(the likelihood ratio, by the Neyman-Pearson lemma).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .._typing import ArrayLike, FloatArray, IntArray, RandomStateLike


__all__ = ["GaussianMixtureParams", "make_gaussian_mixture", "gaussian_mixture_bayes_scores"]


@dataclass(frozen=True)
class GaussianMixtureParams:
    """The two class-conditional mixtures.

    Attributes
    ----------
    means_pos, means_neg : ndarray of shape (n_components, n_features)
    weights : ndarray of shape (n_components,)
        Mixture weights c_k (shared by both classes), summing to 1.
    sigma : float
        Standard deviation of every component, in every direction.
    """

    means_pos: np.ndarray
    means_neg: np.ndarray
    weights: np.ndarray
    sigma: float

    @property
    def n_features(self) -> int:
        return self.means_pos.shape[1]

    def class_moments(self, label: int) -> tuple[FloatArray, FloatArray]:
        """Mean and second moment ``E[xx']`` of class ``label`` (0 or 1)."""
        M = self.means_pos if label == 1 else self.means_neg
        c = self.weights
        m = c @ M
        E = (M.T * c) @ M + self.sigma ** 2 * np.eye(self.n_features)
        return m, E

    def pair_moments(self) -> tuple[FloatArray, FloatArray]:
        """Population ``(mu, Sigma)`` of ``z = x1 - x0`` (gultekin-paisley footnote 1)."""
        m1, E1 = self.class_moments(1)
        m0, E0 = self.class_moments(0)
        return m1 - m0, E1 + E0 - np.outer(m1, m0) - np.outer(m0, m1)

    def phi_risk(self, w: ArrayLike) -> float:
        """Population pairwise squared loss ``E[1/2 (1 - w.z)^2]`` (exact)."""
        mu, sigma = self.pair_moments()
        w = np.asarray(w, dtype=np.float64)
        return float(0.5 - mu @ w + 0.5 * w @ sigma @ w)

    def linear_auc(self, w: ArrayLike) -> float:
        """Population AUC ``P(w.x1 > w.x0)`` of the linear ranker ``w`` (exact).

        ``w.(x1 - x0)`` given components (k, l) is normal with mean
        ``w.(m1_k - m0_l)`` and variance ``2 sigma^2 |w|^2``.
        """
        w = np.asarray(w, dtype=np.float64)
        nw = float(np.linalg.norm(w))
        if nw == 0.0:
            return 0.5
        diff = (self.means_pos @ w)[:, None] - (self.means_neg @ w)[None, :]
        cc = np.outer(self.weights, self.weights)
        from scipy.special import ndtr

        return float(np.sum(cc * ndtr(diff / (np.sqrt(2.0) * self.sigma * nw))))


def _check_int(value, name, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an int >= {low}; got {value!r}.")
    return int(value)


def make_gaussian_mixture(n_samples: int = 2000, *, n_features: int = 2, n_components: int = 1,
                          sigma: float = 2.0, rho: float = 0.5, weights: ArrayLike | None = None,
                          params: GaussianMixtureParams | None = None, shuffle: bool = True,
                          random_state: RandomStateLike = None,
                          ) -> tuple[FloatArray, IntArray, GaussianMixtureParams]:
    """Draw bipartite data from two K-component Gaussian mixtures (gultekin-paisley 5.1).

    Parameters
    ----------
    n_samples : int, default=2000
        Total number of samples; ``round(rho * n_samples)`` are positive.
    n_features : int, default=2
        D (not given in the paper).
    n_components : int, default=1
        K, components per class.
    sigma : float, default=2.0
        Component standard deviation (the paper uses 2, 3, 4).
    rho : float in (0, 1), default=0.5
        Label skew N1 / (N0 + N1).
    weights : array-like of shape (n_components,), default=None
        Mixture weights; equal by default (the paper does not give them).
    params : GaussianMixtureParams, default=None
        Reuse these mixtures (e.g. to draw a test set) instead of drawing new means;
        ``n_features``, ``n_components``, ``sigma`` and ``weights`` are then ignored.
    shuffle : bool, default=True
        Shuffle the rows; otherwise positives come first.
    random_state : None, int or numpy Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), values in {0, 1}
    params : GaussianMixtureParams
        What :func:`gaussian_mixture_bayes_scores` and the population quantities need.

    Examples
    --------
    >>> import numpy as np
    >>> from birank.datasets import make_gaussian_mixture, gaussian_mixture_bayes_scores
    >>> X, y, params = make_gaussian_mixture(2000, n_components=2, sigma=3.0, random_state=0)
    >>> X.shape, int(y.sum())
    ((2000, 2), 1000)
    >>> s = gaussian_mixture_bayes_scores(X, params)
    >>> bool(s[y == 1].mean() > s[y == 0].mean())
    True
    """
    n_samples = _check_int(n_samples, "n_samples", 2)
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not 0.0 < rho < 1.0:
        raise ValueError(f"rho must be a float in (0, 1); got {rho!r}.")
    from .._validation import check_random_state  # here: importing datasets stays light

    rng = check_random_state(random_state)
    if params is None:
        n_features = _check_int(n_features, "n_features", 1)
        n_components = _check_int(n_components, "n_components", 1)
        if (isinstance(sigma, bool) or not isinstance(sigma, numbers.Real)
                or not np.isfinite(sigma) or sigma <= 0):
            raise ValueError(f"sigma must be a float > 0; got {sigma!r}.")
        if weights is None:
            weights = np.full(n_components, 1.0 / n_components)
        else:
            weights = np.asarray(weights, dtype=np.float64).reshape(-1)
            if (weights.shape[0] != n_components or np.any(weights < 0)
                    or not np.isclose(weights.sum(), 1.0)):
                raise ValueError(f"weights must be {n_components} non-negative numbers "
                                 f"summing to 1; got {weights!r}.")
        means_pos = rng.uniform(0.0, 1.0, size=(n_components, n_features))
        means_neg = rng.uniform(-1.0, 0.0, size=(n_components, n_features))
        params = GaussianMixtureParams(means_pos, means_neg, weights, float(sigma))
    elif not isinstance(params, GaussianMixtureParams):
        raise TypeError(f"params must be a GaussianMixtureParams; got {type(params).__name__}.")
    n_pos = int(round(rho * n_samples))
    n_pos = min(max(n_pos, 1), n_samples - 1)
    n_neg = n_samples - n_pos
    parts = []
    for means, n in ((params.means_pos, n_pos), (params.means_neg, n_neg)):
        comp = rng.choice(means.shape[0], size=n, p=params.weights)
        parts.append(means[comp] + params.sigma * rng.standard_normal((n, means.shape[1])))
    X = np.vstack(parts)
    y = np.concatenate([np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)])
    if shuffle:
        order = rng.permutation(n_samples)
        X, y = X[order], y[order]
    return X, y, params


def _log_mixture(X, means, weights, sigma):
    # log sum_k c_k exp(-|x - m_k|^2 / (2 sigma^2)), the common normalizer dropped
    sq = ((X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    with np.errstate(divide="ignore"):
        logc = np.log(weights)
    from scipy.special import logsumexp

    return logsumexp(logc[None, :] - sq / (2.0 * sigma * sigma), axis=1)


def gaussian_mixture_bayes_scores(X: ArrayLike, params: GaussianMixtureParams) -> FloatArray:
    """Bayes-optimal ranking scores: the log likelihood ratio ``log D1(x) - log D0(x)``.

    By the Neyman-Pearson lemma the likelihood ratio maximizes the AUC among all
    scoring functions (gultekin-paisley Sec. 5.1); the log is monotone, so it ranks
    identically.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    params : GaussianMixtureParams

    Returns
    -------
    scores : ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from birank.datasets import make_gaussian_mixture, gaussian_mixture_bayes_scores
    >>> _, _, params = make_gaussian_mixture(10, random_state=0)
    >>> means = np.vstack([params.means_pos, params.means_neg])  # one mean per class
    >>> s = gaussian_mixture_bayes_scores(means, params)
    >>> s.shape, bool(s[0] > 0 > s[1])
    ((2,), True)
    """
    if not isinstance(params, GaussianMixtureParams):
        raise TypeError(f"params must be a GaussianMixtureParams; got {type(params).__name__}.")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != params.n_features:
        raise ValueError(f"X must have shape (n_samples, {params.n_features}); got {X.shape}.")
    return (_log_mixture(X, params.means_pos, params.weights, params.sigma)
            - _log_mixture(X, params.means_neg, params.weights, params.sigma))
