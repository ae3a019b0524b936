"""``birank predict``: score a LIBSVM/SVMlight file with a saved model, one score a line."""

from __future__ import annotations


def register(subparsers):
    from ._common import add_duplicates_option

    p = subparsers.add_parser(
        "predict", help="score a LIBSVM/SVMlight file with a saved model",
        description="Write one score per line (higher = ranked higher), in file order.")
    p.add_argument("model", metavar="MODEL", help="model file written by `birank train`")
    p.add_argument("data_file", metavar="DATA", help="LIBSVM/SVMlight file to score")
    p.add_argument("-o", "--output", default="-", help="scores file (default: stdout)")
    p.add_argument("--force", action="store_true", help="overwrite the output file")
    add_duplicates_option(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=run)


def run(args):
    from ..model_io import load_model
    from ._common import check_output, read_data, write_output

    check_output(args.output, args.force)  # before the work, not after it
    model = load_model(args.model)
    X, _, _ = read_data(args.data_file, with_groups=False, duplicates=args.duplicates,
                        quiet=args.quiet)
    scores = model.decision_function(X)
    write_output(args.output, "".join(f"{s:.12g}\n" for s in scores), args.force)
    return 0
