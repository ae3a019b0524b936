"""``birank evaluate``: labels + scores (+ groups) -> every ranking metric that applies."""

from __future__ import annotations

import json
import os

from . import UserError

_HELP = """\
LABELS is a text file with one label per line, or a data file (LIBSVM/SVMlight: its
first column is the label; its qid: tokens, or a LightGBM <file>.query next to it, give
the groups unless --groups/--query-file is passed; CSV/TSV/.npz as for `birank train`).
SCORES has one score per line, in the same order. GROUPS has one query id per line;
QUERY_FILE holds LightGBM query sizes. Blank lines and '#' comments are ignored.

Labels are read as numbers exactly as birank.metrics reads them (never re-coded).
Printed: roc_auc (two label values; pooled over all rows) and optroc_accuracy;
with --per-group also the mean of the per-query AUCs; pairwise_accuracy and
kendall_tau (pairs with different labels, within groups if given); with groups
mean_average_precision (relevant = label > 0) and ndcg@K (gains 2^label - 1, or the
label with --ndcg-gain linear; labels must be >= 0).

Conventions (stated in the report): a query without a relevant document counts
as 0 in MAP and NDCG (--no-relevant zero, as trec_eval and the LETOR script) or is
left out (skip). --letor reproduces the LETOR 3.0/4.0 evaluation script
(Eval-Score): ties ranked in file order, NDCG positions 1 and 2 undiscounted and
position p >= 3 discounted by 1/log2(p), a query shorter than K scores 0 in NDCG@K,
queries without relevant documents count as 0.
"""


def register(subparsers):
    p = subparsers.add_parser(
        "evaluate", help="ranking metrics of scores against labels",
        description=_HELP, formatter_class=__import__("argparse").RawDescriptionHelpFormatter,
    )
    p.add_argument("--labels", required=True, metavar="LABELS",
                   help="labels: one per line, or a data file ('-': standard input)")
    p.add_argument("--scores", required=True, metavar="SCORES",
                   help="scores: one per line, same order as LABELS ('-': standard input, "
                        "e.g. piped from `birank predict`)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--groups", default=None, metavar="GROUPS",
                   help="query ids, one per line (default: from LABELS if it has them)")
    g.add_argument("--query-file", default=None, metavar="QUERY_FILE",
                   help="LightGBM query sizes (one count of consecutive rows per line)")
    p.add_argument("--k", type=int, default=10, help="NDCG cut-off (default: 10)")
    p.add_argument("--no-relevant", default="zero", choices=("zero", "skip"),
                   help="a query without relevant documents counts as 0 in MAP/NDCG (zero, "
                        "default: trec_eval, LETOR) or is left out of the mean (skip)")
    p.add_argument("--ndcg-gain", default="exp", choices=("exp", "linear"),
                   help="NDCG gain of label l: 2^l - 1 (exp, default) or l (linear)")
    p.add_argument("--letor", action="store_true",
                   help="the LETOR evaluation script's MAP and NDCG@K (see above); implies "
                        "--no-relevant zero and --ndcg-gain exp")
    p.add_argument("--per-group", action="store_true",
                   help="also the mean over queries of each query's ROC AUC")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    from ._common import add_input_options

    add_input_options(p, n_features=False)
    p.set_defaults(func=_evaluate)


def _column_bytes(path):
    """The (decompressed) bytes of a one-column file; ``-`` is standard input."""
    if path == "-":
        import sys

        from ..datasets._svmlight import decompress_bytes

        return decompress_bytes(sys.stdin.buffer.read(), "<stdin>")
    if not os.path.exists(path):
        raise UserError(f"no such file: {path}")
    from ..datasets._svmlight import read_bytes

    return read_bytes(path)


def _data_lines(data):
    text = data.decode("utf-8", errors="replace")
    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if body:
            yield lineno, body


def _fast_column(data):
    """One finite number per line, parsed by numpy; None when the slow path must decide."""
    import numpy as np  # here, not at the top: `birank --help` must not pay for numpy

    if b"#" in data:
        return None
    tokens = data.split()
    n_lines = sum(1 for line in data.splitlines() if line.strip())
    if not tokens or len(tokens) != n_lines:
        return None
    try:
        values = np.array(tokens, dtype=np.float64)
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


#: files above this size are read line by line (O(rows) memory, not O(file))
STREAM_BYTES = 256 * 2**20


def _read_column(path, kind, numeric=True):
    import numpy as np  # here, not at the top: `birank --help` must not pay for numpy

    if path != "-" and not os.path.exists(path):
        raise UserError(f"no such file: {path}")
    if numeric and path != "-" and os.path.isfile(path) and os.path.getsize(path) > STREAM_BYTES:
        from ._stream import stream_column

        return stream_column(path, kind)
    data = _column_bytes(path)
    if numeric:
        values = _fast_column(data)
        if values is not None:
            return values
    values = []
    for lineno, body in _data_lines(data):
        toks = body.split()
        if len(toks) != 1:
            raise UserError(f"{path}, line {lineno}: expected one {kind} per line; got "
                            f"{len(toks)} values.")
        if numeric:
            from ._stream import column_value  # (the streamed reader's words)

            values.append(column_value(toks[0], path, lineno, kind))
        else:
            values.append(toks[0])
    if not values:
        raise UserError(f"{path}: no data lines (empty file or only comments).")
    return np.asarray(values, dtype=np.float64 if numeric else object)


def _sniff(path):
    from ..datasets._formats import sniff_format
    from ._stream import open_stream

    if not os.path.exists(path):
        raise UserError(f"no such file: {path}")
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory, not a data file")
    if not os.path.isfile(path):
        return "stream"  # a FIFO: read once, whole
    with open_stream(path) as fh:
        return sniff_format(fh.read(65536))


def _read_labels(path, duplicates="error", args=None):
    """Labels and (if the file says so) groups; LIBSVM files are detected by ':' tokens."""
    from ._stream import first_data_line

    if path == "-" or (args is not None and args.format not in ("auto", "libsvm")) \
            or _sniff(path) not in ("libsvm",):
        from ._common import label_note, read_data

        read = {}
        _, y, qid = read_data(path, args=args, info=read)
        label_note(path, read, args)
        return y, qid
    from ._common import refuse_ignore_column

    refuse_ignore_column(f"{path} (read as libsvm)", args)
    body = first_data_line(path)  # streamed: the file is not read whole to decide
    is_svm = b":" in body or len(body.split()) > 1
    if not is_svm:
        return _read_column(path, "label"), None
    if args is not None:
        duplicates = args.duplicates
    if os.path.getsize(path) > STREAM_BYTES:  # larger than we want in memory: labels only
        from ._common import reading_progress
        from ._stream import stream_svmlight_labels

        return stream_svmlight_labels(path, duplicates, progress=reading_progress(path))
    from ..datasets._svmlight import groups_or_query_file, load_svmlight_path
    from ._common import _PROGRESS_BYTES, reading_progress

    # the progress line of a file read whole, as train's (a streamed one always shows it)
    progress = reading_progress(path) if os.path.getsize(path) >= _PROGRESS_BYTES else None
    try:  # the same reader and the same duplicates rule as train and predict (a plain
        # file a block at a time); labels only: any index base
        X, y, qid = load_svmlight_path(path, duplicates=duplicates, zero_based=True,
                                       progress=progress)
    except ValueError as exc:
        from ._common import libsvm_error

        raise libsvm_error(path, exc) from None
    return y, groups_or_query_file(path, qid, X.shape[0])


def compute_metrics(y, scores, groups=None, k=10, no_relevant="zero", gain="exp",
                    letor=False, per_group=False):
    """Dict of every metric that applies to these labels (and groups), and its conventions."""
    import numpy as np  # here, not at the top: `birank --help` must not pay for numpy

    from .. import metrics as m
    from .._validation import codes_of

    if letor:
        no_relevant, gain = "zero", "exp"
    convention = "letor" if letor else "standard"
    out = {"rows": int(len(y))}
    values = np.unique(y)
    binary = len(values) == 2
    if len(values) < 2:
        raise UserError("the labels hold a single value; no metric is defined.")
    if binary:
        out["roc_auc"] = m.roc_auc(y, scores)
        out["optroc_accuracy"] = m.optroc_accuracy(y, scores)
        if groups is not None:
            out["roc_auc_scope"] = "pooled over all rows (rows of different queries compared)"
            if per_group:
                auc, used = m.roc_auc_per_group(y, scores, groups)
                out["roc_auc_per_group_mean"] = auc
                out["roc_auc_per_group_queries"] = used
        elif per_group:
            out["roc_auc_per_group_note"] = ("skipped: no query ids (qid: tokens, a .query "
                                             "file, --groups or --query-file)")
    elif per_group:
        out["roc_auc_per_group_note"] = "skipped: AUC needs two label values"
    try:
        out["pairwise_accuracy"] = m.pairwise_accuracy(y, scores, groups=groups)
        out["kendall_tau"] = 2.0 * out["pairwise_accuracy"] - 1.0
    except ValueError as exc:  # no within-group pair with different labels
        out["pairwise_accuracy_note"] = str(exc)
    if groups is not None:
        codes = codes_of(groups)
        n_groups = int(codes.max()) + 1
        out["groups"] = n_groups
        has_rel = np.bincount(codes, weights=(y > 0).astype(np.float64),
                              minlength=n_groups) > 0
        out["groups_without_relevant"] = int(n_groups - has_rel.sum())
        try:
            # relevant = label > 0, also for real-valued labels: label >= the smallest
            # positive float64 (on integer grades the same as the default, label >= 1)
            out["mean_average_precision"] = m.mean_average_precision(
                y, scores, groups, relevance_threshold=np.nextafter(0.0, 1.0),
                no_relevant=no_relevant, convention=convention)
        except ValueError as exc:
            out["mean_average_precision_note"] = str(exc)
        if (y >= 0).all():
            try:
                out[f"ndcg@{k}"] = m.ndcg_at_k(y, scores, groups, k=k, no_relevant=no_relevant,
                                               gain=gain, convention=convention)
            except ValueError as exc:
                out[f"ndcg@{k}_note"] = str(exc)
        else:
            out[f"ndcg@{k}_note"] = ("skipped: labels below 0 (NDCG needs grades >= 0; "
                                     "relabel, e.g. -1 -> 0)")
        out["conventions"] = {
            "relevant": "label > 0",
            "no_relevant": ("counted as 0" if no_relevant == "zero" else "left out of the mean"),
            "ndcg_gain": "2^label - 1" if gain == "exp" else "label",
            "ndcg_discount": ("LETOR script: positions 1-2 undiscounted, 1/log2(p) after; "
                              "queries shorter than k score 0" if letor
                              else "1/log2(p + 1)"),
            "ties": "file order (LETOR script)" if letor else "averaged over tied rows",
            "pairs": "within a query for pairwise_accuracy, kendall_tau and the per-group "
                     "AUC; across queries for roc_auc (pooled)",
        }
    return out


def _evaluate(args):
    if args.k < 1:
        raise UserError(f"--k must be a positive integer; got {args.k}.")
    if args.letor and (args.no_relevant != "zero" or args.ndcg_gain != "exp"):
        raise UserError("--letor fixes --no-relevant zero and --ndcg-gain exp; drop the others")
    stdin = [name for name, path in (("--labels", args.labels), ("--scores", args.scores),
                                      ("--groups", args.groups)) if path == "-"]
    if len(stdin) > 1:
        raise UserError(f"{' and '.join(stdin)} both read standard input ('-'); give one of "
                        "them as a file")
    y, groups = _read_labels(args.labels, args=args)
    scores = _read_column(args.scores, "score")
    if len(scores) != len(y):
        raise UserError(f"{args.scores} has {len(scores)} scores but {args.labels} has "
                        f"{len(y)} labels.")
    if args.groups is not None:
        groups = _read_column(args.groups, "group id", numeric=False).astype(str)
    elif args.query_file is not None:
        from ..datasets._svmlight import read_query_file

        groups = read_query_file(args.query_file, n_rows=len(y))
    if groups is not None and len(groups) != len(y):
        source = args.groups or args.query_file or args.labels
        raise UserError(f"{source} has {len(groups)} group ids but {args.labels} has "
                        f"{len(y)} labels.")
    res = compute_metrics(y, scores, groups, k=args.k, no_relevant=args.no_relevant,
                          gain=args.ndcg_gain, letor=args.letor, per_group=args.per_group)
    if args.json:
        print(json.dumps(res))
        return 0
    conventions = res.pop("conventions", None)
    for key, val in res.items():
        if isinstance(val, float):
            print(f"{key:<28}{val:.6f}")
        else:
            print(f"{key:<28}{val}")
    if conventions:
        print("conventions: " + "; ".join(f"{k} = {v}" for k, v in conventions.items()))
    return 0
