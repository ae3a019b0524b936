"""``birank train``: fit a ranker on a data file and save it as JSON."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import time
from pathlib import Path

from . import UserError
from ._common import (add_input_options, check_output, coerce_int_params, label_note, note,
                      parse_params, read_data, stdout_or_error)


#: the online options' defaults (None in the parser: a batch fit says it ignores them)
CHUNK_SIZE, CHECKPOINT_EVERY = 10_000, 10


def _note(args, text):
    note(text, quiet=args.quiet)


def register(subparsers):
    from .._registry import MODELS

    p = subparsers.add_parser(
        "train", help="fit a ranker on a data file (LIBSVM, CSV, .npz, ...)",
        description="Fit a ranker and save it (JSON). Per-query pairs are used when the "
                    "file has qid: fields or a query column (disable with --no-groups).")
    p.add_argument("train_file", metavar="TRAIN",
                   help="data file (LIBSVM/SVMlight, CSV/TSV, .npz, .npy; .gz/.bz2/.xz ok; "
                        "'-' for standard input)")
    p.add_argument("-m", "--model", default="ranksvm", choices=list(MODELS), metavar="NAME",
                   help=f"ranker to fit: {', '.join(MODELS)} (default: ranksvm)")
    p.add_argument("-o", "--output", required=True, metavar="MODEL",
                   help="model file to write ('-': standard output)")
    p.add_argument("-c", "--C", type=float, default=None,
                   help="regularization trade-off C (default: the model's)")
    p.add_argument("--seed", type=int, default=None,
                   help="random_state for sampling methods (ignored, with a note, by "
                        "deterministic ones such as ranksvm; default: the model's)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="any other estimator parameter, e.g. --param loss=hinge (repeatable)")
    p.add_argument("--no-groups", action="store_true", help="ignore qid: fields / query ids")
    p.add_argument("--force", action="store_true", help="overwrite MODEL if it exists")
    p.add_argument("--json", action="store_true",
                   help="print a JSON summary of the run on standard output")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or notes on stderr")
    add_input_options(p)
    online = p.add_argument_group(
        "online models (cbr, cbr-diag, oam, adaoam, ...)",
        "Online models stream a LIBSVM file in chunks of rows (bounded memory) through "
        "partial_fit, in file order. --checkpoint/--resume apply to them only.")
    online.add_argument("--chunk-size", type=int, default=None, metavar="ROWS",
                        help=f"rows per chunk (default: {CHUNK_SIZE})")
    online.add_argument("--classes", default=None, metavar="NEG,POS",
                        help="the two label values, when the first chunk holds only one (in "
                             "either order: the larger is the positive class, as classes_ "
                             "is sorted)")
    online.add_argument("--checkpoint", default=None, metavar="FILE",
                        help="save the whole learner state to FILE (atomically) as it goes")
    online.add_argument("--checkpoint-every", type=int, default=None, metavar="K",
                        help=f"chunks between two checkpoints (default: {CHECKPOINT_EVERY})")
    online.add_argument("--resume", action="store_true",
                        help="continue from --checkpoint FILE; refused when the training file's "
                             "consumed part or the options differ from the checkpoint's "
                             "(--force: continue with changed --param/-c values, with a "
                             "warning; the other options never change on resume)")
    p.set_defaults(func=run)


def _check_saveable(model, name):
    """Refuse before training a model that could not be written as a JSON model file."""
    kernel = model.get_params().get("kernel")
    if kernel not in (None, "linear"):
        raise UserError(f"model {name!r} with kernel={kernel!r} has no linear coefficients, so "
                        "it cannot be saved as a model file; train it from Python "
                        "(birank.PrunedRankSVM) or use kernel='linear'")


def run(args):
    import inspect

    from .._registry import make_model
    from .._validation import check_n_jobs

    params = parse_params(args.param)
    given = [option for option, value in (("--chunk-size", args.chunk_size),
                                          ("--checkpoint-every", args.checkpoint_every),
                                          ("--classes", args.classes)) if value is not None]
    args.chunk_size = CHUNK_SIZE if args.chunk_size is None else args.chunk_size
    args.checkpoint_every = (CHECKPOINT_EVERY if args.checkpoint_every is None
                             else args.checkpoint_every)
    if args.C is not None:
        if "C" in params and params["C"] != args.C:
            raise UserError(f"-c/--C {args.C:g} and --param C={params['C']!r} disagree; give "
                            "C once")
        params["C"] = args.C
    if args.seed is not None and "random_state" in params:
        raise UserError("--seed and --param random_state=... both given; give one")
    try:
        model = make_model(args.model, **params)
    except (ValueError, TypeError) as exc:
        option = "--param"
        if args.C is not None and "no parameter 'C'" in str(exc):  # (C came from -c)
            option, exc = "-c/--C", f"{str(exc).rstrip('.')}; set them with --param KEY=VALUE"
        raise UserError(f"{option}: {exc}") from None
    coerce_int_params(model, params)
    if args.seed is not None:
        if "random_state" in model.get_params():
            model.set_params(random_state=args.seed)
        else:
            _note(args, f"model {args.model!r} is deterministic; --seed is ignored")
    if "verbose" in model.get_params() and "verbose" not in params:
        model.set_params(verbose=not args.quiet)  # progress on in the CLI
    _check_saveable(model, args.model)
    check_output(args.output, args.force, inputs=(args.train_file,))
    if args.output == "-":
        if args.json:  # refused before the fit, not after the model was written
            raise UserError("--json and -o - both write to standard output; give -o FILE")
        stdout_or_error()  # a closed standard output: refused before any work
    from ..online._stream import StreamRanker

    # one-pass learners stream the file in chunks; the chunked batch methods
    # (BBR, LCBR, CombinedRanking: OnlineRankerMixin too) fit the whole file, since
    # CombinedRanking's partial_fit runs max_iter more steps per chunk
    if isinstance(model, StreamRanker):
        return _run_stream(model, args, params, given)
    if args.checkpoint or args.resume:
        raise UserError(f"--checkpoint/--resume apply to online models only; {args.model!r} "
                        "is fitted in one go (its fit is not resumable)")
    if given:
        _note(args, f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to online "
                    f"models only; {args.model!r} is fitted on the whole file at once: ignored")
    read = {}
    # the model's threads parse a plain LIBSVM file too (a bad n_jobs is left to its fit's
    # own message)
    jobs = model.get_params().get("n_jobs")
    try:
        check_n_jobs(jobs)
    except ValueError:
        jobs = None
    X, y, groups = read_data(args.train_file, with_groups=not args.no_groups, quiet=args.quiet,
                             require_features=True, args=args, check_memory=True, info=read,
                             n_jobs=jobs)
    # the index base the file was read with, and its columns' roles: `birank predict` reads
    # its files the same way
    args._zero_based_used = read.get("zero_based")
    args._column_roles = _roles_of(read)
    label_note(args.train_file, read, args, quiet=args.quiet)
    t0 = time.perf_counter()
    from ._common import heartbeat

    with heartbeat(f"train {args.model}", enabled=not args.quiet
                   and "verbose" not in model.get_params()):
        if groups is not None:
            if "groups" not in inspect.signature(model.fit).parameters:
                raise _no_query_pairs(args)
            model.fit(X, y, groups=groups)
        else:
            model.fit(X, y)
    seconds = time.perf_counter() - t0
    _record_feature_names(model, read)
    _save(model, args, {"fit_seconds": seconds, "n_samples": X.shape[0],
                        "n_features": X.shape[1], "groups": groups is not None})
    return 0


def _roles_of(read):
    """What a CSV/TSV/.npy file's label, query id and ignored columns were (None for other
    input): the model file records it, and `birank predict` reads its files so."""
    from ..datasets._roles import record

    return record(read)


def _record_feature_names(model, read):
    """A CSV/TSV file's header names its feature columns: the model keeps them (as
    scikit-learn's ``feature_names_in_``, written to the model file), and `birank predict`
    takes a file's columns by those names."""
    names = read.get("feature_names")
    if names is not None:
        import numpy as np

        model.feature_names_in_ = np.asarray(names, dtype=object)


def _save(model, args, info):
    from .._progress import end_line
    from ..model_io import save_model

    end_line()  # the fit's progress line, ended before anything else is written
    # (the fit's wall-clock seconds stay out of the file: the same command and --seed
    # write the same file byte for byte; they are in --json and the line on stderr)
    extra = {"train_file": str(args.train_file), **{k: v for k, v in info.items()
                                                    if k in ("n_samples", "chunk_size")}}
    if getattr(args, "_zero_based_used", None) is not None:
        extra["zero_based"] = args._zero_based_used
    if getattr(args, "_column_roles", None) is not None:  # (a CSV/TSV/.npy file's)
        extra["columns"] = args._column_roles
    save_model(model, args.output, overwrite=args.force, extra=extra)
    summary = {"model": args.model, "output": args.output, **info}
    if args.json:  # (with -o -, refused before the fit)
        print(json.dumps(summary))
    elif not args.quiet:
        chunks = (f" ({info['chunks']} chunks of <= {info['chunk_size']})"
                  if "chunks" in info else "")
        print(f"trained {args.model} on {info['n_samples']} rows x {info['n_features']} "
              f"features{chunks} in {info['fit_seconds']:.3f}s -> {args.output}",
              file=sys.stderr)


CHECKPOINT_FORMAT = "birank-checkpoint/3"  # (3: with the resolved base and width)


def _save_checkpoint(path, state):
    """Pickle ``state`` to ``path`` atomically; no temporary file survives an error or Ctrl-C."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            pickle.dump(state, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _check_checkpoint_path(path):
    """``--checkpoint FILE`` must be a writable file path: checked before any work."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"--checkpoint {path} is a directory; give a file name")
    parent = p.resolve().parent
    if not parent.is_dir():
        raise UserError(f"--checkpoint {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise UserError(f"--checkpoint {path}: folder {parent} is not writable")


#: options that fix how the file is cut and read, or the stream's random state (drawn at
#: its first chunk): a resumed run never changes them, not even with --force
LAYOUT_OPTIONS = ("model", "seed", "chunk_size", "classes", "duplicates", "zero_based",
                  "n_features")


def _options(args, params):
    """What a resumed run must share with the run that wrote the checkpoint."""
    return {"model": args.model, "params": {k: repr(v) for k, v in sorted(params.items())},
            "seed": args.seed, "chunk_size": args.chunk_size, "classes": args.classes,
            "duplicates": args.duplicates, "zero_based": args.zero_based,
            "n_features": args.n_features}


def _file_identity(path):
    st = os.stat(path)
    return {"path": os.path.abspath(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _load_checkpoint(path, args, params, fresh_model):
    if not Path(path).is_file():
        raise UserError(f"--resume: no checkpoint file {path}")
    with open(path, "rb") as fh:
        try:
            state = pickle.load(fh)
        except Exception as exc:  # a truncated or foreign file
            raise UserError(f"--resume: {path} is not a birank checkpoint ({exc})") from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise UserError(f"--resume: {path} is not a birank checkpoint of this version")
    _check_checkpoint_fields(path, state)
    now = _options(args, params)
    diff = [k for k in now if state["options"].get(k) != now[k]]
    if diff:
        what = "; ".join(f"{k}: checkpoint {state['options'].get(k)!r}, now {now[k]!r}"
                         for k in diff)
        old_params = state["options"].get("params", {})
        if [k for k in diff if k in LAYOUT_OPTIONS] or \
                old_params.get("random_state") != now["params"].get("random_state"):
            raise UserError(f"--resume: options differ from the checkpoint's ({what}); the "
                            "model, --seed/random_state, --chunk-size, --classes, "
                            "--duplicates, --zero-based and --n-features cannot change on "
                            "resume (not even with --force); resume with the checkpoint's, or "
                            "start over without --resume")
        if not args.force:
            raise UserError(f"--resume: options differ from the checkpoint's ({what}); "
                            "resume with the same options, or --force to continue with the "
                            "new ones")
        print(f"warning: --resume --force: continuing with changed options ({what})",
              file=sys.stderr)
        if "params" in diff:  # given, changed or dropped (back to the model's default)
            fresh = fresh_model.get_params()
            state["estimator"].set_params(**{k: fresh[k] for k in {*old_params, *params}})
    ident = _file_identity(args.train_file)
    old = state["file"]
    if old["path"] != ident["path"]:
        raise UserError(f"--resume: the checkpoint {path} was made on {old['path']}, not "
                        f"{ident['path']}")
    # (consumed_bytes counts decompressed bytes: a size test only for a plain file; the
    # hash of the consumed chunks is checked as they are skipped, whatever the file)
    if not _is_compressed(args.train_file) and ident["size"] < old["consumed_bytes"]:
        raise UserError(f"--resume: {args.train_file} is shorter ({ident['size']} bytes) than "
                        f"the {old['consumed_bytes']} bytes already trained on: not the file "
                        "the checkpoint was made from")
    return state


def _is_compressed(path):
    from ..datasets._svmlight import _compression

    with open(path, "rb") as fh:
        return _compression(fh.read(6)) is not None


#: what a checkpoint holds (a pickle: checked field by field before anything is used)
CHECKPOINT_FIELDS = {"options": dict, "file": dict, "n_features": int, "chunks_done": int,
                     "rows_done": int, "seconds": float, "resolved": dict}


def _check_checkpoint_fields(path, state):
    bad = [k for k, kind in CHECKPOINT_FIELDS.items() if not isinstance(state.get(k), kind)]
    if not bad and (state["chunks_done"] < 0 or state["rows_done"] < 0
                    or not {"path", "sha256", "consumed_bytes"} <= set(state["file"])
                    or not hasattr(state.get("estimator"), "partial_fit")):
        bad = ["chunks_done / rows_done / file / estimator"]
    if bad:
        raise UserError(f"--resume: {path} is damaged or was edited ({', '.join(bad)} "
                        "missing or wrong); start over without --resume")


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


def _no_query_pairs(args):
    """The error for a file with query ids and a model without per-query pairs."""
    return UserError(f"{args.train_file} has query ids (qid: or a query column), but model "
                     f"{args.model!r} does not support per-query pairs: it would rank all rows "
                     "together; give --no-groups to train it so, or use --model ranksvm")


def _head_has_qid(path):
    """Whether the first data line within the first 64 KiB of a LIBSVM file has a ``qid:``
    field (the reader refuses a file with it on some lines only)."""
    from ..datasets._svmlight import _open_stream

    stream, raw = _open_stream(path)
    with raw, stream:
        head = stream.read(65536)
    if isinstance(head, str):
        head = head.encode()
    for line in head.split(b"\n")[:-1] or head.split(b"\n"):
        toks = line.split(b"#", 1)[0].split()
        if toks:
            return len(toks) > 1 and toks[1].startswith(b"qid:")
    return False


def _run_stream(model, args, params, given=()):
    """Online models: one pass over the file in chunks, with checkpoints."""
    from .._progress import byte_count, make_progress
    from ..datasets import iter_svmlight_chunks
    from ._common import resolve_stream_layout

    if args.chunk_size < 1 or args.checkpoint_every < 1:
        raise UserError("--chunk-size and --checkpoint-every must be positive")
    if args.resume and not args.checkpoint:
        raise UserError("--resume needs --checkpoint FILE")
    if args.checkpoint:
        _check_checkpoint_path(args.checkpoint)
        if not args.resume and not args.force and Path(args.checkpoint).exists():
            raise UserError(f"--checkpoint {args.checkpoint} exists: --resume to continue its "
                            "run, or --force to start over (and replace it)")
    layout = resolve_stream_layout(args.train_file, args)
    if layout is None:  # not a streamable file (CSV, .npz, stdin, ...): fit in memory
        if args.checkpoint:
            raise UserError("--checkpoint needs a LIBSVM file on disk (it is streamed in "
                            "chunks); this input is read whole")
        read = {}
        X, y, groups = read_data(args.train_file, with_groups=not args.no_groups,
                                 quiet=args.quiet, require_features=True, args=args,
                                 check_memory=True, info=read)
        if groups is not None:  # (online learners rank all rows together)
            raise _no_query_pairs(args)
        label_note(args.train_file, read, args, quiet=args.quiet)
        if "--chunk-size" in given:
            name = "<stdin>" if args.train_file == "-" else args.train_file
            _note(args, f"--chunk-size applies to a LIBSVM file on disk (streamed in chunks); "
                        f"{name} (read as {read['format']}) is read whole: ignored")
        args._zero_based_used = read.get("zero_based")  # (recorded for `birank predict`)
        args._column_roles = _roles_of(read)
        classes = _parse_classes(args.classes)
        t0 = time.perf_counter()
        model.partial_fit(X, y, classes=classes)
        _record_feature_names(model, read)
        _save(model, args, {"fit_seconds": time.perf_counter() - t0, "n_samples": X.shape[0],
                            "n_features": X.shape[1], "groups": False})
        return 0
    zero_based, n_features = layout
    if not args.no_groups and _head_has_qid(args.train_file):
        raise _no_query_pairs(args)
    args._zero_based_used = zero_based
    from ..datasets._formats import check_feature_memory

    try:
        check_feature_memory(n_features, f"{args.train_file}: ",
                             hint=" (--n-features D refuses lines with larger indices)")
    except ValueError as exc:
        raise UserError(str(exc)) from None
    classes = _parse_classes(args.classes)
    chunks_done, rows_done, seconds = 0, 0, 0.0
    saved_hash = None
    if args.resume:
        state = _load_checkpoint(args.checkpoint, args, params, model)
        was = state["resolved"]
        if was != {"zero_based": zero_based, "n_features": n_features}:
            # (--zero-based auto / no --n-features are resolved from the whole file: lines
            # appended since can change them, and the chunks would be read otherwise)
            raise UserError(f"--resume: {args.train_file} now reads as "
                            f"{'0' if zero_based else '1'}-based with {n_features} features; "
                            f"the checkpoint's run read it {'0' if was['zero_based'] else '1'}"
                            f"-based with {was['n_features']}; give --zero-based and "
                            "--n-features as that run resolved them, or start over")
        model = state["estimator"]
        chunks_done, rows_done, seconds = (state["chunks_done"], state["rows_done"],
                                           state["seconds"])
        saved_hash = state["file"]["sha256"]
    progress = make_progress(not args.quiet, label=f"train {args.model}", count=byte_count)
    # one progress line, over the file: not also the learner's own for every chunk (its
    # verbose, set by the CLI, is off while it streams; a --param verbose=... is kept)
    quiet_chunks = "verbose" in model.get_params() and "verbose" not in params
    if quiet_chunks:
        model.set_params(verbose=False)
    t0 = time.perf_counter()
    digest = hashlib.sha256()
    sizes = {"bytes": 0}
    verified = {"done": not args.resume or chunks_done == 0}
    resume_at = chunks_done

    def hook(k, data):
        # the hash of what the checkpoint consumed must match what we skip now
        if args.resume and k == resume_at and resume_at:
            _verify(digest, saved_hash)
            verified["done"] = True
        digest.update(data)
        sizes["bytes"] += len(data)

    def _verify(h, expected):
        if h.hexdigest() != expected:
            raise UserError(f"--resume: the first {resume_at} chunks of {args.train_file} "
                            "differ from those the checkpoint was trained on (the file was "
                            "changed); start over without --resume")

    def checkpoint():
        _save_checkpoint(args.checkpoint, {
            "format": CHECKPOINT_FORMAT, "options": _options(args, params),
            "file": {**_file_identity(args.train_file), "sha256": digest.hexdigest(),
                     "consumed_bytes": sizes["bytes"]},
            "n_features": n_features, "resolved": {"zero_based": zero_based,
                                                   "n_features": n_features},
            "chunks_done": chunks_done, "rows_done": rows_done,
            "seconds": seconds + time.perf_counter() - t0, "estimator": model})

    try:
        for X, y in iter_svmlight_chunks(args.train_file, chunk_size=args.chunk_size,
                                         n_features=n_features, zero_based=zero_based,
                                         duplicates=args.duplicates,
                                         progress=progress, skip_chunks=chunks_done,
                                         chunk_hook=hook):
            if not hasattr(model, "classes_") and classes is None and len(set(y.tolist())) < 2:
                raise UserError(f"the first chunk of {args.train_file} holds one label only; "
                                "give the two label values with --classes NEG,POS")
            model.partial_fit(X, y, classes=classes)
            chunks_done += 1
            rows_done += X.shape[0]
            if args.checkpoint and chunks_done % args.checkpoint_every == 0:
                checkpoint()
        progress.close()
    except ValueError as exc:
        from ._common import libsvm_error

        raise libsvm_error(args.train_file, exc) from None
    if not verified["done"]:
        if digest.hexdigest() != saved_hash:
            raise UserError(f"--resume: {args.train_file} was changed: it holds fewer chunks "
                            f"than the {resume_at} the checkpoint was trained on, or they "
                            "differ; start over without --resume")
    if args.checkpoint:
        checkpoint()
    seconds += time.perf_counter() - t0
    if quiet_chunks:  # (the saved parameters as for a model fitted in one go)
        model.set_params(verbose=not args.quiet)
    _save(model, args, {"fit_seconds": seconds, "n_samples": rows_done,
                        "n_features": n_features, "chunks": chunks_done,
                        "chunk_size": args.chunk_size, "groups": False})
    return 0
