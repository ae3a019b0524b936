"""``birank evaluate``: labels + scores (+ groups) -> every ranking metric that applies."""

from __future__ import annotations

import json
import os

from . import UserError

_HELP = """\
LABELS is a text file with one label per line, or a LIBSVM/SVMlight file (its first
column is the label; its qid: tokens, or a LightGBM <file>.query next to it, give the
groups unless --groups/--query-file is passed). SCORES has one score per line, in the
same order. GROUPS has one query id per line; QUERY_FILE holds LightGBM query sizes.
Blank lines and '#' comments are ignored.

Printed: roc_auc and optroc_accuracy (binary labels), pairwise_accuracy and
kendall_tau (pairs with different labels, within groups if given), and with groups
mean_average_precision (relevant = label > 0, or the positive class for binary
labels) and ndcg@10 (gains 2^label - 1; binary labels as 0/1).
"""


def register(subparsers):
    p = subparsers.add_parser(
        "evaluate", help="ranking metrics of scores against labels",
        description=_HELP, formatter_class=__import__("argparse").RawDescriptionHelpFormatter,
    )
    p.add_argument("--labels", required=True, metavar="LABELS")
    p.add_argument("--scores", required=True, metavar="SCORES")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--groups", default=None, metavar="GROUPS")
    g.add_argument("--query-file", default=None, metavar="QUERY_FILE")
    p.add_argument("--k", type=int, default=10, help="NDCG cut-off (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    from ._common import add_duplicates_option

    add_duplicates_option(p)
    p.set_defaults(func=_evaluate)


def _data_lines(path):
    if not os.path.exists(path):
        raise UserError(f"{path}: no such file.")
    from ..datasets._svmlight import read_bytes

    text = read_bytes(path).decode("utf-8", errors="replace")
    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if body:
            yield lineno, body


def _fast_column(path):
    """One finite number per line, parsed by numpy; None when the slow path must decide."""
    import numpy as np  # here, not at the top: `birank --help` must not pay for numpy

    from ..datasets._svmlight import read_bytes

    data = read_bytes(path)
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

    if not os.path.exists(path):
        raise UserError(f"{path}: no such file.")
    if numeric and os.path.getsize(path) > STREAM_BYTES:
        from ._stream import stream_column

        return stream_column(path, kind)
    if numeric:
        values = _fast_column(path)
        if values is not None:
            return values
    values = []
    for lineno, body in _data_lines(path):
        toks = body.split()
        if len(toks) != 1:
            raise UserError(f"{path}, line {lineno}: expected one {kind} per line; got "
                            f"{len(toks)} values.")
        if numeric:
            try:
                v = float(toks[0])
            except ValueError:
                raise UserError(f"{path}, line {lineno}: bad {kind} {toks[0]!r}.") from None
            if not np.isfinite(v):
                raise UserError(f"{path}, line {lineno}: {kind} must be finite; got {toks[0]}.")
            values.append(v)
        else:
            values.append(toks[0])
    if not values:
        raise UserError(f"{path}: no data lines.")
    return np.asarray(values, dtype=np.float64 if numeric else object)


def _read_labels(path, duplicates="error"):
    """Labels and (if the file says so) groups; LIBSVM files are detected by ':' tokens."""
    from ._stream import first_data_line

    body = first_data_line(path)  # streamed: the file is not read whole to decide
    is_svm = b":" in body or len(body.split()) > 1
    if not is_svm:
        return _read_column(path, "label"), None
    if os.path.getsize(path) > STREAM_BYTES:  # larger than we want in memory: labels only
        from ._stream import stream_svmlight_labels

        y, qid = stream_svmlight_labels(path)
        if qid is None and os.path.exists(path + ".query"):
            from ..datasets._svmlight import read_query_file

            qid = read_query_file(path + ".query", n_rows=y.shape[0])
        return y, qid
    from ..datasets._svmlight import load_svmlight_bytes, read_bytes, read_query_file

    try:  # the same reader and the same duplicates rule as train and predict
        X, y, qid = load_svmlight_bytes(read_bytes(path), path, duplicates=duplicates)
    except ValueError as exc:
        from ._common import loader_error

        raise loader_error(exc) from None
    if qid is None and os.path.exists(path + ".query"):
        qid = read_query_file(path + ".query", n_rows=X.shape[0])
    return y, qid


def compute_metrics(y, scores, groups=None, k=10):
    """Dict of every metric that applies to these labels (and groups)."""
    import numpy as np  # here, not at the top: `birank --help` must not pay for numpy

    from .. import metrics as m

    out = {"rows": int(len(y))}
    values = np.unique(y)
    binary = len(values) == 2
    if len(values) < 2:
        raise UserError("the labels hold a single value; no metric is defined.")
    if binary:
        out["roc_auc"] = m.roc_auc(y, scores)
        out["optroc_accuracy"] = m.optroc_accuracy(y, scores)
    try:
        out["pairwise_accuracy"] = m.pairwise_accuracy(y, scores, groups=groups)
        out["kendall_tau"] = 2.0 * out["pairwise_accuracy"] - 1.0
    except ValueError as exc:  # no within-group pair with different labels
        out["pairwise_accuracy_note"] = str(exc)
    if groups is not None:
        out["groups"] = int(len(np.unique(groups)))
        rel = (y == values[-1]).astype(np.float64) if binary else y
        out["mean_average_precision"] = m.mean_average_precision(rel, scores, groups)
        if (rel >= 0).all():
            out[f"ndcg@{k}"] = m.ndcg_at_k(rel, scores, groups, k=k)
        else:
            out[f"ndcg@{k}_note"] = "skipped: negative graded labels"
    return out


def _evaluate(args):
    if args.k < 1:
        raise UserError(f"--k must be a positive integer; got {args.k}.")
    y, groups = _read_labels(args.labels, args.duplicates)
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
        raise UserError(f"{args.groups} has {len(groups)} group ids but {args.labels} has "
                        f"{len(y)} labels.")
    res = compute_metrics(y, scores, groups, k=args.k)
    if args.json:
        print(json.dumps(res))
        return 0
    for key, val in res.items():
        if isinstance(val, float):
            print(f"{key:<24}{val:.6f}")
        else:
            print(f"{key:<24}{val}")
    return 0
