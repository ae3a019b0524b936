"""``birank predict``: score a LIBSVM/SVMlight file with a saved model, one score a line."""

from __future__ import annotations

import sys


def register(subparsers):
    p = subparsers.add_parser(
        "predict", help="score a LIBSVM/SVMlight file with a saved model",
        description="Write one score per line (higher = ranked higher), in file order.")
    p.add_argument("model", metavar="MODEL", help="model file written by `birank train`")
    p.add_argument("data_file", metavar="DATA", help="LIBSVM/SVMlight file to score")
    p.add_argument("-o", "--output", default="-", help="scores file (default: stdout)")
    p.add_argument("--force", action="store_true", help="overwrite the output file")
    p.set_defaults(func=run)


def run(args):
    from ..model_io import load_model
    from ._common import open_output, read_data

    model = load_model(args.model)
    X, _, _ = read_data(args.data_file, with_groups=False)
    scores = model.decision_function(X)
    text = "".join(f"{s:.12g}\n" for s in scores)
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        with open_output(args.output, args.force) as out:
            out.write(text)
    return 0
