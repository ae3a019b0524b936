"""``birank active-learn query|teach|simulate``: per-query active learning to rank.

``query`` and ``teach`` put a person in the loop: the pool is a LIBSVM file whose
unknown labels are ``?`` (or missing: the line starts with ``qid:``), the state
of the loop is a small JSON file, and no label is ever read that nobody wrote.
``simulate`` replays the loop with every label known in advance (the papers'
protocol) and counts the labels it reads.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from pathlib import Path

from . import UserError

_HELP = """\
Pool-based active learning to rank (donmez-carbonell LossMin and baselines); every
query of the pool gets --per-query rows to label per round.

  birank active-learn query POOL --state S.json [-o TO_LABEL.tsv]
      POOL: LIBSVM with qid: (or a POOL.query file); a row whose label is '?' (or
      absent) is unlabeled. The first call chooses the initial rows (random per query,
      or --initial FILE) without looking at any label; later calls fit the ranker on
      the labeled rows and choose the most informative unlabeled ones. Writes
      "row<TAB>qid<TAB>?" lines (rows 0-based): replace each '?' by the label.
  birank active-learn teach --state S.json TO_LABEL.tsv
      Reads the labels a person wrote into that file and adds them to the state.
  birank active-learn simulate POOL --labels LABELS --output DIR
      The whole loop with a label file playing the person (each read counted).
"""


def _common_loop_options(p):
    p.add_argument("--strategy", default="lossmin",
                   choices=["lossmin", "entropy", "uncertain", "diverse", "random"],
                   help="selection strategy (default: lossmin, donmez-carbonell 2009)")
    p.add_argument("--per-query", type=int, default=5,
                   help="rows chosen per query per round (default: 5)")
    p.add_argument("--above-threshold-weight", "--lam", dest="above_threshold_weight",
                   type=float, default=0.6,
                   help="LossMin's weight of rows ranked above the threshold, eq. 7 "
                        "(default: 0.6)")
    p.add_argument("--relevance-threshold", type=float, default=1.0,
                   help="labels >= this are relevant (default: 1)")
    p.add_argument("--initial", default=None, metavar="ROWS",
                   help="file of initially labeled rows (0-based, one per line; default: "
                        "--initial-per-query random rows of every query)")
    p.add_argument("--initial-per-query", type=int, default=5, metavar="N",
                   help="random rows per query in the initial set, chosen without looking "
                        "at labels (default: 5)")
    p.add_argument("--seed", type=int, default=0,
                   help="random seed of the initial set and of the random strategies "
                        "(default: 0)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")


def register(subparsers):
    from ._common import add_deprecated_name, add_input_options

    p = subparsers.add_parser(
        "active-learn", help="active learning to rank: choose the rows to label, per query",
        description=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="al_command", metavar="ACTION")
    sub.required = True

    pq = sub.add_parser("query", help="choose the next rows for a person to label",
                        description=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    pq.add_argument("pool", metavar="POOL", help="LIBSVM pool with qid:, '?' = unlabeled")
    pq.add_argument("--state", required=True, metavar="STATE",
                    help="JSON state file (created by the first query)")
    pq.add_argument("--zero-based", default="auto", choices=("auto", "yes", "no"),
                    help="LIBSVM index base of POOL: auto (default; scikit-learn's rule: "
                         "one-based unless index 0 occurs), yes (0-based) or no (1-based)")
    pq.add_argument("-o", "--output", default="-", metavar="TO_LABEL",
                    help="where to write the rows to label (default: standard output)")
    pq.add_argument("--force", action="store_true",
                    help="overwrite TO_LABEL; query again although the last rows are untaught")
    _common_loop_options(pq)
    pq.set_defaults(func=_query)

    pt = sub.add_parser("teach", help="add the labels a person wrote to the state",
                        description=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    pt.add_argument("labeled", metavar="LABELED",
                    help="the TO_LABEL file of `query` with each '?' replaced by a label "
                         "(a row left '?' stays unlabeled)")
    pt.add_argument("--state", required=True, metavar="STATE", help="JSON state file")
    pt.add_argument("-q", "--quiet", action="store_true", help="no summary output")
    pt.set_defaults(func=_teach)

    ps = sub.add_parser(
        "simulate", help="run the loop with a label file playing the person",
        description="Rounds of selection over POOL with LABELS revealing the chosen rows "
                    "(each read counted). Round files OUTPUT/round-NN.txt (row<TAB>qid) and "
                    "OUTPUT/summary.json; never overwritten without --force.")
    ps.add_argument("pool", metavar="POOL",
                    help="pool file with query ids (qid:), in any format `birank train` reads; "
                         "its labels are not used but must be numbers (the ? of `query` pools "
                         "is for a person's loop)")
    ps.add_argument("--labels", required=True, metavar="LABELS",
                    help="one label per pool row (a column of numbers, or a LIBSVM file)")
    # (required in the usage only: --out-dir, its name before 1.0, may give it instead)
    ps.add_argument("--output", default=None, help="folder for the round files (required)")
    add_deprecated_name(ps, "--out-dir", "output", required=True)
    ps.add_argument("--rounds", type=int, default=20, help="rounds after the initial set "
                                                          "(default: 20)")
    ps.add_argument("--test", default=None, metavar="TEST",
                    help="LIBSVM file with qid: to evaluate on after each round (default: none)")
    ps.add_argument("--force", action="store_true", help="overwrite existing round files")
    _common_loop_options(ps)
    add_input_options(ps, n_features=False)
    ps.set_defaults(func=_simulate)


# ---------------------------------------------------------------------------- pool files
_UNKNOWN = re.compile(rb"^[ \t]*(\?|(?=qid:)|(?=\d+:))")


def read_pool(path, zero_based="auto"):
    """``(X, labels with NaN where unknown, groups, sha256)`` of a pool file.

    A line whose label is ``?``, or that starts with ``qid:`` or a feature
    (no label), is unlabeled. Only the labels written in the file are read.
    """
    import numpy as np

    from ..datasets._formats import read_source, sniff_format
    from ..datasets._svmlight import (decompress_bytes, groups_or_query_file,
                                      load_svmlight_bytes)

    try:
        raw = read_source(path)
    except OSError as exc:
        raise UserError(str(exc)) from None
    data = decompress_bytes(raw, path)
    fmt = sniff_format(data)
    if fmt != "libsvm":  # (its header or cells would be reported as bad LIBSVM labels)
        raise UserError(f"{path} reads as {fmt}; active-learn query takes a LIBSVM pool ('?' "
                        "for an unlabeled row's label, qid: for its query); `birank "
                        "active-learn simulate` reads the other formats")
    digest = hashlib.sha256(data).hexdigest()
    lines = data.split(b"\n")
    unknown = []
    for i, line in enumerate(lines):  # a pool is labeled by hand: small enough for this pass
        body = line.split(b"#", 1)[0]
        if not body.strip():
            continue
        m = _UNKNOWN.match(body)
        is_unknown = m is not None
        if is_unknown:
            lines[i] = b"0 " + body[m.end():].lstrip(b"?") + (
                b"#" + line.split(b"#", 1)[1] if b"#" in line else b"")
        unknown.append(is_unknown)
    try:
        X, y, qid = load_svmlight_bytes(b"\n".join(lines), name=path, zero_based=True)
    except ValueError as exc:
        from ._common import libsvm_error

        raise libsvm_error(path, exc) from None
    if zero_based == "no" and X.nnz and X.indices.min() == 0:
        raise UserError(f"{path}: feature index 0 in a file read as 1-based (--zero-based no); "
                        "use --zero-based yes or auto")
    if zero_based == "no" or (zero_based == "auto" and X.nnz and X.indices.min() > 0):
        # one-based (auto: scikit-learn's rule, as the other commands)
        import scipy.sparse as sp

        X = sp.csr_matrix((X.data, X.indices - 1, X.indptr),
                          shape=(X.shape[0], max(X.shape[1] - 1, 0)))
    qid = groups_or_query_file(path, qid, X.shape[0])
    if qid is None:
        raise UserError(f"{path}: no qid: tokens and no {path}.query file; active learning to "
                        "rank needs the query of every row.")
    y = y.copy()
    y[np.asarray(unknown, dtype=bool)] = np.nan
    return X, y, qid, digest


def _initial_rows(groups, per_query, seed, initial_file, n):
    """Initial rows: given in a file, or ``per_query`` random rows of every query (no labels)."""
    import numpy as np

    from .._validation import codes_of

    if initial_file:
        return np.unique(_read_rows(initial_file, n))
    rng = np.random.default_rng(seed)
    codes = codes_of(groups)
    key = rng.random(n)  # random order within each query: lexsort by (key, query)
    order = np.lexsort((key, codes))
    cs = codes[order]
    start = np.searchsorted(cs, cs)  # first position of each row's query
    rank = np.arange(n) - start
    return np.sort(order[rank < per_query])


def _read_rows(path, n):
    import numpy as np

    from ._evaluate import _read_column

    rows = _read_column(path, "row number")
    if (rows != np.floor(rows)).any() or rows.min() < 0 or rows.max() >= n:
        raise UserError(f"{path}: row numbers must be integers in [0, {n}).")
    return rows.astype(np.int64)


def _write_rows(path, rows, groups, force):
    from ._common import check_output, stdout_or_error

    text = "# row\tqid\tlabel (replace each ? by the label, then: birank active-learn teach)\n"
    text += "".join(f"{int(r)}\t{groups[r]}\t?\n" for r in rows)
    if path in (None, "-"):
        stdout_or_error().write(text)
        return
    check_output(path, force)
    from ..model_io import atomic_write_text

    atomic_write_text(path, text, overwrite=force)


def _load_state(path):
    try:
        with open(path) as fh:
            state = json.load(fh)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: not a birank active-learning state file ({exc})") from None
    if not isinstance(state, dict) or state.get("format") != "birank-active-state/1":
        raise UserError(f"{path}: not a birank active-learning state file")
    return state


def _save_state(path, state):
    from ..model_io import atomic_write_text

    atomic_write_text(path, json.dumps(state, indent=1) + "\n", overwrite=True)


def _learner(args):
    from ..active_learning import ActiveRankLearner

    return ActiveRankLearner(strategy=args.strategy, per_query=args.per_query,
                             above_threshold_weight=args.above_threshold_weight,
                             relevance_threshold=args.relevance_threshold,
                             random_state=args.seed)


def _check_loop_args(args):
    if args.per_query < 1 or args.initial_per_query < 1:
        raise UserError("--per-query and --initial-per-query must be >= 1")


def _query(args):
    import numpy as np

    from ._common import check_output

    _check_loop_args(args)
    # both outputs checked before any work: a query whose rows were written but whose
    # state could not be saved would ask for labels that `teach` then refuses
    check_output(args.state, force=True)  # (the state is rewritten every round)
    if args.output not in (None, "-"):
        check_output(args.output, args.force)
    X, y, groups, digest = read_pool(args.pool, args.zero_based)
    state = _load_state(args.state)
    n = X.shape[0]
    if state is None:
        state = {"format": "birank-active-state/1", "pool": os.path.abspath(args.pool),
                 "pool_sha256": digest, "n_rows": n, "round": 0, "labels": {}, "pending": []}
    elif state["n_rows"] != n:
        raise UserError(f"{args.state} belongs to a pool of {state['n_rows']} rows; "
                        f"{args.pool} has {n}")
    if state["pending"] and not args.force:
        raise UserError(f"{len(state['pending'])} rows of the last query are not taught yet; "
                        f"run `birank active-learn teach --state {args.state} FILE` first "
                        "(or --force to choose again)")
    taught = {int(k): float(v) for k, v in state["labels"].items()}
    known = np.flatnonzero(~np.isnan(y))  # labels written in the pool itself
    for r in known.tolist():
        taught.setdefault(r, float(y[r]))
    if not taught:
        rows = _initial_rows(groups, args.initial_per_query, args.seed, args.initial, n)
    else:
        learner = _learner(args)
        idx = np.fromiter(taught.keys(), dtype=np.int64, count=len(taught))
        lab = np.fromiter(taught.values(), dtype=np.float64, count=len(taught))
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # one class so far: the learner says so below
            learner.teach(idx, lab, X_pool=X, groups=groups)
            rows = learner.query()
    state["pending"] = [int(r) for r in rows]
    state["pending_qids"] = [str(groups[r]) for r in rows]  # checked by `teach`
    state["round"] += 1
    _write_rows(args.output, rows, groups, args.force)
    _save_state(args.state, state)
    if not args.quiet:
        print(f"round {state['round']}: {len(rows)} rows to label ({len(taught)} labeled so "
              f"far) -> {args.output}", file=sys.stderr)
    return 0


def _teach(args):
    state = _load_state(args.state)
    if state is None:
        raise UserError(f"{args.state}: no such state file; run `birank active-learn query` "
                        "first")
    pending = set(state["pending"])
    qid_of = dict(zip(state["pending"], state.get("pending_qids", [])))
    seen = {}  # row -> line of this file that labeled it
    added = 0
    from ..datasets._formats import read_source

    try:
        text = read_source(args.labeled).decode("utf-8", errors="replace")
    except OSError as exc:
        raise UserError(str(exc)) from None
    import math

    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].split()
        if not body:
            continue
        if len(body) != 3:
            raise UserError(f"{args.labeled}, line {lineno}: expected row<TAB>qid<TAB>label; "
                            f"got {len(body)} fields")
        row_s, qid_s, lab_s = body
        if lab_s == "?":
            continue
        try:
            row, lab = int(row_s), float(lab_s)
        except ValueError:
            raise UserError(f"{args.labeled}, line {lineno}: bad row {row_s!r} or label "
                            f"{lab_s!r}") from None
        if not math.isfinite(lab):
            raise UserError(f"{args.labeled}, line {lineno}: label must be finite")
        if row in seen:
            raise UserError(f"{args.labeled}, line {lineno}: row {row} is labeled twice "
                            f"(also on line {seen[row]})")
        if row not in pending:
            raise UserError(f"{args.labeled}, line {lineno}: row {row} was not asked for by "
                            "the last query")
        if row in qid_of and qid_s != qid_of[row]:
            raise UserError(f"{args.labeled}, line {lineno}: row {row} is in query "
                            f"{qid_of[row]}, not {qid_s} (was the row or qid column edited?)")
        seen[row] = lineno
        state["labels"][str(row)] = lab
        pending.discard(row)
        added += 1
    state["pending"] = sorted(pending)
    state["pending_qids"] = [qid_of[r] for r in state["pending"] if r in qid_of]
    _save_state(args.state, state)
    if not args.quiet:
        print(f"taught {added} label{'s' * (added != 1)} ({len(state['labels'])} in all; "
              f"{len(pending)} of the "
              "last query still unlabeled)", file=sys.stderr)
    return 0


def _write_round(path, rows, groups):
    with open(path, "w") as fh:
        fh.write("# row\tqid\n")
        for r in rows:
            fh.write(f"{int(r)}\t{groups[r]}\n")


def _simulate(args):
    from ..active_learning import LabelOracle, query_metrics
    from ._common import read_data, take_deprecated_name
    from ._evaluate import _read_labels

    take_deprecated_name(args, "--out-dir", "--output", "output")
    if args.output is None:
        raise UserError("--output DIR is required: the folder for the round files")
    _check_loop_args(args)
    if args.rounds < 0:
        raise UserError(f"--rounds must be >= 0; got {args.rounds}.")
    X, _, groups = read_data(args.pool, args=args, quiet=args.quiet)
    if groups is None:
        raise UserError(f"{args.pool}: no qid: tokens and no {args.pool}.query file; "
                        "active learning to rank needs the query of every row.")
    labels, _ = _read_labels(args.labels)
    if labels.shape[0] != X.shape[0]:
        raise UserError(f"{args.labels} has {labels.shape[0]} labels; {args.pool} has "
                        f"{X.shape[0]} rows.")
    test = None
    if args.test:
        Xt, yt, gt = read_data(args.test, n_features=X.shape[1], args=args, quiet=args.quiet)
        if gt is None:
            raise UserError(f"{args.test}: no qid: tokens (test queries are needed).")
        test = (Xt, yt, gt)
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UserError(f"--output {out} is a file; give a folder for the round files")
    names = [out / f"round-{t:02d}.txt" for t in range(args.rounds + 1)]
    existing = [p for p in names + [out / "summary.json"] if p.exists()]
    if existing and not args.force:
        raise UserError(f"{existing[0]} exists; use --force to overwrite round files and "
                        "summary.json.")
    out.mkdir(parents=True, exist_ok=True)
    learner = _learner(args)
    oracle = LabelOracle(labels)
    # the initial set is chosen without looking at any label, then revealed
    seed = _initial_rows(groups, args.initial_per_query, args.seed, args.initial, X.shape[0])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        learner.teach(seed, oracle.label(seed), X_pool=X, groups=groups)
    _write_round(names[0], seed, groups)
    log = []

    def report(t, rows):
        rec = {"round": t, "chosen": int(rows.size), "labeled": int(learner.labeled_mask_.sum()),
               "label_reads": oracle.n_reads, "file": str(names[t])}
        if test is not None:
            rec.update(query_metrics(test[1], learner.decision_function(test[0]), test[2],
                                     relevance_threshold=args.relevance_threshold))
        log.append(rec)
        if not args.quiet:
            extra = "" if test is None else \
                f"  AUC {rec['auc']:.4f}  MAP {rec['map']:.4f}  NDCG@10 {rec['ndcg']:.4f}"
            print(f"round {t:2d}: chose {rec['chosen']:5d}, labeled {rec['labeled']:6d}{extra}"
                  f"  -> {names[t]}", file=sys.stderr)  # progress: stderr, as query/teach

    report(0, seed)
    for t in range(1, args.rounds + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows = learner.query()
        _write_round(names[t], rows, groups)
        if rows.size:
            learner.teach(rows, oracle.label(rows))
        report(t, rows)
        if not rows.size:
            break
    with open(out / "summary.json", "w") as fh:
        json.dump({"strategy": args.strategy, "per_query": args.per_query,
                   "relevance_threshold": args.relevance_threshold, "rounds": log}, fh, indent=2)
    return 0
