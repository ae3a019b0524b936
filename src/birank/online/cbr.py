"""CBR and CBR-diag: confidence-weighted bipartite ranking (khalid-ray-chitsaz, Alg. 1 and 2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.stats import norm

from .._kernels.buffered_stream import CBR_DIAG, CBR_FULL
from .._validation import Interval, Options
from ._buffers import BufferedStreamRanker

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import FloatArray, RandomStateLike

__all__ = ["CBR", "MAX_FULL_FEATURES"]

#: ``covariance='full'`` keeps a d x d matrix and spends O(d^2) per pair: above
#: this many features use ``covariance='diag'``
MAX_FULL_FEATURES = 1000


class CBR(BufferedStreamRanker):
    """Online confidence-weighted bipartite ranking (CBR, CBR-diag).

    The ranker is a Gaussian ``N(mu, Sigma)`` over weight vectors; scores are
    ``X @ mu``. Two buffers keep up to ``buffer_size`` rows of each class
    (reservoir sampling or FIFO). Each arriving row ``x_t`` of label ``y`` is
    paired with every buffered row ``x`` of the other class, and for each pair
    ``z = x_t - x`` one soft confidence-weighted step (SCW-I, Wang, Zhao & Hoi
    2012) solves

    ``min KL(N(mu, Sigma) || N(mu_t, Sigma_t)) + C_t max(0, phi sqrt(z'Sigma z) - y mu.z)``

    exactly (khalid-ray-chitsaz eq. (5); eq. (6) with Sigma diagonal), with
    ``phi = Phi^{-1}(confidence)`` and ``C_t = C max(1, N_t / buffer_size)``, N_t the
    number of rows of the other class seen so far (as in OAM, Zhao et al.
    2011: each buffered row stands for N_t / buffer_size rows; the paper's
    ``|B_t| / M`` is at most 1, so as printed C_t would always be C). The
    printed formulas of Propositions 1 and 2 have typos; the steps used here
    are derived in :mod:`birank._kernels.cw_updates`.

    Parameters
    ----------
    covariance : {"full", "diag"}, default="full"
        ``"full"``: CBR, a d x d covariance, O(d^2) per pair, at most
        ``MAX_FULL_FEATURES`` (1000) features. ``"diag"``: CBR-diag, the
        covariance restricted to diagonal matrices, O(nnz) per pair: for
        sparse high-dimensional data. Default: the paper's main algorithm
        (khalid-ray-chitsaz section 3.3, run on the benchmark sets of section
        4.3); CBR-diag is their variant for high-dimensional data (section
        4.4).
    buffer : {"fifo", "reservoir"}, default="fifo"
        How a full buffer takes a new row: replace the oldest (FIFO) or
        Vitter's reservoir sampling (a uniform sample of the class's stream).
        Default: khalid-ray-chitsaz run both with CBR and find FIFO often
        slightly better than reservoir sampling (section 4.3); their CBR-diag
        uses FIFO only (section 4.2).
    buffer_size : int, default=50
        Rows kept per class (``M_+ = M_-``); 50 as in every run of
        khalid-ray-chitsaz (section 4.2).
    confidence : float in (0.5, 1), default=0.9
        Confidence probability; ``phi = Phi^{-1}(confidence) > 0``
        (khalid-ray-chitsaz fix 0.7; 0.9 with C=1e-3 is within 0.006 AUC of
        the best of a grid C in 1e-4..1, confidence in {0.6, 0.7, 0.9} on
        a9a, german.numer, w8a, spambase and ionosphere in one pass, both
        covariances: benchmarks/bench_defaults.py).
    C : float, default=1e-3
        Loss weight (aggressiveness), before the ``N_t / buffer_size`` factor.
        As that factor grows with the stream, small values are best (the
        default is from the grid above; in 5-fold tests on heart,
        german.numer, ionosphere and diabetes the best C was 1e-4 to 1e-2);
        khalid-ray-chitsaz tune it over ``2^[-10:10]`` by 2-fold CV.
    feature_budget : int or None, default=None
        CBR-diag only: keep at most this many non-zero coordinates in ``mu``
        (online feature selection by truncation, Wang, Zhao, Hoi & Jin 2014,
        the extension khalid-ray-chitsaz section 5 names as future work): after
        each row's steps every coordinate but the ``feature_budget`` largest
        ``|mu_j|`` is set to 0 (its variance is kept). Costs
        ``O(S log S)`` per row, ``S`` the budget plus the row's and the other
        buffer's stored entries; never ``O(n_features)``. None: no limit.
    shuffle : bool, default=False
        Whether ``fit`` streams the rows in a random order (``partial_fit``
        always uses the given order).
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the reservoir sampling and the shuffle.
    verbose : bool or int, default=False
        Report the rows streamed on stderr during ``fit`` and each
        ``partial_fit`` call (a line at most every 0.2 s, and one at the end of
        the call; see :mod:`birank.online._stream`). The model does not depend
        on it. Off by default, as in scikit-learn; ``birank train`` turns it on
        (``-q``: off).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The mean ``mu`` of the ranker.
    intercept_ : float
        Minus the calibrated threshold (see :mod:`birank.online._stream`).
    covariance_ : ndarray of shape (n_features,) or (n_features, n_features)
        The diagonal (``"diag"``) or the full covariance.
    classes_ : ndarray of shape (2,)
    n_seen_ : int
        Rows streamed so far.
    class_counts_ : ndarray of shape (2,)
        Rows of each class learned from (weight > 0).
    auc_trace_ : ndarray of shape (n_evals, 2)
        ``(n_seen, AUC on eval_set)`` rows, when ``eval_set`` was given.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when they are all strings (a pandas DataFrame).
    probability_ : ndarray of shape (2,)
        ``predict_proba``'s sigmoid slopes ``(a_neg, a_pos)`` below and above the
        threshold (:class:`birank.base.ProbabilityMixin`).

    Examples
    --------
    >>> from birank import CBR
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = CBR(covariance="diag", C=0.1).fit(X[:200], y[:200])
    >>> round(model.score(X[200:], y[200:]), 2) > 0.8
    True
    >>> half = CBR(covariance="diag", C=0.1).partial_fit(X[:100], y[:100])
    >>> bool((half.partial_fit(X[100:200], y[100:200]).coef_ == model.coef_).all())
    True
    """

    _parameter_constraints = {
        "covariance": [Options("full", "diag")],
        "buffer": [Options("fifo", "reservoir")],
        "buffer_size": [Interval("integer", 1, None)],
        "confidence": [Interval("real", 0.5, 1.0, closed="neither")],
        "C": [Interval("real", 0, None, closed="neither")],
        "feature_budget": [None, Interval("integer", 1, None)],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }
    def __init__(self, covariance: Literal["full", "diag"] = "full", *,
                 buffer: Literal["fifo", "reservoir"] = "fifo", buffer_size: int = 50,
                 confidence: float = 0.9, C: float = 1e-3, feature_budget: int | None = None,
                 shuffle: bool = False, random_state: RandomStateLike = None,
                 verbose: bool | int = False) -> None:
        self.covariance = covariance
        self.buffer = buffer
        self.buffer_size = buffer_size
        self.confidence = confidence
        self.C = C
        self.feature_budget = feature_budget
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose

    def _check_n_features(self, n_features):
        if self.feature_budget is not None and self.covariance != "diag":
            raise ValueError(
                "CBR: feature_budget needs covariance='diag' (a full-covariance step "
                "changes every coordinate, so truncation would cost O(d) per row); got "
                f"covariance={self.covariance!r}.")
        if self.covariance == "full" and n_features > MAX_FULL_FEATURES:
            raise ValueError(
                f"CBR: covariance='full' keeps a {n_features} x {n_features} matrix and "
                f"costs O(d^2) per pair; it is limited to {MAX_FULL_FEATURES} features. "
                "Use covariance='diag' (CBR-diag) for high-dimensional data.")

    def _init_state(self, n_features):
        full = self.covariance == "full"
        # Alg. 1: Sigma_1 = diag(a), a = 1
        self._state = self._buffered_state(
            n_features, g=np.ones(0 if full else n_features),
            sigma=np.eye(n_features) if full else np.zeros((1, 1)))

    def _feature_budget(self):
        return 0 if self.feature_budget is None else int(self.feature_budget)

    def _kernel_method(self):
        return CBR_FULL if self.covariance == "full" else CBR_DIAG

    def _phi(self):
        return float(norm.ppf(self.confidence))

    @property
    def covariance_(self) -> FloatArray:
        """The diagonal (``covariance='diag'``) or the full covariance matrix."""
        st = self._state
        return (st["sigma"] if self.covariance == "full" else st["g"]).copy()
