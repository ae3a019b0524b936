"""``birank active-learn``: rounds of per-query active selection over a LIBSVM pool."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import UserError

_HELP = """\
Pool-based active learning to rank (donmez-carbonell LossMin and baselines) over
POOL, a LIBSVM/SVMlight file with qid: tokens (or a LightGBM POOL.query file).
LABELS plays the person who labels: one label per pool row (a column of numbers,
or a LIBSVM file whose first column is read); a label is read only when its row
is chosen, and every read is counted.

Round 0 is the initial labeled set: the rows listed in --initial (0-based row
numbers, one per line), or else --initial-relevant relevant and
--initial-nonrelevant non-relevant random rows per query. Each further round
fits the ranker on the labeled rows, chooses --per-query rows of every query
and writes them to OUT_DIR/round-NN.txt ("row<TAB>qid", rows 0-based); a
summary of every round goes to OUT_DIR/summary.json. With
--test, AUC, MAP and NDCG@10 on the test file are printed after each round.
Existing round files are never overwritten without --force.
"""


def register(subparsers):
    p = subparsers.add_parser(
        "active-learn", help="active learning to rank: choose the rows to label, per query",
        description=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pool", metavar="POOL")
    p.add_argument("--labels", required=True, metavar="LABELS")
    p.add_argument("--out-dir", required=True, metavar="OUT_DIR")
    p.add_argument("--strategy", default="lossmin",
                   choices=["lossmin", "entropy", "uncertain", "diverse", "random"])
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--per-query", type=int, default=5)
    p.add_argument("--lam", type=float, default=0.6)
    p.add_argument("--relevance-threshold", type=float, default=1.0,
                   help="labels >= this are relevant (default 1)")
    p.add_argument("--initial", default=None, metavar="ROWS",
                   help="file of initially labeled rows (0-based, one per line)")
    p.add_argument("--initial-relevant", type=int, default=1)
    p.add_argument("--initial-nonrelevant", type=int, default=10)
    p.add_argument("--test", default=None, metavar="TEST",
                   help="LIBSVM file with qid: to evaluate on after each round")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--force", action="store_true", help="overwrite existing round files")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=_active_learn)


def _check_args(args):
    for name in ("rounds", "initial_relevant", "initial_nonrelevant"):
        if getattr(args, name) < 0:
            raise UserError(f"--{name.replace('_', '-')} must be >= 0; got "
                            f"{getattr(args, name)}.")


def _read_rows(path, n):
    import numpy as np

    from ._evaluate import _read_column

    rows = _read_column(path, "row number")
    if (rows != np.floor(rows)).any() or rows.min() < 0 or rows.max() >= n:
        raise UserError(f"{path}: row numbers must be integers in [0, {n}).")
    return rows.astype(np.int64)


def _write_round(path, rows, groups):
    with open(path, "w") as fh:
        fh.write("# row\tqid\n")
        for r in rows:
            fh.write(f"{int(r)}\t{groups[r]}\n")


def _active_learn(args):
    import numpy as np

    from ..active_learning import ActiveRankLearner, LabelOracle, query_metrics
    from ._common import read_data
    from ._evaluate import _read_labels

    _check_args(args)
    X, _, groups = read_data(args.pool)
    if groups is None:
        raise UserError(f"{args.pool}: no qid: tokens and no {args.pool}.query file; "
                        "active learning to rank needs the query of every row.")
    labels, _ = _read_labels(args.labels)
    if labels.shape[0] != X.shape[0]:
        raise UserError(f"{args.labels} has {labels.shape[0]} labels; {args.pool} has "
                        f"{X.shape[0]} rows.")
    test = None
    if args.test:
        Xt, yt, gt = read_data(args.test, n_features=X.shape[1])
        if gt is None:
            raise UserError(f"{args.test}: no qid: tokens (test queries are needed).")
        test = (Xt, yt, gt)
    out = Path(args.out_dir)
    names = [out / f"round-{t:02d}.txt" for t in range(args.rounds + 1)]
    existing = [p for p in names + [out / "summary.json"] if p.exists()]
    if existing and not args.force:
        raise UserError(f"{existing[0]} exists; use --force to overwrite round files and "
                        "summary.json.")
    out.mkdir(parents=True, exist_ok=True)
    learner = ActiveRankLearner(strategy=args.strategy, per_query=args.per_query, lam=args.lam,
                                relevance_threshold=args.relevance_threshold,
                                random_state=args.seed)
    oracle = LabelOracle(labels)
    if args.initial:
        seed = np.unique(_read_rows(args.initial, X.shape[0]))
        seed_labels = oracle.label(seed)
    else:
        seed, seed_labels = oracle.seed(groups, args.relevance_threshold,
                                        args.initial_relevant, args.initial_nonrelevant,
                                        args.seed)
    learner.teach(seed, seed_labels, X_pool=X, groups=groups)
    _write_round(names[0], seed, groups)
    log = []

    def report(t, rows):
        rec = {"round": t, "chosen": int(rows.size), "labeled": int(learner.labeled_mask_.sum()),
               "label_reads": oracle.n_reads, "file": str(names[t])}
        if test is not None:
            rec.update(query_metrics(test[1], learner.decision_function(test[0]), test[2],
                                     args.relevance_threshold))
        log.append(rec)
        if not args.quiet:
            extra = "" if test is None else \
                f"  AUC {rec['auc']:.4f}  MAP {rec['map']:.4f}  NDCG@10 {rec['ndcg']:.4f}"
            print(f"round {t:2d}: chose {rec['chosen']:5d}, labeled {rec['labeled']:6d}{extra}"
                  f"  -> {names[t]}")

    report(0, seed)
    for t in range(1, args.rounds + 1):
        rows = learner.query()
        _write_round(names[t], rows, groups)
        if rows.size:
            learner.teach(rows, oracle.label(rows))
        report(t, rows)
        if not rows.size:
            break
    summary = out / "summary.json"
    with open(summary, "w") as fh:
        json.dump({"strategy": args.strategy, "per_query": args.per_query,
                   "relevance_threshold": args.relevance_threshold, "rounds": log}, fh, indent=2)
    return 0
