"""``birank datasets list|fetch|info``: bundled sets, LIBSVM downloads, file summaries."""

from __future__ import annotations

import os

from . import UserError


def register(subparsers):
    p = subparsers.add_parser(
        "datasets", help="list, download or describe datasets",
        description="Bundled datasets, LIBSVM downloads (cached), and summaries of "
                    "LIBSVM/SVMlight files.",
    )
    sub = p.add_subparsers(dest="datasets_command", metavar="ACTION")
    sub.required = True

    pl = sub.add_parser("list", help="bundled and downloadable datasets")
    pl.add_argument("--data-home", default=None,
                    help="cache folder (default $BIRANK_DATA or ~/.cache/birank)")
    pl.set_defaults(func=_list)

    pf = sub.add_parser("fetch", help="download a LIBSVM dataset into the cache")
    pf.add_argument("name", help="dataset name, see `birank datasets list`")
    pf.add_argument("--data-home", default=None,
                    help="cache folder (default $BIRANK_DATA or ~/.cache/birank)")
    pf.add_argument("--base-url", default=None, help="mirror of the LIBSVM dataset page")
    pf.add_argument("--subset", default="all", choices=("all", "train", "test"),
                    help="which files of the set to download (default: all)")
    pf.add_argument("--refresh", action="store_true",
                    help="download again; the cached copy is replaced once the new one "
                         "passed its check")
    pf.add_argument("-q", "--quiet", action="store_true",
                    help="no download progress on stderr")
    pf.set_defaults(func=_fetch)

    pi = sub.add_parser(
        "info", help="rows, features, nnz, labels and groups of a file or dataset",
        description="PATH_OR_NAME is a data file in any format `birank train` reads "
                    "(LIBSVM/SVMlight, CSV/TSV, .npz, .npy; plain, .gz, .bz2, .xz), a "
                    "bundled dataset name, or a cached LIBSVM dataset name.",
    )
    pi.add_argument("target", metavar="PATH_OR_NAME",
                    help="data file (any format `birank train` reads; '-': standard input) "
                         "or dataset name")
    pi.add_argument("--data-home", default=None,
                    help="cache folder (default $BIRANK_DATA or ~/.cache/birank)")
    pi.add_argument("--json", action="store_true", help="print one JSON object")
    from ._common import add_input_options

    add_input_options(pi, n_features=False)
    pi.set_defaults(func=_info)


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0


def _list(args):
    from importlib import resources

    from ..datasets import BUNDLED, LIBSVM_DATASETS, NOT_ON_LIBSVM, get_data_home
    from ..datasets._fetch import _cache_file  # (where download_libsvm keeps a file)

    print("Bundled (no download; birank.datasets.load_<name>):")
    print(f"  {'name':<15}{'rows':>7}{'features':>10}  {'size (xz)':>10}  labels")
    data = resources.files("birank.datasets") / "data"
    for name, (fname, n_feat, rows, labels, _desc) in BUNDLED.items():
        size = len((data / fname).read_bytes())
        print(f"  {name:<15}{rows:>7}{n_feat:>10}  {_fmt_bytes(size):>10}  {labels}")
    cache = os.path.join(get_data_home(args.data_home), "libsvm")
    print(f"\nDownloadable from LIBSVM (`birank datasets fetch NAME`; cache {cache}):")
    print(f"  {'name':<15}{'kind':<12}{'features':>9}  {'cached':>10}  used by")
    for name, info in LIBSVM_DATASETS.items():
        size = 0
        for part in ("train", "test"):
            if info[part] is not None:
                path = _cache_file(cache, info[part])
                if os.path.exists(path):
                    size += os.path.getsize(path)
        cached = _fmt_bytes(size) if size else "-"
        print(f"  {name:<15}{info['kind']:<12}{info['n_features']:>9}  {cached:>10}  "
              f"{info['papers']}")
    print("\nUsed by the papers but not on LIBSVM: "
          + "; ".join(f"{k}: {v}" for k, v in NOT_ON_LIBSVM.items()))
    return 0


def _did_you_mean(name):
    import difflib

    from ..datasets import BUNDLED, LIBSVM_DATASETS

    close = difflib.get_close_matches(name, list(BUNDLED) + list(LIBSVM_DATASETS), n=1,
                                      cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def _fetch(args):
    from ..datasets import download_libsvm

    try:
        paths = download_libsvm(args.name, data_home=args.data_home, base_url=args.base_url,
                                subset=args.subset, refresh=args.refresh,
                                verbose=not args.quiet)  # progress on stderr
    except ConnectionError as exc:
        raise UserError(str(exc)) from None
    except ValueError as exc:
        raise UserError(f"{exc}{_did_you_mean(args.name)}") from None
    for part, path in paths.items():
        print(f"{part}: {path} ({_fmt_bytes(os.path.getsize(path))})")
    return 0


def summarize(X, y, groups=None):
    """Lines of text describing a dataset (used by ``datasets info``)."""
    import numpy as np

    n, d = X.shape
    lines = [f"rows      {n}", f"features  {d}",
             f"nnz       {X.nnz} ({X.nnz / max(n * d, 1):.2%} dense, "
             f"{X.nnz / max(n, 1):.1f} per row)"]
    values, counts = np.unique(y, return_counts=True)
    if len(values) <= 20:
        lab = ", ".join(f"{v:g}: {c}" for v, c in zip(values, counts))
        lines.append(f"labels    {len(values)} distinct [{lab}]")
    else:
        lines.append(f"labels    {len(values)} distinct, min {y.min():g}, max {y.max():g}, "
                     f"mean {y.mean():.4g}")
    if groups is not None:
        _, sizes = np.unique(groups, return_counts=True)
        lines.append(f"groups    {len(sizes)} (size min {sizes.min()}, median "
                     f"{np.median(sizes):g}, max {sizes.max()})")
    return lines


def _no_columns(target, args):
    from ._common import refuse_ignore_column

    refuse_ignore_column(target, args, "a dataset name is loaded as arrays, not read as a "
                                       "table")


def _info(args):
    from ..datasets import BUNDLED, LIBSVM_DATASETS, get_data_home, load_bundled
    from ..datasets._fetch import _cache_file  # (where download_libsvm keeps a file)

    target = args.target
    groups = None
    if target == "-" or os.path.exists(target):
        from ._common import label_note, read_data

        read = {}
        X, y, groups = read_data(target, args=args, info=read)
        label_note(target, read, args)  # (on stderr: --json keeps stdout pure JSON)
        title = "<stdin>" if target == "-" else target
    elif target in BUNDLED:
        _no_columns(target, args)
        out = load_bundled(target)
        X, y = out[:2]
        groups = out[2] if len(out) == 3 else None
        title = f"{target} (bundled: {BUNDLED[target][4]})"
    elif target in LIBSVM_DATASETS:
        _no_columns(target, args)
        info = LIBSVM_DATASETS[target]
        path = _cache_file(os.path.join(get_data_home(args.data_home), "libsvm"),
                           info["train"])
        if not os.path.exists(path):
            raise UserError(
                f"{target} is not downloaded yet; run `birank datasets fetch {target}`."
            )
        from ..datasets import fetch_libsvm

        X, y = fetch_libsvm(target, data_home=args.data_home, download_if_missing=False)
        title = f"{target} (cached LIBSVM train file {path})"
    else:
        raise UserError(
            f"{target!r} is neither an existing file nor a dataset name "
            f"(see `birank datasets list`).{_did_you_mean(target)}"
        )
    if args.json:
        import json

        import numpy as np

        values, counts = np.unique(y, return_counts=True)
        doc = {"source": title, "rows": int(X.shape[0]), "features": int(X.shape[1]),
               "nnz": int(X.nnz) if hasattr(X, "nnz") else int(np.count_nonzero(X)),
               "labels": ({f"{v:g}": int(c) for v, c in zip(values, counts)}
                          if len(values) <= 20 else {"distinct": int(len(values))}),
               "groups": None if groups is None else int(len(np.unique(groups)))}
        print(json.dumps(doc))
        return 0
    print(title)
    for line in summarize(X, y, groups):
        print("  " + line)
    return 0
