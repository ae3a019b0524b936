"""Reproduction of Khalid, Ray & Chitsaz (2016): confidence-weighted bipartite ranking.

``birank reproduce khalid --data-dir DIR [--quick] [--datasets ...] [--hd-datasets ...]
[--libsvm PATH ...]``

Protocol (section 4.2), per data set and run: a random permutation of the rows,
at most ``--max-bench`` (8000) rows for the benchmark sets and ``--max-hd``
(2000) for the high-dimensional ones; five folds, four for training (streamed
once, in the permuted order) and one for testing (run ``r`` tests on fold
``r mod 5``); 10 runs (benchmark) and 5 runs (high-dimensional). The
hyper-parameter of every learner (C for CBR and OAM, the learning rate for the
others) is chosen by 2-fold cross-validation on the training set over
``2^[-10:10]``; buffers of 50, eta = 0.7, OPAUC/AdaOAM lambda = 1e-4, AdaOAM
delta = 0.5, OPAUCr rank 50. Reported: test AUC and accuracy at OPTROC
(:func:`birank.metrics.optroc_accuracy`), mean and std over runs, and the
training time in milliseconds (Figs. 1 and 2).

Departures, all written into the report:

* The cross-validation runs once per (data set, learner), on the training set
  of the first run, and its choice serves every run (``--cv-every-run`` redoes
  it per run, 10x the cost). The paper does not say which.
* Multi-class sets are made binary by one fixed rule (the paper says "randomly",
  without the classes): the largest class is positive, the others negative
  (ties: the smallest label). Class ratios are in the report.
* Features: every benchmark set is scaled to [-1, 1] per feature (min/max over
  the data, LIBSVM's svm-scale); text sets have their rows scaled to unit
  Euclidean norm ("scaled similarly in all experiments", section 4.2).
* High-dimensional sets: farm-ads and Reuters-21578 from the data folder, a
  generated sparse set (:func:`birank.datasets.make_sparse_bipartite`), and any
  LIBSVM file given with ``--libsvm`` (rcv1, news20, real-sim, sector are not in
  the data folder).

Outputs (``--output``, default ``docs/results``): ``khalid.md`` (Tables 3-6
beside the published numbers, the done-when check, hyper-parameters, times),
``khalid.json`` (every number per run), ``khalid-fig1.png`` and
``khalid-fig2.png`` (training time, log scale).
"""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._progress import make_progress
from . import khalid_published as pub
from ._report import (format_mean_std, markdown_table, mean_std, new_figure, run_metadata,
                      save_figure, write_json, write_text)

__all__ = ["BENCH_SETS", "HD_SETS", "BENCH_METHODS", "HD_METHODS", "load_dataset",
           "binarize_largest_class", "select_parameter", "add_arguments", "run"]

GRID = tuple(2.0 ** k for k in range(-10, 11))
BUFFER, ETA_CBR, LAMBDA, DELTA, RANK = 50, 0.7, 1e-4, 0.5, 50


# --------------------------------------------------------------------------- data
def binarize_largest_class(y):
    """Labels -> {0, 1}: the largest class is positive (ties: smallest label), others negative.

    A two-valued ``y`` keeps its larger value as the positive class.
    """
    values, counts = np.unique(y, return_counts=True)
    if values.shape[0] == 2:
        return (y == values[1]).astype(np.int8), f"{values[1]:g} vs {values[0]:g}"
    positive = values[np.argmax(counts)]  # argmax takes the first (smallest label) of ties
    return (y == positive).astype(np.int8), f"class {positive:g} vs the other " \
                                            f"{values.shape[0] - 1}"


def _svmlight(path):
    from ..datasets import load_svmlight

    X, y = load_svmlight(path)[:2]
    return X, y


def _tsv_gz(path):
    with gzip.open(path, "rt") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        data = np.loadtxt(fh, delimiter="\t")
    target = header.index("target") if "target" in header else data.shape[1] - 1
    y = data[:, target]
    return np.delete(data, target, axis=1), y


def _mat(path, *, label_first=True):
    from scipy.io import loadmat

    data = loadmat(path)["data"]
    return data[:, 1:], data[:, 0]


def _farm_ads(folder):
    X = sp.load_npz(folder / "X_raw.npz").tocsr()
    return X, np.load(folder / "y_raw.npy")


def _reuters(folder):
    from scipy.io import loadmat

    m = loadmat(folder / "Reuters21578.mat")
    return sp.csr_matrix(m["fea"]), np.asarray(m["gnd"]).ravel()


# name -> (folder, loader(folder) -> (X, y)); the formats of each SOURCE.md
BENCH_SETS = {
    "glass": ("glass", lambda f: _mat(f / "glass.mat")),
    "ionosphere": ("ionosphere", lambda f: _svmlight(f / "ionosphere_scale")),
    "german.numer": ("german.numer", lambda f: _svmlight(f / "german.numer")),
    "svmguide4": ("svmguide4", lambda f: _svmlight(f / "svmguide4")),
    "diabetes": ("diabetes", lambda f: _svmlight(f / "diabetes")),
    "heart": ("heart", lambda f: _svmlight(f / "heart_scale")),
    "spambase": ("spambase", lambda f: _tsv_gz(f / "spambase.tsv.gz")),
    "vehicle": ("vehicle", lambda f: _tsv_gz(f / "vehicle.tsv.gz")),
    "segment": ("segment", lambda f: _mat(f / "segment.mat")),
}
HD_SETS = {
    "farm-ads": ("farm-ads", _farm_ads),
    "reuters21578": ("reuters21578", _reuters),
    "generated": (None, None),
}
NOTES = {
    "svmguide4": "only the 300-row training part exists in the data folder (paper: 612 rows, "
                 "train + test)",
    "glass": "LIBOL's glass.mat, classes relabelled 1..6",
    "generated": "make_sparse_bipartite(2000 rows, 10000 features, 50 non-zeros per row, "
                 "30% positive, class_sep=2, random_state=0); not in the paper",
}


def _scale_features(X):
    """svm-scale: every feature to [-1, 1] by its min and max over the data (dense)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.ascontiguousarray(np.where(hi > lo, 2.0 * (X - lo) / span - 1.0, 0.0))


def _scale_rows(X):
    """Rows to unit Euclidean norm (CSR), the usual scaling of bag-of-words data."""
    X = sp.csr_matrix(X, dtype=np.float64)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ X)


def load_dataset(name, data_dir, *, high_dimensional=False):
    """``(X, y01, info)``; X scaled (dense for the benchmark sets, CSR for the others)."""
    table = HD_SETS if high_dimensional else BENCH_SETS
    if name == "generated":
        from ..datasets import make_sparse_bipartite

        X, y = make_sparse_bipartite(2000, 10_000, 50, pos_fraction=0.3, class_sep=2.0,
                                     random_state=0)[:2]
        source = "generated"
    elif name in table:
        folder, loader = table[name]
        path = Path(data_dir) / folder
        if not path.exists():
            raise FileNotFoundError(f"data set {name!r}: folder {path} not found (give "
                                    "--data-dir).")
        X, y = loader(path)
        source = str(path)
    elif high_dimensional and Path(name).is_file():  # a --libsvm file
        X, y = _svmlight(Path(name))
        source = str(name)
    else:
        raise ValueError(f"unknown data set {name!r}; known: {', '.join(table)}"
                         + (" or a LIBSVM file" if high_dimensional else "") + ".")
    y01, rule = binarize_largest_class(np.asarray(y).ravel())
    X = _scale_rows(X) if high_dimensional else _scale_features(X)
    info = {"rows": int(X.shape[0]), "features": int(X.shape[1]), "positive": int(y01.sum()),
            "positive_rate": float(y01.mean()), "binary_rule": rule, "source": source,
            "scaling": "rows to unit norm" if high_dimensional else "features to [-1, 1]",
            "note": NOTES.get(name, "")}
    return X, y01, info


# ------------------------------------------------------------------------ methods
def _cbr(buffer, covariance):
    def make(p, seed):
        from ..online import CBR
        return CBR(covariance=covariance, buffer=buffer, buffer_size=BUFFER, eta=ETA_CBR, C=p,
                   random_state=seed)
    return make


def _uniexp(p, seed):
    from ..online import OnlineUniExp
    return OnlineUniExp(eta=p)


def _opauc(rank):
    def make(p, seed):
        from ..online import OPAUC
        return OPAUC(rank=rank, eta=p, lam=LAMBDA, random_state=seed)
    return make


def _oam_seq(p, seed):
    from ..online import OAM
    return OAM(variant="seq", buffer="reservoir", buffer_size=BUFFER, C=p, random_state=seed)


def _adaoam(p, seed):
    from ..online import AdaOAM
    return AdaOAM(learning_rate=p, delta=DELTA, reg=LAMBDA, random_state=seed)


def _spam(p, seed):
    from ..online import SPAM
    return SPAM(eta=p)


def _pgd(p, seed):
    from ..online import PGD
    return PGD(eta=p, buffer_size=BUFFER)


# column -> (factory(param, seed), name of the tuned parameter, in the paper?)
BENCH_METHODS = {
    "CBR_RS": (_cbr("reservoir", "full"), "C", True),
    "CBR_FIFO": (_cbr("fifo", "full"), "C", True),
    "OnlineUniExp": (_uniexp, "eta", True),
    "OPAUC": (_opauc(None), "eta", True),
    "OAM_seq": (_oam_seq, "C", True),
    "AdaOAM": (_adaoam, "learning_rate", True),
    "SPAM": (_spam, "eta", False),
    "PGD": (_pgd, "eta", False),
}
HD_METHODS = {
    "CBR-diag_FIFO": (_cbr("fifo", "diag"), "C", True),
    "OnlineUniExp": (_uniexp, "eta", True),
    "OPAUCr": (_opauc(RANK), "eta", True),
    "OAM_seq": (_oam_seq, "C", True),
}
PAPER_BASELINES = ("OnlineUniExp", "OPAUC", "OAM_seq", "AdaOAM")


# --------------------------------------------------------------------- protocol
def _auc_or_nan(model, X, y01):
    from ..metrics import roc_auc

    return roc_auc(y01, model.decision_function(X))


def _fit_scores(make, p, seed, Xa, ya, Xb, yb):
    """Fit on (Xa, ya) as one stream; AUC on (Xb, yb); -inf when the learner diverged."""
    try:
        model = make(p, seed).fit(Xa, ya)
    except (ValueError, FloatingPointError):
        return -np.inf
    scores = model.decision_function(Xb)
    if not np.all(np.isfinite(scores)):
        return -np.inf
    from ..metrics import roc_auc

    return roc_auc(yb, scores)


def select_parameter(make, X, y01, grid, seed):
    """2-fold CV on the training stream: the grid value of best mean held-out AUC.

    The two halves are a random split (seed) of the rows, each kept in stream
    order; ties go to the smaller value. Returns ``(best, {value: mean AUC})``.
    """
    rng = np.random.default_rng(seed)
    half = np.zeros(X.shape[0], dtype=bool)
    half[rng.permutation(X.shape[0])[: X.shape[0] // 2]] = True
    a, b = np.flatnonzero(half), np.flatnonzero(~half)
    scores = {}
    for p in grid:
        s1 = _fit_scores(make, p, seed, X[a], y01[a], X[b], y01[b])
        s2 = _fit_scores(make, p, seed, X[b], y01[b], X[a], y01[a])
        scores[p] = 0.5 * (s1 + s2)
    best = max(grid, key=lambda p: (scores[p], -p))
    return best, scores


def _splits(n, n_runs, max_rows, seed):
    """Per run: (train rows in stream order, test rows); run r tests on fold r mod 5."""
    out = []
    for r in range(n_runs):
        perm = np.random.default_rng(seed + r).permutation(n)[:max_rows]
        folds = np.array_split(np.arange(perm.shape[0]), 5)
        test = folds[r % 5]
        train = np.setdiff1d(np.arange(perm.shape[0]), test)
        out.append((perm[train], perm[test]))
    return out


def _warm_up(methods, X, y01):
    """Compile every kernel once (numba), so that no timed fit includes compilation."""
    rows = np.r_[np.flatnonzero(y01 == 1)[:3], np.flatnonzero(y01 == 0)[:3]]
    for make, _, _ in methods.values():
        try:
            make(1e-3, 0).fit(X[rows], y01[rows])
        except ValueError:
            pass


def run_dataset(name, X, y01, methods, cfg, report=None):
    """Every method on one data set: CV, then the runs. Returns the per-method results."""
    from ..metrics import optroc_accuracy, roc_auc

    splits = _splits(X.shape[0], cfg["runs"], cfg["max_rows"], cfg["seed"])
    _warm_up(methods, X, y01)
    results = {}
    for method, (make, pname, in_paper) in methods.items():
        res = {"parameter": pname, "in_paper": in_paper, "auc": [], "acc": [], "ms": [],
               "chosen": [], "cv": []}
        best = None
        for r, (tr, te) in enumerate(splits):
            if best is None or cfg["cv_every_run"]:
                best, cv = select_parameter(make, X[tr], y01[tr], cfg["grid"], cfg["seed"] + r)
                res["cv"].append({f"{p:g}": s for p, s in cv.items()})
            t0 = time.perf_counter()
            try:
                model = make(best, cfg["seed"] + r).fit(X[tr], y01[tr])
                ms = 1000.0 * (time.perf_counter() - t0)
                scores = model.decision_function(X[te])
                auc, acc = roc_auc(y01[te], scores), optroc_accuracy(y01[te], scores)
            except ValueError:  # diverged at the chosen value: reported, not hidden
                ms, auc, acc = float("nan"), float("nan"), float("nan")
            res["auc"].append(auc)
            res["acc"].append(acc)
            res["ms"].append(ms)
            res["chosen"].append(best)
            if report is not None:
                report(method, r)
        results[method] = res
    return results


# ------------------------------------------------------------------------ report
def _cell(values, paper):
    ours = format_mean_std(values, 3)
    if paper is None:
        return ours
    return f"{ours} ({paper[0]:.3f} ± {paper[1]:.3f})"


def _criterion(res, baselines):
    """CBR_FIFO's mean AUC not below any baseline's by more than one std (the larger std)."""
    if "CBR_FIFO" not in res:
        return None, []
    m0, s0 = mean_std(res["CBR_FIFO"]["auc"])
    worse = []
    for b in baselines:
        if b not in res:
            continue
        m, s = mean_std(res[b]["auc"])
        if m - m0 > max(s, s0):
            worse.append(f"{b} ({m:.3f} vs {m0:.3f}, std {max(s, s0):.3f})")
    return not worse, worse


def _tables(results, info, methods, table_auc, table_acc, columns, title_auc, title_acc):
    lines = []
    names = list(results)
    heads = ["data set"] + list(methods)
    for title, key, table in ((title_auc, "auc", table_auc), (title_acc, "acc", table_acc)):
        rows = []
        for d in names:
            row = [d]
            for m in methods:
                vals = results[d].get(m, {}).get(key, [])
                row.append(_cell(vals, pub.published(table, d, m, columns)) if vals else "n/a")
            rows.append(row)
        lines += [f"### {title}", "",
                  "Ours: mean ± std over runs; in parentheses the paper's value (where the "
                  "paper has the data set and the learner).", "", markdown_table(heads, rows)]
    return lines


def _time_rows(results, methods):
    rows = []
    for d, res in results.items():
        rows.append([d] + [f"{np.nanmean(res[m]['ms']):.1f}" if m in res else "n/a"
                           for m in methods])
    return rows


def _figure(results, methods, path, title):
    fig, (ax,) = new_figure(1, size=4.0)
    fig.set_size_inches(max(6.0, 1.1 * len(results) + 2), 4.0)
    names = list(results)
    width = 0.8 / len(methods)
    for i, m in enumerate(methods):
        vals = [np.nanmean(results[d][m]["ms"]) if m in results[d] else np.nan for d in names]
        ax.bar(np.arange(len(names)) + i * width, vals, width, label=m)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2)
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("training time (ms, one pass)")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=2)
    save_figure(fig, path)


def write_report(out, cfg, bench, hd, infos):
    """Markdown report + figures from the results dicts."""
    out = Path(out)
    stem = cfg["stem"]
    lines = ["# Khalid, Ray & Chitsaz (2016): confidence-weighted bipartite ranking, reproduced",
             "", f"Command: `{cfg['command']}`", "",
             f"Protocol: {cfg['runs_bench']} runs (benchmark) / {cfg['runs_hd']} runs "
             "(high-dimensional), each a random permutation, at most "
             f"{cfg['max_bench']} / {cfg['max_hd']} rows, 4 folds of 5 streamed once for "
             "training and 1 for testing (run r tests on fold r mod 5); hyper-parameters by "
             f"2-fold CV over {len(cfg['grid'])} values 2^[{cfg['grid_exp'][0]}:"
             f"{cfg['grid_step']}:{cfg['grid_exp'][1]}] (high-dimensional sets: step "
             f"{cfg['hd_grid_step']}) "
             + ("on every run's training set" if cfg["cv_every_run"]
                else "on the first run's training set, reused by the other runs")
             + f"; buffers {BUFFER}, eta {ETA_CBR}, lambda {LAMBDA}, AdaOAM delta {DELTA}, "
             f"OPAUCr rank {RANK}. Times: one training pass, compiled kernels, this machine "
             "(2 shared cores).", ""]
    if bench:
        cols = list(BENCH_METHODS)
        lines += ["## Benchmark data sets (Tables 3 and 4)", ""]
        lines += _tables(bench, infos, cols, pub.TABLE3, pub.TABLE4, pub.BENCH_COLUMNS,
                         "Table 3: AUC", "Table 4: accuracy at OPTROC")
        lines += ["SPAM and PGD are not in the paper (extra columns).", ""]
        rows, holds = [], 0
        for d, res in bench.items():
            ok, worse = _criterion(res, PAPER_BASELINES)
            ok_all, worse_all = _criterion(res, [m for m in cols if m not in
                                                 ("CBR_FIFO", "CBR_RS")])
            holds += bool(ok)
            rows.append([d, "yes" if ok else "no", "; ".join(worse) or "-",
                         "yes" if ok_all else "no"])
        lines += ["### Done-when check", "",
                  "CBR_FIFO's mean AUC is not below a baseline's mean by more than one "
                  "standard deviation (the larger of the two stds); baselines: the paper's "
                  "(OnlineUniExp, OPAUC, OAM_seq, AdaOAM); last column: SPAM and PGD too.", "",
                  markdown_table(["data set", "holds", "baselines ahead by > 1 std",
                                  "holds incl. SPAM/PGD"], rows),
                  f"**Holds on {holds} of {len(bench)} data sets** (required: at least 7 of "
                  "the nine).", ""]
        lines += ["### Training time (ms, mean over runs; Fig. 1: "
                  f"`{stem}-fig1.png`)", "", markdown_table(["data set"] + cols,
                                                            _time_rows(bench, cols))]
        _figure(bench, cols, out / f"{stem}-fig1.png",
                "Fig. 1: training time, benchmark sets")
    if hd:
        cols = list(HD_METHODS)
        lines += ["## High-dimensional data sets (Tables 5 and 6)", ""]
        lines += _tables(hd, infos, cols, pub.TABLE5, pub.TABLE6, pub.HD_COLUMNS,
                         "Table 5: AUC", "Table 6: accuracy at OPTROC")
        lines += ["rcv1, sector, real-sim and news20 are not in the data folder; any of them "
                  "runs with `--libsvm PATH`. The generated set is not in the paper.", "",
                  "### Training time (ms, mean over runs; Fig. 2: "
                  f"`{stem}-fig2.png`)", "", markdown_table(["data set"] + cols,
                                                            _time_rows(hd, cols))]
        _figure(hd, cols, out / f"{stem}-fig2.png",
                "Fig. 2: training time, high-dimensional sets")
    lines += ["## Data sets", "", markdown_table(
        ["data set", "rows", "features", "positive rate", "binary rule", "scaling", "note"],
        [[d, i["rows"], i["features"], f"{i['positive_rate']:.3f}", i["binary_rule"],
          i["scaling"], i["note"]] for d, i in infos.items()])]
    lines += ["## Chosen hyper-parameters (2-fold CV)", ""]
    for group in (bench, hd):
        for d, res in group.items():
            chosen = ", ".join(f"{m}: {res[m]['parameter']}={res[m]['chosen'][0]:g}"
                               for m in res)
            lines.append(f"- {d}: {chosen}")
    lines.append("")
    write_text(out / f"{stem}.md", "\n".join(lines) + "\n")


def _report_from_json(paths, output, stem):
    """Merge the results of earlier runs (later files win per data set) and write the report."""
    import json

    bench, hd, infos, cfg = {}, {}, {}, None
    commands = []
    for path in paths:
        doc = json.loads(Path(path).read_text())
        bench.update(doc["benchmark"])
        hd.update(doc["high_dimensional"])
        infos.update(doc["datasets"])
        c = doc["config"]
        commands.append(c["command"])
        if cfg is None or doc["benchmark"]:
            keep_hd = cfg if cfg is not None else c
            cfg = dict(c, runs_hd=keep_hd["runs_hd"], max_hd=keep_hd["max_hd"],
                       hd_grid_step=keep_hd["hd_grid_step"])
        if doc["high_dimensional"]:
            cfg.update(runs_hd=c["runs_hd"], max_hd=c["max_hd"], hd_grid_step=c["hd_grid_step"])
    cfg["grid"] = [2.0 ** k for k in range(cfg["grid_exp"][0], cfg["grid_exp"][1] + 1,
                                           cfg["grid_step"])]
    commands.append(f"birank reproduce khalid --from-json {' '.join(map(str, paths))} "
                    f"--output {output} --stem {stem}")
    cfg.update(stem=stem, command=" ; ".join(commands))
    write_report(output, cfg, bench, hd, infos)
    write_json(Path(output) / f"{stem}.json",
               {"config": cfg, "meta": run_metadata(), "datasets": infos, "benchmark": bench,
                "high_dimensional": hd, "merged_from": [str(p) for p in paths],
                "published": {"table3": pub.TABLE3, "table4": pub.TABLE4,
                              "table5": pub.TABLE5, "table6": pub.TABLE6}})
    print(f"wrote {Path(output) / (stem + '.md')}")
    return 0


# --------------------------------------------------------------------------- CLI
def add_arguments(parser):
    """Options of ``birank reproduce khalid``."""
    parser.add_argument("--data-dir", default="../shared/data",
                        help="folder holding the data set folders (default: ../shared/data)")
    parser.add_argument("--datasets", nargs="*", default=list(BENCH_SETS),
                        help=f"benchmark sets (Tables 3/4; known: {', '.join(BENCH_SETS)})")
    parser.add_argument("--hd-datasets", nargs="*", default=list(HD_SETS),
                        help=f"high-dimensional sets (Tables 5/6; known: {', '.join(HD_SETS)})")
    parser.add_argument("--libsvm", nargs="*", default=[],
                        help="LIBSVM files run as extra high-dimensional sets")
    parser.add_argument("--runs", type=int, default=10, help="runs, benchmark sets (paper: 10)")
    parser.add_argument("--hd-runs", type=int, default=5,
                        help="runs, high-dimensional sets (paper: 5)")
    parser.add_argument("--max-bench", type=int, default=8000, help="row cap (paper: 8000)")
    parser.add_argument("--max-hd", type=int, default=2000, help="row cap (paper: 2000)")
    parser.add_argument("--grid-step", type=int, default=1,
                        help="use every k-th exponent of 2^[-10:10] (1: all 21, the paper)")
    parser.add_argument("--hd-grid-step", type=int, default=1,
                        help="grid step for the high-dimensional sets (OPAUCr costs O(d tau) "
                             "per row)")
    parser.add_argument("--cv-every-run", action="store_true",
                        help="redo the 2-fold CV on every run (default: first run only)")
    parser.add_argument("--quick", action="store_true",
                        help="3 / 2 runs, grid 2^[-10:10:4], at most 1000 / 600 rows")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default="docs/results", help="output folder")
    parser.add_argument("--stem", default="khalid", help="file name stem of the outputs")
    parser.add_argument("--from-json", nargs="+", default=[],
                        help="write the report from earlier khalid JSON results (e.g. a "
                             "benchmark-only and a high-dimensional-only run) instead of running")


def run(args):
    """Run the reproduction; returns 0."""
    import sys

    quick = bool(args.quick)
    step = 4 if quick else max(1, int(args.grid_step))
    hd_step = 4 if quick else max(1, int(args.hd_grid_step))
    exps = list(range(-10, 11, step))
    cfg = {"grid": tuple(2.0 ** k for k in exps), "grid_exp": (exps[0], exps[-1]),
           "grid_step": step, "hd_grid": tuple(2.0 ** k for k in range(-10, 11, hd_step)),
           "hd_grid_step": hd_step, "cv_every_run": bool(args.cv_every_run), "seed": int(args.seed),
           "runs_bench": 3 if quick else args.runs, "runs_hd": 2 if quick else args.hd_runs,
           "max_bench": 1000 if quick else args.max_bench,
           "max_hd": 600 if quick else args.max_hd, "stem": args.stem,
           "command": "birank reproduce khalid " + " ".join(sys.argv[3:])}
    if args.from_json:
        return _report_from_json(args.from_json, args.output, args.stem)
    report = make_progress(True, "khalid")
    infos, bench, hd = {}, {}, {}
    groups = [(args.datasets, False, BENCH_METHODS, cfg["runs_bench"], cfg["max_bench"], bench),
              (list(args.hd_datasets) + list(args.libsvm), True, HD_METHODS, cfg["runs_hd"],
               cfg["max_hd"], hd)]
    total = sum(len(g[0]) * len(g[2]) * g[3] for g in groups)
    done = [0]
    t_start = time.perf_counter()
    for names, high, methods, runs, max_rows, store in groups:
        for name in names:
            X, y01, info = load_dataset(name, args.data_dir, high_dimensional=high)
            label = Path(name).name if high and name not in HD_SETS else name
            infos[label] = info

            def tick(method, r, label=label):
                done[0] += 1
                report(done[0], total, f"{label} {method} run {r + 1}")

            run_cfg = dict(cfg, runs=runs, max_rows=max_rows)
            if high:
                run_cfg["grid"] = cfg["hd_grid"]
            store[label] = run_dataset(label, X, y01, methods, run_cfg, tick)
            cfg["elapsed_s"] = time.perf_counter() - t_start
            write_json(Path(args.output) / f"{args.stem}.json",
                       {"config": cfg, "meta": run_metadata(), "datasets": infos,
                        "benchmark": bench, "high_dimensional": hd,
                        "published": {"table3": pub.TABLE3, "table4": pub.TABLE4,
                                      "table5": pub.TABLE5, "table6": pub.TABLE6}})
    write_report(args.output, cfg, bench, hd, infos)
    print(f"wrote {Path(args.output) / (args.stem + '.md')} in "
          f"{time.perf_counter() - t_start:.0f} s")
    return 0
