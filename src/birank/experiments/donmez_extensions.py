"""The donmez reproduction's extra runs: multi-level LossMin and the LossMin ablations.

- **Multi-level relevance** (the paper's footnote 2, "an extension of this work to
  multi-level ratings is projected future work"): on the graded LETOR sets
  (OHSUMED, MQ2008: labels 0/1/2) ``ActiveRankLearner(strategy="lossmin-multilevel",
  relevance="graded")`` -- one rank threshold per level boundary, the ranker
  trained on the grades -- against the paper's binarized LossMin and Random
  (from the main run, same splits and initial sets), and, to separate the two
  changes, LossMin and Random with the graded ranker.
- **Ablations of LossMin**: eq. (6), the unnormalized expected hinge
  rank loss; the uncalibrated posterior of eq. (8) (boundary at score 0); a
  hinge-loss RankSVM as the paper's SVMlight ranking mode uses (ours: squared hinge).

Each variant is a method name; :func:`make_learner` builds its learner. Units and
tests are the main report's (:func:`birank.experiments.donmez.unit_values`, paired
tests over folds or seeds).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    from ..active_learning import ActiveRankLearner

from ._stats import nanmean

__all__ = ["MULTILEVEL", "ABLATIONS", "VARIANTS", "make_learner", "run_variants",
           "variant_lines"]

#: multi-level comparison: variant -> (strategy, relevance)
MULTILEVEL: dict[str, tuple[Literal["lossmin", "lossmin-multilevel", "random"],
                            Literal["binary", "graded"]]] = {
    "lossmin-multilevel": ("lossmin-multilevel", "graded"),
    "lossmin-graded": ("lossmin", "graded"),
    "random-graded": ("random", "graded")}
MULTILEVEL_SETS = ("OHSUMED", "MQ2008")
#: ablations of LossMin: variant -> what changes
ABLATIONS = {"lossmin-eq6": "eq. (6): unnormalized expected hinge rank loss",
             "lossmin-uncalibrated": "uncalibrated posterior sigmoid(f(x)) (eq. 8 at 0)",
             "lossmin-hinge": "hinge-loss RankSVM (SVMlight's loss; ours: squared hinge)"}
VARIANTS = tuple(MULTILEVEL) + tuple(ABLATIONS)
LABELS = {"lossmin-multilevel": "LossMin-ML (graded)", "lossmin-graded": "LossMin (graded)",
          "random-graded": "Random (graded)", "lossmin-eq6": "LossMin eq. 6",
          "lossmin-uncalibrated": "LossMin uncalibrated", "lossmin-hinge": "LossMin hinge",
          "lossmin": "LossMin", "random": "Random"}


def _ablation_class():
    from ..active_learning import ActiveRankLearner
    from ..active_learning.threshold import sort_pool
    from .._kernels.rank_selection import lossmin_ablation_scores

    class AblatedLossMin(ActiveRankLearner):
        """LossMin with eq. (7)'s normalization or eq. (8)'s calibration switched off."""

        _parameter_constraints = {**ActiveRankLearner._parameter_constraints,
                                  "normalized": ["boolean"], "calibrated": ["boolean"]}

        def __init__(self, estimator=None, *, strategy="lossmin", per_query=5,
                     above_threshold_weight=0.6, relevance_threshold=1, relevance="binary",
                     random_state=None, normalized=True, calibrated=True):
            super().__init__(estimator, strategy=strategy, per_query=per_query,
                             above_threshold_weight=above_threshold_weight,
                             relevance_threshold=relevance_threshold, relevance=relevance,
                             random_state=random_state)
            self.normalized = normalized
            self.calibrated = calibrated

        def _informativeness(self, unl, scores):
            g = self.groups_[unl]
            order, qptr, _ = sort_pool(scores, g)
            s = np.ascontiguousarray(np.asarray(scores, float)[order])
            out = np.empty_like(s)
            lossmin_ablation_scores(s, qptr, float(self.above_threshold_weight),
                                    bool(self.normalized), bool(self.calibrated), out)
            values = np.empty_like(out)
            values[order] = out
            return values

    return AblatedLossMin


def make_learner(variant: str, *, per_query: int, relevance_threshold: float,
                 random_state: int | None) -> ActiveRankLearner:
    """The learner behind a variant name (see :data:`VARIANTS`).

    Parameters
    ----------
    variant : str
        One of :data:`VARIANTS`.
    per_query : int
        Documents labeled per query and round.
    relevance_threshold : float
        Relevant: label >= this.
    random_state : int or None
        Seed of the learner.

    Returns
    -------
    learner : birank.ActiveRankLearner
        Unfitted (a subclass of it for the ablations of eq. 6 and 8).

    Examples
    --------
    >>> from birank.experiments.donmez_extensions import make_learner
    >>> learner = make_learner("lossmin-multilevel", per_query=5, relevance_threshold=1.0,
    ...                        random_state=0)
    >>> learner.strategy, learner.relevance
    ('lossmin-multilevel', 'graded')
    """
    from ..active_learning import ActiveRankLearner

    common: dict[str, Any] = {"per_query": per_query,
                              "relevance_threshold": relevance_threshold,
                              "random_state": random_state}
    if variant in MULTILEVEL:
        strategy, relevance = MULTILEVEL[variant]
        return ActiveRankLearner(strategy=strategy, relevance=relevance, **common)
    if variant == "lossmin-hinge":
        from ..batch.ranksvm import RankSVM
        return ActiveRankLearner(RankSVM(loss="hinge"), strategy="lossmin", **common)
    if variant in ("lossmin-eq6", "lossmin-uncalibrated"):
        return _ablation_class()(normalized=variant != "lossmin-eq6",
                                 calibrated=variant != "lossmin-uncalibrated", **common)
    raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}.")


def run_variants(name: str, rec: dict[str, Any], args: argparse.Namespace,
                 variants: Sequence[str], *,
                 report: Callable[[int, int | None, str], object] | None = None,
                 ) -> dict[str, Any]:
    """Run ``variants`` on the splits of data set ``name`` (as the main run did); the
    per-split results go into ``rec["runs"]`` beside the main methods'.

    Parameters
    ----------
    name : str
        A data set of :data:`birank.experiments.donmez.DATASETS`.
    rec : dict
        The main run's record of that data set (its ``protocol`` and ``runs``).
    args : argparse.Namespace
        The options of :func:`birank.experiments.donmez.add_arguments`.
    variants : sequence of str
        Names from :data:`VARIANTS`.
    report : callable, default=None
        ``report(step, total, message)`` after each split and variant.

    Returns
    -------
    rec : dict
        ``rec``, its ``runs`` extended.

    Examples
    --------
    >>> import argparse
    >>> from birank.experiments import donmez
    >>> from birank.experiments.donmez_extensions import run_variants
    >>> args = donmez.add_arguments(argparse.ArgumentParser()).parse_args(["--quick"])
    >>> args.data_home = "data"
    >>> rec, _ = donmez.run_dataset("MQ2008", args, lambda *a: None, 0, 1)  # doctest: +SKIP
    >>> rec = run_variants("MQ2008", rec, args, ["lossmin-eq6"])  # doctest: +SKIP
    """
    from .donmez import DATASETS, _splits

    spec = DATASETS[name]
    rounds = rec["protocol"]["rounds"]
    n_seeds = args.seeds if args.seeds is not None else (
        1 if spec["layout"] in ("partitions", "mq") else 5)
    if args.quick:
        n_seeds = 1
    for v in variants:
        rec["runs"].setdefault(v, [])
    for label, seed, X, y, g, Xt, yt, gt in _splits(name, args.data_home, n_seeds, args.quick):
        for v in variants:
            learner = make_learner(v, per_query=spec["per_query"],
                                   relevance_threshold=spec["relevance_threshold"],
                                   random_state=args.seed + seed)
            res = learner.simulate(X, y, g, Xt, yt, gt, n_rounds=rounds,
                                   n_initial_relevant=spec["initial_relevant"],
                                   n_initial_nonrelevant=spec["initial_nonrelevant"])
            rec["runs"][v].append({k: res[k] for k in ("auc", "map", "ndcg", "n_labeled",
                                                        "train_s", "rank_s", "select_s",
                                                        "round_s")}
                                  | {"oracle_reads": res["oracle_reads"]})
            if report is not None:
                report(0, None, f"{name} {label} {v}")
    return rec


def _comparison_table(rec, rows_spec, metrics):
    from ._report import markdown_table
    from .donmez import _cmp, paired_tests, unit_values

    out_rows = []
    n_units = None
    for metric, title in metrics:
        vals = unit_values(rec, metric)
        n_units = len(next(iter(vals.values())))
        for a, b in rows_spec:
            if a not in vals or b not in vals:
                continue
            d = paired_tests(vals, a, b)
            out_rows.append([title, f"{LABELS.get(a, a)} − {LABELS.get(b, b)}",
                             f"{nanmean(vals[a]):.4f}", f"{nanmean(vals[b]):.4f}",
                             _cmp(d)])
    if not out_rows:
        return [], n_units
    return [markdown_table(["metric", "comparison", "mean A", "mean B",
                            "A − B [95% CI] (t p, Wilcoxon p)"], out_rows,
                           align=["l", "l", "r", "r", "r"])], n_units


def variant_lines(res: Mapping[str, Any]) -> list[str]:
    """The report's sections for the variants present in ``res`` (empty when none ran).

    Parameters
    ----------
    res : dict
        The results of :func:`birank.experiments.donmez.run` (its ``datasets``).

    Returns
    -------
    lines : list of str
        Markdown.

    Examples
    --------
    >>> from birank.experiments.donmez_extensions import variant_lines
    >>> variant_lines({"datasets": {"MQ2008": {"runs": {"lossmin": [], "random": []}}}})
    []
    """
    lines = []
    ml = {n: r for n, r in res["datasets"].items()
          if any(v in r["runs"] and r["runs"][v] for v in MULTILEVEL)}
    if ml:
        lines += ["\n## Multi-level relevance: LossMin with one threshold per level "
                  "(the paper's future work)\n",
                  "Footnote 2 of the paper: “An extension of this work to multi-level "
                  "ratings is projected future work”; after eq. (6): multi-level ratings "
                  "mean “multiple thresholds … with uncertain points being specific to "
                  "each threshold”. `ActiveRankLearner(strategy='lossmin-multilevel', "
                  "relevance='graded')`: in each query the L − 1 largest score gaps "
                  "(L = levels taught so far) are the rank thresholds, each with its "
                  "calibrated posterior and eq. (7) term, averaged; the ranker learns from "
                  "the grades (pairs between any two levels). Compared with the paper's "
                  "binarized LossMin and Random (main run, same splits and initial sets) "
                  "and, to tell the two changes apart, LossMin and Random with the graded "
                  "ranker. Paired tests over the independent units (one number per unit: "
                  "the mean over rounds 1..R). When the variants come from a separate run "
                  "(`--merge`), LossMin and Random are the main run's: same splits, seeds "
                  "and initial sets, but a difference then also holds any run-to-run "
                  "change of the ranker's solver.\n"]
        pairs = [("lossmin-multilevel", "lossmin"), ("lossmin-multilevel", "random"),
                 ("lossmin-multilevel", "lossmin-graded"),
                 ("lossmin-multilevel", "random-graded"), ("lossmin-graded", "lossmin"),
                 ("random-graded", "random")]
        for name, rec in ml.items():
            table, n_units = _comparison_table(rec, pairs, (("map", "MAP"),
                                                            ("ndcg", "NDCG@10"),
                                                            ("auc", "AUC")))
            lines += [f"\n### {name} ({n_units} independent units)\n"] + table
    ab = {n: r for n, r in res["datasets"].items()
          if any(v in r["runs"] and r["runs"][v] for v in ABLATIONS)}
    if ab:
        lines += ["\n## Ablations of LossMin\n",
                  "Each row changes one piece of LossMin and compares it with the full "
                  "method (paired over the units, as above): "
                  + "; ".join(f"{LABELS[v]}: {d}" for v, d in ABLATIONS.items()) + ".\n"]
        for name, rec in ab.items():
            table, n_units = _comparison_table(
                rec, [(v, "lossmin") for v in ABLATIONS],
                (("auc", "AUC"), ("map", "MAP"), ("ndcg", "NDCG@10")))
            lines += [f"\n### {name} ({n_units} independent units)\n"] + table
    return lines
