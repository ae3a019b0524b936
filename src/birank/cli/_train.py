"""``birank train``: fit a ranker on a LIBSVM/SVMlight file and save it as JSON."""

from __future__ import annotations

import inspect
import os
import pickle
import sys
import time
from pathlib import Path

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
    online = p.add_argument_group(
        "online models (cbr, cbr-diag, oam, adaoam, ...)",
        "Online models stream the file in chunks of rows (bounded memory) through "
        "partial_fit, in file order.")
    online.add_argument("--chunk-size", type=int, default=10_000, metavar="ROWS",
                        help="rows per chunk (default: 10000)")
    online.add_argument("--n-features", type=int, default=None, metavar="D",
                        help="number of features; without it the file is scanned once first "
                             "(a chunk need not show the largest index)")
    online.add_argument("--classes", default=None, metavar="NEG,POS",
                        help="the two label values, when the first chunk holds only one")
    online.add_argument("--checkpoint", default=None, metavar="FILE",
                        help="save the whole learner state to FILE (atomically) as it goes")
    online.add_argument("--checkpoint-every", type=int, default=10, metavar="K",
                        help="chunks between two checkpoints (default: 10)")
    online.add_argument("--resume", action="store_true",
                        help="continue from --checkpoint FILE instead of starting over")
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
    from ..online._stream import StreamRanker

    # one-pass learners stream the file in chunks; the chunked batch methods
    # (BBR, LCBR, CombinedRanking: OnlineRankerMixin too) fit the whole file, since
    # CombinedRanking's partial_fit runs n_iter more steps per chunk
    if isinstance(model, StreamRanker):
        return _run_stream(model, args)
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


CHECKPOINT_FORMAT = "birank-checkpoint/1"


def _save_checkpoint(path, state):
    """Pickle ``state`` to ``path`` atomically (write a temporary file, then rename)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        pickle.dump(state, fh, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)


def _load_checkpoint(path, args):
    if not Path(path).is_file():
        raise UserError(f"--resume: no checkpoint file {path}")
    with open(path, "rb") as fh:
        try:
            state = pickle.load(fh)
        except Exception as exc:  # a truncated or foreign file
            raise UserError(f"--resume: {path} is not a birank checkpoint ({exc})") from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise UserError(f"--resume: {path} is not a birank checkpoint")
    expected = {"model": args.model, "train_file": os.path.abspath(args.train_file),
                "chunk_size": args.chunk_size}
    for key, value in expected.items():
        if state[key] != value:
            raise UserError(f"--resume: the checkpoint {path} was made with {key}="
                            f"{state[key]!r}, not {value!r}")
    return state


def _parse_classes(text):
    if text is None:
        return None
    parts = text.split(",")
    try:
        values = [float(v) for v in parts]
    except ValueError:
        values = []
    if len(values) != 2 or values[0] == values[1]:
        raise UserError(f"--classes takes two different numbers NEG,POS; got {text!r}")
    return values


def _run_stream(model, args):
    """Online models: one pass over the file in chunks, with checkpoints."""
    from .._progress import make_progress
    from ..datasets import iter_svmlight_chunks
    from ..model_io import save_model

    if not Path(args.train_file).is_file():
        raise UserError(f"no such file: {args.train_file}")
    if args.chunk_size < 1 or args.checkpoint_every < 1:
        raise UserError("--chunk-size and --checkpoint-every must be positive")
    if args.resume and not args.checkpoint:
        raise UserError("--resume needs --checkpoint FILE")
    classes = _parse_classes(args.classes)
    n_features, chunks_done, rows_done, seconds = args.n_features, 0, 0, 0.0
    if args.resume:
        state = _load_checkpoint(args.checkpoint, args)
        model, n_features = state["estimator"], state["n_features"]
        chunks_done, rows_done, seconds = (state["chunks_done"], state["rows_done"],
                                           state["seconds"])
    progress = make_progress(not args.quiet, label=f"train {args.model}")
    t0 = time.perf_counter()

    def checkpoint():
        _save_checkpoint(args.checkpoint, {
            "format": CHECKPOINT_FORMAT, "model": args.model,
            "train_file": os.path.abspath(args.train_file), "chunk_size": args.chunk_size,
            "n_features": n_features, "chunks_done": chunks_done, "rows_done": rows_done,
            "seconds": seconds + time.perf_counter() - t0, "estimator": model})

    for X, y in iter_svmlight_chunks(args.train_file, args.chunk_size, n_features,
                                     duplicates=args.duplicates, progress=progress,
                                     skip_chunks=chunks_done):
        n_features = X.shape[1]
        if not hasattr(model, "classes_") and classes is None and len(set(y.tolist())) < 2:
            raise UserError(f"the first chunk of {args.train_file} holds one label only; "
                            "give the two label values with --classes NEG,POS")
        model.partial_fit(X, y, classes=classes)
        chunks_done += 1
        rows_done += X.shape[0]
        if args.checkpoint and chunks_done % args.checkpoint_every == 0:
            checkpoint()
    if args.checkpoint:
        checkpoint()
    seconds += time.perf_counter() - t0
    save_model(model, args.output, overwrite=args.force,
               extra={"train_file": str(args.train_file), "fit_seconds": seconds,
                      "n_samples": rows_done, "chunk_size": args.chunk_size})
    if not args.quiet:
        print(f"trained {args.model} on {rows_done} rows x {n_features} features "
              f"({chunks_done} chunks of <= {args.chunk_size}) in {seconds:.3f}s -> "
              f"{args.output}", file=sys.stderr)
    return 0
