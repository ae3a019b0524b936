"""``birank train``: fit a ranker on a LIBSVM/SVMlight file and save it as JSON."""

from __future__ import annotations

import sys
import time

from . import UserError
from ._common import add_duplicates_option, check_output, coerce_int_params, parse_params, read_data


def register(subparsers):
    from .._registry import MODELS

    p = subparsers.add_parser(
        "train", help="fit a ranker on a LIBSVM/SVMlight file",
        description="Fit a ranker and save it (JSON). Per-query pairs are used when the "
                    "file has qid: fields (disable with --no-groups).")
    p.add_argument("train_file", metavar="TRAIN", help="LIBSVM/SVMlight file (.gz/.bz2/.xz ok)")
    p.add_argument("-m", "--model", default="ranksvm", choices=list(MODELS),
                   help="ranker to fit (default: ranksvm)")
    p.add_argument("-o", "--output", required=True, metavar="MODEL",
                   help="model file to write ('-': standard output)")
    p.add_argument("-c", "--C", type=float, default=None, help="regularization trade-off C")
    p.add_argument("--seed", type=int, default=None,
                   help="random_state for sampling methods (ignored, with a note, by "
                        "deterministic ones such as ranksvm)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="any other estimator parameter, e.g. --param loss=hinge (repeatable)")
    p.add_argument("--no-groups", action="store_true", help="ignore qid: fields")
    p.add_argument("--force", action="store_true", help="overwrite MODEL if it exists")
    add_duplicates_option(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=run)


def run(args):
    import inspect

    from .._registry import make_model
    from ..model_io import save_model

    params = parse_params(args.param)
    if args.C is not None:
        params["C"] = args.C
    model = make_model(args.model, **params)
    coerce_int_params(model, params)
    if args.seed is not None:
        if "random_state" in model.get_params():
            model.set_params(random_state=args.seed)
        elif not args.quiet:
            print(f"note: model {args.model!r} is deterministic; --seed is ignored",
                  file=sys.stderr)
    if "verbose" in model.get_params() and "verbose" not in params:
        model.set_params(verbose=not args.quiet)  # progress on in the CLI
    check_output(args.output, args.force)
    X, y, groups = read_data(args.train_file, with_groups=not args.no_groups,
                             duplicates=args.duplicates, quiet=args.quiet,
                             require_features=True)
    t0 = time.perf_counter()
    if groups is not None:
        if "groups" not in inspect.signature(model.fit).parameters:
            raise UserError(f"model {args.model!r} does not support per-query pairs; "
                            "use --no-groups or --model ranksvm")
        model.fit(X, y, groups=groups)
    else:
        model.fit(X, y)
    seconds = time.perf_counter() - t0
    save_model(model, args.output, overwrite=args.force,
               extra={"train_file": str(args.train_file), "fit_seconds": seconds,
                      "n_samples": X.shape[0]})
    if not args.quiet:
        print(f"trained {args.model} on {X.shape[0]} rows x {X.shape[1]} features in "
              f"{seconds:.3f}s -> {args.output}", file=sys.stderr)
    return 0
