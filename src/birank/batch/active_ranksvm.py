"""ActiveRankSVM: active sampling of pairs and points (shen-lin ASRankSVM / ASCRC)."""

from __future__ import annotations

import time
import warnings
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from .._linalg import matvec
from .._progress import make_progress
from .._validation import (Interval, Options, check_eval_set, check_random_state, check_X_y,
                           draw_seed, encode_binary, kernel_rows, validate_params)
from ..base import BinaryRankerMixin, check_known_labels
from ..solvers.dual_cd import PairDualCD
from ._active_pool import ChosenPool
from ._active_sampling import STRATEGIES, JointSpace, SoftSampler, hard_select

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import ArrayLike, EvalSet, MatrixLike, RandomStateLike, Self

__all__ = ["ActiveRankSVM"]

#: relative duality gap (hinge) or gradient ratio (squared hinge) of the Newton finish
NEWTON_TOL = 1e-4
#: the soft sampler reads a CSR X of 0/1 values without them when X has at most this
#: many rows per unit of budget. Finding that every value is 1 reads all of them once,
#: while the sampler reads only the rows it draws (a few per chosen item): on a9a
#: (4 rows per unit of budget 8000) the sampling rounds take 0.59-0.75x the time
#: (benchmarks/bench_soft_sample.py); at 10^6 rows (125 per unit) the check costs
#: about what it saves (scratch timing of the whole fit, 0.19-0.22 s either way)
INDICATOR_ROWS_PER_BUDGET = 16


class ActiveRankSVM(BinaryRankerMixin, BaseEstimator):
    """Linear RankSVM trained on a small, actively sampled set of pairs and points.

    Algorithm 1 of Shen & Lin (2014), "Active sampling of pairs and points for
    large-scale linear bipartite ranking": start from ``batch_size`` items drawn
    uniformly from the joint set D* of real pairs (positive, negative) and
    pseudo-pairs (a point against the origin); then repeatedly sample
    ``batch_size`` more items with the chosen strategy and warm-start a dual
    coordinate descent solver on the chosen set, until ``budget`` items are
    chosen. Pairs are never enumerated. The soft strategies score only the
    rows of the candidates they draw, so after input validation their cost
    depends on the budget, not on the number of rows; the hard strategies
    score every row once per round.

    ``pair_weight=1`` is ASRankSVM (real pairs only), ``pair_weight=0`` the
    point-wise SVM on pseudo-pairs, values in between the CRC framework
    (shen-lin eq. (5), where the pair weight is called gamma).

    Defaults and their origin: shen-lin section 4: ``C=0.1`` ("fixed to 0.1
    in all the experiments"), ``budget=8000`` (their B), ``batch_size=100``
    (their b), ``pair_weight=1`` (shen-lin's gamma: ASRankSVM, real pairs
    only), soft-correct sampling with bias correction and no threshold
    (their best setting in Tables 3-5), the
    hinge loss and ``tol=0.1`` of the LIBLINEAR solver they used. The round
    settings (``round_tol``, ``round_max_iter``) are birank's speed-ups; the
    paper's own are ``None``.

    Parameters
    ----------
    budget : int, default=8000
        Number of items (pairs + pseudo-pairs) to choose, B. Capped at the size
        of the part of D* that can be sampled (then ``budget_`` says so and a
        ``UserWarning`` is raised).
    batch_size : int, default=100
        Items sampled per round, b; the initial chosen set has ``batch_size`` items.
    strategy : {'soft-correct', 'soft-close', 'soft-hybrid', 'random', 'hard-close', \
'hard-correct'}, default='soft-correct'
        ``random``: uniform from the items not yet chosen. ``soft-*``: rejection
        sampling (Algorithm 2) accepting an item with probability
        ``2 / (1 + exp(|w.z|))`` (close) or ``1 - 2 / (1 + exp([1 - w.z]_+))``
        (correct), times pair_weight (real pairs) or 1 - pair_weight (pseudo-pairs).
        ``soft-hybrid`` accepts with the product of the two: violated items
        are wanted as by soft-correct, but items far on the wrong side (likely
        noisy pairs) are rejected as by soft-close -- the noise-tolerant
        combination shen-lin section 5 names as future work (birank's).
        ``hard-*``: the ``batch_size`` unchosen items with the lowest closeness
        ``|w.z|`` / correctness ``-[1 - w.z]_+`` (ties: by margin ``w.z``,
        then by item id), found by a k-way merge over sorted scores.
    pair_weight : float in [0, 1] or 'uniform', default=1.0
        Weight of real pairs against pseudo-pairs, shen-lin's gamma (eq. (5));
        ``'uniform'`` is ``|D_pair| / |D*|``.
    fit_intercept : bool, default=False
        Learn a bias: CRC-threshold (shen-lin section 3.5, eq. (8)), where
        pseudo-pairs get a threshold theta, regularized together with w;
        ``intercept_ = -theta``.
    bias_correction : bool, default=True
        Weight each sampled item by ``1 / p`` (section 3.3); without it every
        chosen item weighs ``Gamma * C``.
    C : float, default=0.1
        Global regularization; item ``k`` costs
        ``C_k = Gamma_k |L*| / (p_k Z) * C`` with ``Z = sum_{L*} 1 / p`` (section 4.1),
        so the costs sum to ``C * budget`` when ``pair_weight=1``.
    loss : {'hinge', 'squared_hinge', 'logistic'}, default='hinge'
        ``'logistic'`` (``C_k log(1 + exp(-w.z_k))``, the loss shen-lin
        section 6 names as future work) is solved by the dual coordinate
        descent of Yu, Huang & Lin (2011) (no Newton finish is needed).
    tol : float, default=0.1
        Stopping tolerance of the dual CD solver (LIBLINEAR's default, as in the paper).
    round_tol : float or None, default=1.0
        Solver tolerance of the intermediate rounds (every solve but the
        last, which always uses ``tol``). None uses ``tol``.
    round_max_iter : int or None, default=1
        Solver passes allowed in an intermediate round (None: ``max_iter``).
        The paper solves every round to ``tol`` (LIBLINEAR warm-started with
        its default tolerance): ``round_tol=None, round_max_iter=None``, which
        ``birank reproduce shen-lin`` uses. Solving the intermediate rounds
        loosely is our implementation choice: their w only guides the
        sampling, the chosen set is re-solved warm at the next round and the last
        round is solved to ``tol``. One pass per round fits a9a 3x faster than
        the paper's setting with the same test AUC (see
        ``benchmarks/bench_active.py --rounds``, which compares the settings
        on the shen-lin data sets).
    max_iter : int, default=1000
        Solver passes of the last round (and of every round with
        ``round_max_iter=None``). If the last round reaches it without
        meeting ``tol`` (a degenerate chosen set: many pairs over few features,
        where dual CD creeps), the chosen set is solved again in the primal by
        Newton (Huber smoothing for the hinge, certified duality gap 1e-4),
        starting from where dual CD stopped; ``final_solver_`` says which.
        (Not when its pair matrix would hold more than 2**25 numbers, dense
        cells or CSR entries: then a ConvergenceWarning is raised.)
    max_draws : int, default=20_000_000
        Candidate draws allowed per round before soft sampling gives up (when
        almost no unchosen item can be accepted); fitting then stops early with
        a warning and ``budget_`` tells how many items were chosen.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the initial chosen set, the candidate draws of the soft and
        random strategies and the dual CD solver's coordinate order: the same
        int gives the same model. None (scikit-learn's default): fresh
        entropy on every ``fit``.
    verbose : bool or int, default=False
        Report progress on stderr, one line per round (pairs chosen so far of
        ``budget``). Off by default, as in scikit-learn; ``birank train`` turns
        it on (``-q``: off).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        ``-theta`` for CRC-threshold; otherwise minus the score where the
        training sigmoid is 1/2 (:func:`birank.base.decision_cut`), so that
        ``predict`` is ``decision_function > 0``
        (the ranking, hence the AUC, does not depend on it).
    classes_ : ndarray of shape (2,)
    budget_ : int
        Items actually chosen (``budget`` unless capped or stopped early).
    n_pairs_ : int
        Real pairs in the chosen set.
    n_pseudo_pairs_ : int
        Pseudo-pairs in the chosen set.
    rejections_ : ndarray of shape (n_rounds - 1,)
        Rejected draws of each sampling round (shen-lin Fig. 6); zeros for
        the random and hard strategies with pair_weight in {0, 1}.
    history_ : list of dict
        One entry per solver call: ``n_chosen``, ``n_pairs``, ``rejections``,
        ``select_seconds`` (sampling or hard selection), ``solve_seconds``,
        ``seconds`` (cumulative fit time, without evaluation), ``n_iter`` and,
        with ``eval_set``, ``auc``.
    n_iter_ : int
        Solver passes summed over rounds.
    pair_weight_ : float
        The pair weight used (``|D_pair| / |D*|`` for ``'uniform'``).
    chosen_ids_ : ndarray of shape (``budget_``,)
        The chosen items in order of choice, numbered as
        :class:`birank.pairs.UnionPairs` numbers D*: ids below
        ``n_pos * n_neg`` are real pairs, the rest pseudo-pairs.
    acceptance_ : ndarray of shape (``budget_``,)
        Acceptance probability p (section 3.3, without Gamma) of each chosen
        item when it was drawn; 1 for the initial chosen set and the random and
        hard strategies.
    final_solver_ : {'dual_cd', 'newton'}
        What solved the last round (see ``max_iter``).
    chosen_weights_ : ndarray of shape (``budget_``,)
        The cost ``C_k`` of each chosen item in the last solve (section 4.1).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when they are all strings (a pandas DataFrame).
    probability_ : ndarray of shape (2,)
        ``predict_proba``'s sigmoid slopes ``(a_neg, a_pos)`` below and above the
        threshold (:class:`birank.base.ProbabilityMixin`).

    Examples
    --------
    >>> import numpy as np
    >>> from birank import ActiveRankSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 5))
    >>> y = (X @ [1.0, -2.0, 0.5, 0.0, 1.0] + rng.normal(size=2000) > 1.5).astype(int)
    >>> model = ActiveRankSVM(budget=1000, random_state=0).fit(X, y)
    >>> model.n_pairs_, len(model.history_)
    (1000, 10)
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = {
        "budget": [Interval("integer", 1, None)],
        "batch_size": [Interval("integer", 1, None)],
        "strategy": [Options(*STRATEGIES)],
        "pair_weight": [Interval("real", 0, 1, closed="both"), Options("uniform")],
        "fit_intercept": ["boolean"],
        "bias_correction": ["boolean"],
        "C": [Interval("real", 0, None, closed="neither")],
        "loss": [Options("hinge", "squared_hinge", "logistic")],
        "tol": [Interval("real", 0, None, closed="neither")],
        "round_tol": [None, Interval("real", 0, None, closed="neither")],
        "round_max_iter": [None, Interval("integer", 1, None)],
        "max_iter": [Interval("integer", 1, None)],
        "max_draws": [Interval("integer", 1, None)],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def __init__(self, budget: int = 8000, *, batch_size: int = 100,
                 strategy: Literal["random", "soft-close", "soft-correct", "soft-hybrid",
                                   "hard-close", "hard-correct"] = "soft-correct",
                 pair_weight: float | Literal["uniform"] = 1.0, fit_intercept: bool = False,
                 bias_correction: bool = True, C: float = 0.1,
                 loss: Literal["hinge", "squared_hinge", "logistic"] = "hinge", tol: float = 0.1,
                 round_tol: float | None = 1.0, round_max_iter: int | None = 1,
                 max_iter: int = 1000, max_draws: int = 20_000_000,
                 random_state: RandomStateLike = None, verbose: bool | int = False) -> None:
        self.budget = budget
        self.batch_size = batch_size
        self.strategy = strategy
        self.pair_weight = pair_weight
        self.fit_intercept = fit_intercept
        self.bias_correction = bias_correction
        self.C = C
        self.loss = loss
        self.tol = tol
        self.round_tol = round_tol
        self.round_max_iter = round_max_iter
        self.max_iter = max_iter
        self.max_draws = max_draws
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X: MatrixLike, y: ArrayLike, *, eval_set: EvalSet | None = None) -> Self:
        """Choose ``budget`` pairs / pseudo-pairs actively and fit on them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two label values; the larger one is the positive class.
        eval_set : tuple (X_eval, y_eval), default=None
            Scored after every round: ``history_[k]['auc']`` (shen-lin Fig. 5).
            Each label of ``y_eval`` must be one of the two labels of ``y``.

        Returns
        -------
        self
        """
        validate_params(self)
        X, y = check_X_y(self, X, y, reset=True)
        self.classes_, y01 = encode_binary(y)
        eval_data = None
        if eval_set is not None:
            Xe, ye = check_eval_set(self, eval_set)
            check_known_labels(self, ye, what="eval_set's y")  # (else counted as negative)
            eval_data = (Xe, ye == self.classes_[1])
        self._fit(X, y01, eval_data)
        self._set_threshold(X, y01, learned_bias=self.fit_intercept)
        return self

    # ------------------------------------------------------------------ driver
    def _fit(self, X, y01, eval_data):
        """Algorithm 1 of shen-lin: a random initial pool, then sample / solve rounds."""
        rng = check_random_state(self.random_state)
        space = self._joint_space(y01)
        budget = self._capped_budget(space)
        b = min(int(self.batch_size), budget)
        hard = self.strategy.startswith("hard")
        sampler = None if hard else SoftSampler(space, self.strategy, budget, self.max_draws)
        # the rows the soft sampler scores (0/1 values not read where the check pays off)
        rows = None if hard else kernel_rows(
            X, indicator=X.shape[0] <= INDICATOR_ROWS_PER_BUDGET * budget)
        solver = PairDualCD(X, loss=self.loss, fit_threshold=self.fit_intercept, tol=self.tol,
                            max_iter=self.max_iter, compact_rows=True, pair_rows=True,
                            random_state=draw_seed(rng))
        pool = ChosenPool(space, solver, self.C, self.bias_correction)
        report = make_progress(self.verbose, "ActiveRankSVM")
        rounds = _Rounds()

        t0 = time.perf_counter()
        ids, p = space.initial(b, rng), np.ones(b)  # drawn uniformly: acceptance 1
        select_s = time.perf_counter() - t0
        n_rej = 0
        stopped = False
        while True:
            t1 = time.perf_counter()
            pool.add(ids, p)
            last_round = pool.size >= budget or stopped
            converged = solver.solve(*self._round_settings(last_round))
            rounds.record(pool, solver, n_rej, select_s, time.perf_counter() - t1, eval_data)
            report(pool.size, budget, rounds.progress_line())
            if last_round:
                report.close()  # (a sampler that ran out stops below the budget)
                break
            t1 = time.perf_counter()
            need = min(b, budget - pool.size)
            if hard:
                ids, p, n_rej = self._select_hard(X, solver, space, need, pool.chosen)
            else:
                ids, p, n_rej, exhausted = self._select_soft(rows, solver, sampler, need,
                                                             pool, rng)
                stopped = exhausted
            rounds.rejections.append(int(n_rej))
            select_s = time.perf_counter() - t1
            if ids.size == 0:
                stopped = True  # one last solve at the final tolerance, then stop
        w = self._finish(solver, converged, rounds, eval_data)
        self._store_fitted(w, pool, solver, rounds)

    def _joint_space(self, y01):
        """D* with the pair weight (``'uniform'``: |D_pair| / |D*|); sets ``pair_weight_``."""
        n_pos = int(y01.sum())
        n_pair, n_pseudo = n_pos * (y01.size - n_pos), y01.size
        weight = (n_pair / (n_pair + n_pseudo) if isinstance(self.pair_weight, str)
                  else float(self.pair_weight))
        self.pair_weight_ = weight
        return JointSpace(y01, weight)  # shen-lin's gamma

    def _capped_budget(self, space):
        budget = int(self.budget)
        if budget > space.n_active:
            warnings.warn(
                f"ActiveRankSVM: budget={budget} exceeds the {space.n_active} items that can be "
                f"sampled (pair_weight={space.gamma:g}); using all of them.", UserWarning,
                stacklevel=4)
            budget = space.n_active
        return budget

    def _round_settings(self, last_round):
        """``(tol, max_iter)`` of a round's solve: loose in between, ``tol`` at the end."""
        if last_round:
            return self.tol, self.max_iter
        return (self.tol if self.round_tol is None else self.round_tol,
                self.max_iter if self.round_max_iter is None else self.round_max_iter)

    def _select_hard(self, X, solver, space, need, chosen):
        """Hard strategies: every score is needed, one pass over X, then the k-way merge."""
        s_ext = np.empty(X.shape[0] + 1)
        s_ext[:-1] = matvec(X, solver.coef_)
        s_ext[:-1] += solver.intercept_
        s_ext[-1] = 0.0  # the origin of pseudo-pairs
        ids = hard_select(space, s_ext, need, self.strategy, chosen)
        return ids, np.ones(ids.size), 0

    def _select_soft(self, rows, solver, sampler, need, pool, rng):
        """Soft strategies (Algorithm 2): only the rows of drawn candidates are scored
        (``rows``: X as the kernels take it)."""
        ids, p, n_rej, _, exhausted = sampler.sample(
            rows, solver.coef_, solver.intercept_, need, pool.chosen, rng)
        if exhausted:
            warnings.warn(
                f"ActiveRankSVM: {self.strategy} sampling found only {ids.size} of "
                f"{need} acceptable items in a round (almost every unchosen item has "
                f"acceptance probability 0); stopping with {pool.size + ids.size} "
                "chosen items.", UserWarning, stacklevel=4)
        return ids, p, n_rej, exhausted

    def _finish(self, solver, converged, rounds, eval_data):
        """The final w: dual CD's, or a Newton solve of the pool if dual CD stopped at max_iter.

        A last solve that hits ``max_iter`` means a degenerate pool (many pairs
        over few features, where dual CD creeps); Newton on the pool matrix
        finishes it from where dual CD stopped, unless that matrix is too
        large (dense cells or CSR entries), in which case the ConvergenceWarning
        is raised.
        """
        self.final_solver_ = "dual_cd"
        if converged:
            return solver.w
        message = solver.not_converged_message("PairDualCD", self.max_iter, self.tol)
        t1 = time.perf_counter()
        res = solver.newton_finish(NEWTON_TOL)
        if res is None:  # the pool matrix would be too large
            warnings.warn(message, ConvergenceWarning, stacklevel=4)
            return solver.w
        w_newton = res.coef
        rounds.add_time(time.perf_counter() - t1)
        if not res.converged:
            warnings.warn(f"{message} Newton on the pool did not converge either "
                          f"({res.reason or 'max_iter reached'}).", ConvergenceWarning,
                          stacklevel=4)
            return solver.w
        self.final_solver_ = "newton"
        if eval_data is not None:
            rounds.history[-1]["auc"] = _eval_auc(eval_data, w_newton[:-1], -w_newton[-1])
        return w_newton

    def _store_fitted(self, w, pool, solver, rounds):
        self.coef_ = w[:-1].copy()
        self.intercept_ = float(-w[-1])
        self.budget_ = pool.size
        self.n_pairs_ = pool.n_pairs
        self.n_pseudo_pairs_ = int(pool.size - pool.n_pairs)
        self.rejections_ = np.asarray(rounds.rejections, dtype=np.int64)
        self.history_ = rounds.history
        self.n_iter_ = int(rounds.n_iter)
        self.chosen_ids_ = pool.ids
        self.acceptance_ = pool.acceptance
        self.chosen_weights_ = solver.C_.copy()


def _eval_auc(eval_data, coef, intercept):
    from ..metrics import roc_auc

    scores = matvec(eval_data[0], coef)
    return roc_auc(eval_data[1], scores + intercept)


class _Rounds:
    """What ActiveRankSVM reports per round: ``history_``, ``rejections_``, ``n_iter_``."""

    def __init__(self):
        self.history = []
        self.rejections = []
        self.n_iter = 0

    def record(self, pool, solver, n_rej, select_s, solve_s, eval_data):
        self.n_iter += solver.n_iter_
        entry = {"n_chosen": pool.size,
                 "n_pairs": pool.n_pairs,
                 "rejections": int(n_rej), "select_seconds": select_s,
                 "solve_seconds": solve_s, "n_iter": int(solver.n_iter_)}
        entry["seconds"] = ((self.history[-1]["seconds"] if self.history else 0.0)
                            + select_s + solve_s)
        if eval_data is not None:
            entry["auc"] = _eval_auc(eval_data, solver.coef_, solver.intercept_)
        self.history.append(entry)

    def add_time(self, seconds):
        """Charge extra solve time (the Newton finish) to the last round."""
        self.history[-1]["solve_seconds"] += seconds
        self.history[-1]["seconds"] += seconds

    def progress_line(self):
        entry = self.history[-1]
        return f"pairs={entry['n_pairs']}" + (f" auc={entry['auc']:.4f}" if "auc" in entry
                                              else "")
