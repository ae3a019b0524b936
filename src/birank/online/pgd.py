"""PGD: online pairwise gradient descent against buffered earlier examples (Boissier et al. 2016)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels.pgd import HINGE, SQUARE, SQUARED_HINGE, pgd_stream
from .._validation import Interval, Options, draw_seed
from ._buffers import PairBuffers, csr_blocks, sparse_kernel_rows, widest_row
from ..base import data_scaled
from ._stream import StreamRanker
from ._weights import WeightVectorMixin

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import RandomStateLike

__all__ = ["PGD"]

_LOSS = {"hinge": HINGE, "squared_hinge": SQUARED_HINGE, "square": SQUARE}


class PGD(WeightVectorMixin, StreamRanker):
    """Online pairwise gradient descent for AUC (Boissier, Lyu, Ying, Zhou, AISTATS 2016).

    Each arriving instance takes one gradient step on its mean pairwise loss
    against earlier instances of the other class, with a polynomially decaying
    step ``eta0 t^-power_t`` (Boissier et al. eq. (2)). The earlier instances
    are ``buffer_size`` rows of each class (the last ones by default), which bounds the work per
    instance at ``O(buffer_size * nnz)``. See :mod:`birank._kernels.pgd`.

    Defaults and their origin: Boissier et al. analyse the least-square
    pairwise loss against all earlier instances with polynomially decaying
    steps; the buffer, the loss and the step rule here are birank's choices
    (below). The ``eta0="auto"`` constant was tuned with the other defaults
    in place, so it belongs to them.

    Parameters
    ----------
    eta0 : float or "auto", default="auto"
        Initial step size; step t is ``eta0 t^-power_t``. ``"auto"``: ``4 / m``,
        m the mean squared row norm of the first ``fit`` / ``partial_fit``
        chunk (scale-free; 4 was chosen with benchmarks/bench_defaults.py (one
        pass, a9a, german.numer, w8a, spambase, ionosphere)), at most
        ``1 / alpha`` (the L2 step must not flip w). The value used is ``eta0_``.
    power_t : float, default=0.5
        Decay exponent theta of the step size (Boissier et al.'s
        ``eta_t = eta t^-theta``). Default: birank's choice, the ``1/sqrt(t)``
        decay of online gradient descent on convex losses without strong
        convexity, and the default ``power_t`` of scikit-learn's
        ``SGDClassifier``.
    loss : {'hinge', 'squared_hinge', 'square'}, default='hinge'
        The pairwise loss of the margin ``m = w.(x_pos - x_neg)``:
        ``max(0, 1-m)``, ``max(0, 1-m)^2`` or ``(1-m)^2``. Default: birank's
        choice, the pairwise hinge of OAM (Zhao et al. 2011, whose class
        buffers PGD's follow), which leaves pairs ranked with margin >= 1
        alone; ``'square'`` is the loss Boissier et al. analyse.
    alpha : float, default=0.0
        L2 regularization (the paper's algorithm has none; > 0 costs O(d) per step).
    buffer : {'fifo', 'reservoir'}, default='fifo'
        Which earlier rows a full buffer keeps: the most recent (FIFO) or a
        uniform sample of the class's stream (Vitter's reservoir sampling).
        Default: birank's choice: deterministic (no ``random_state``
        needed), and for CBR khalid-ray-chitsaz found FIFO often slightly
        better than reservoir sampling (section 4.3). A reservoir is a
        uniform sample of all earlier rows, the ones Boissier et al.'s rule
        averages over.
    buffer_size : int, default=50
        Earlier rows kept per class. Default: birank's choice, the buffer
        size of the OAM and CBR runs of khalid-ray-chitsaz (section 4.2),
        so that the buffered learners do the same work per row.
    shuffle : bool, default=False
        Whether ``fit`` streams the rows in a random order (``partial_fit``
        always uses the given order).
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the shuffle (``shuffle=True``) and the reservoir sampling
        (``buffer='reservoir'``); with neither, nothing is random. None
        (scikit-learn's default): fresh entropy on every ``fit``.
    verbose : bool or int, default=False
        Report the rows streamed on stderr during ``fit`` and each
        ``partial_fit`` call (a line at most every 0.2 s, and one at the end of
        the call; see :mod:`birank.online._stream`). The model does not depend
        on it. Off by default, as in scikit-learn; ``birank train`` turns it on
        (``-q``: off).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        Minus the calibrated threshold (see :mod:`birank.online._stream`).
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
    eta0_ : float
        The eta0 used: ``eta0``, or the value ``"auto"`` resolved on the first
        ``fit`` / ``partial_fit`` chunk (docs/conventions.md).
    t_ : int
        Rows (of non-zero weight) processed: the step counter.

    Examples
    --------
    >>> from birank import PGD
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = PGD(eta0=0.1).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    """

    _parameter_constraints = {
        "eta0": [Options("auto"), Interval("real", 0, None, closed="neither")],
        "power_t": [Interval("real", 0, None, closed="left")],
        "loss": [Options("hinge", "squared_hinge", "square")],
        "alpha": [Interval("real", 0, None, closed="left")],
        "buffer": [Options("fifo", "reservoir")],
        "buffer_size": [Interval("integer", 1, None)],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def __init__(self, eta0: float | Literal["auto"] = "auto", *, power_t: float = 0.5,
                 loss: Literal["hinge", "squared_hinge", "square"] = "hinge", alpha: float = 0.0,
                 buffer: Literal["fifo", "reservoir"] = "fifo", buffer_size: int = 50,
                 shuffle: bool = False, random_state: RandomStateLike = None,
                 verbose: bool | int = False) -> None:
        self.eta0 = eta0
        self.power_t = power_t
        self.loss = loss
        self.alpha = alpha
        self.buffer = buffer
        self.buffer_size = buffer_size
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose


    def _set_data_scaled_defaults(self, X):
        # the L2 step w *= 1 - eta alpha must not flip w: eta0 <= 1 / alpha (as AdaOAM)
        self.eta0_ = data_scaled(self.eta0, X, scale=4.0,
                                 cap=1.0 / self.alpha if self.alpha > 0 else np.inf)

    def _init_state(self, d):
        self._state = {"w": np.zeros(d), "t": 0,
                       "buffers": PairBuffers(self.buffer_size, self.buffer,
                                              draw_seed(self._rng)),
                       "coefs": np.zeros(int(self.buffer_size))}

    def _kernel_rows(self, X):
        return sparse_kernel_rows(X)

    def _learn(self, X, y01, weight, start, stop):
        st = self._state
        buffers = st["buffers"]
        buffers.reserve(widest_row(X, start, stop))
        for (data, indices, indptr), y_b, w_b, t0, t1 in csr_blocks(X, y01, weight, start, stop):
            st["t"] = pgd_stream(data, indices, indptr, y_b, w_b, t0, t1, st["w"], st["t"],
                                 float(self.eta0_), float(self.power_t), float(self.alpha),
                                 _LOSS[self.loss], *buffers.kernel_args(), buffers.policy,
                                 buffers.rng_state, st["coefs"])
        self.t_ = int(st["t"])

