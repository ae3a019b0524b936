"""Reproduction of Khalid, Ray & Chitsaz (2016): confidence-weighted bipartite ranking.

``birank reproduce khalid --data-home DIR [--quick] [--datasets ...] [--hd-datasets ...]
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

* The cross-validation runs on every run's training set (section 4.2: "2-fold
  cross-validation on the training set"); ``--cv-first-run`` runs it once per
  (data set, learner) on the first run's training set and reuses the choice
  (10x cheaper; the older reports did this).
* Multi-class sets are made binary by a rule per set (the paper says "randomly",
  without the classes): the one of class 1 vs rest, first half of the classes vs
  the second, largest class vs rest, that the paper's own numbers support
  (:data:`BINARY_RULE`, with the reason; the report's rule ablation re-measures the
  evidence: OPTROC accuracy is never below the majority-class rate, and the closest
  columns). A set given as a file follows the rule of its name, else
  :data:`DEFAULT_RULE`; two-class sets are used as they are.
* When cross-validation picks the smallest or largest grid value, the grid is
  extended past it (two more values of the same ratio, at most three times;
  :func:`birank.experiments._grid.search_grid`); a choice still at the edge is
  marked in the tables.
* Data: the data folder (``--data-home``, default the birank data folder), the LIBSVM
  cache of ``birank datasets fetch``, or the copy bundled with birank; a set found
  nowhere stops the run with its name and how to get it (``--skip-missing`` runs
  the others and lists the paper's missing sets in the report). Any LIBSVM/SVMlight
  file runs as a benchmark set (``--libsvm-bench``) or high-dimensional set
  (``--libsvm``). Nothing is substituted for a missing set.
* Features: every benchmark set is scaled to [-1, 1] per feature (min/max over
  the data, LIBSVM's svm-scale); text sets have their rows scaled to unit
  Euclidean norm ("scaled similarly in all experiments", section 4.2).
* High-dimensional sets: farm-ads and Reuters-21578 from the data folder, rcv1,
  news20, real-sim, sector from the LIBSVM cache when fetched, a generated sparse
  set (:func:`birank.datasets.make_sparse_bipartite`, not in the paper), and any
  LIBSVM file given with ``--libsvm``.

Outputs (``--output``, default ``docs/results``): ``khalid.md`` (a verdict per
claim, Tables 3-6 beside the published numbers, paired tests over runs, where our
results differ and why, the binarization and ablation evidence, hyper-parameters,
times),
``khalid.json`` (every number per run), ``khalid-fig1.png`` and
``khalid-fig2.png`` (training time, log scale).
"""

from __future__ import annotations

import argparse
import gzip
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from .._typing import Matrix, StrPath

from .._progress import make_progress
from . import khalid_published as pub
from ._grid import GridEdgeWarning
from ._report import (format_mean_std, markdown_table, mean_std, missing_data_error,
                      new_figure, run_metadata, save_figure, say_written, write_json,
                      write_text)
from ._stats import nanmean

__all__ = ["BENCH_SETS", "HD_SETS", "BENCH_METHODS", "HD_METHODS", "load_dataset",
           "binarize_largest_class", "select_parameter", "add_arguments", "run"]

GRID = tuple(2.0 ** k for k in range(-10, 11))
BUFFER, ETA_CBR, LAMBDA, DELTA, RANK = 50, 0.7, 1e-4, 0.5, 50


# --------------------------------------------------------------------------- data
def binarize_largest_class(y: ArrayLike) -> tuple[NDArray[np.int8], str]:
    """Labels -> {0, 1}: the largest class is positive (ties: smallest label), others negative.

    A two-valued ``y`` keeps its larger value as the positive class.

    Parameters
    ----------
    y : array-like
        Labels (flattened), at least two classes (else a ValueError).

    Returns
    -------
    y01 : ndarray of int8
        1 for the positive class, 0 for the others.
    description : str
        Which class is positive, for the report.

    Examples
    --------
    >>> from birank.experiments.khalid import binarize_largest_class
    >>> y01, description = binarize_largest_class([3, 1, 3, 2])
    >>> y01.tolist(), description
    ([1, 0, 1, 0], 'class 3 vs the other 2')
    """
    return binarize(y, "largest")


#: the usual ways of making a multi-class set binary (issue: the paper says only "randomly")
BINARY_RULES = {
    "largest": "the largest class (ties: the smallest label) vs the rest",
    "class1": "class 1 (the smallest label when there is no 1) vs the rest",
    "halves": "the first half of the classes (sorted labels, floor(k/2)) vs the second half",
}


def binarize(y, rule="largest"):
    """Labels -> ``({0, 1} labels, description)`` by one of :data:`BINARY_RULES`.

    A two-valued ``y`` keeps its larger value as the positive class whatever the rule
    (the LIBSVM binary versions are used as they are).
    """
    y = np.asarray(y).ravel()
    values, counts = np.unique(y, return_counts=True)
    if values.shape[0] == 2:
        return (y == values[1]).astype(np.int8), f"{values[1]:g} vs {values[0]:g}"
    if values.shape[0] < 2:
        raise ValueError(f"a binary task needs at least two classes; got {values.shape[0]}.")
    if rule == "largest":
        positive = values[np.argmax(counts)]  # argmax takes the first (smallest label) of ties
        return (y == positive).astype(np.int8), f"class {positive:g} vs the other " \
                                                f"{values.shape[0] - 1}"
    if rule == "class1":
        positive = 1 if np.any(values == 1) else values[0]
        return (y == positive).astype(np.int8), f"class {positive:g} vs the other " \
                                                f"{values.shape[0] - 1}"
    if rule == "halves":
        pos = values[: values.shape[0] // 2]
        return np.isin(y, pos).astype(np.int8), \
            f"classes {{{', '.join(f'{v:g}' for v in pos)}}} vs the other " \
            f"{values.shape[0] - pos.shape[0]}"
    raise ValueError(f"unknown binarization rule {rule!r}; known: {', '.join(BINARY_RULES)}.")


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


def _farm_ads(x_file, y_file):
    X = sp.load_npz(x_file).tocsr()
    return X, np.load(y_file)


def _reuters(path):
    from scipy.io import loadmat

    m = loadmat(path)
    return sp.csr_matrix(m["fea"]), np.asarray(m["gnd"]).ravel()


def _svmguide4(path):
    """The training part, plus the test part (``svmguide4.t``) when it is there (612 rows)."""
    X, y = _svmlight(path)
    test = path.with_name(path.name + ".t")
    if test.is_file():
        Xt, yt = _svmlight(test)
        d = max(X.shape[1], Xt.shape[1])
        X.resize((X.shape[0], d))
        Xt.resize((Xt.shape[0], d))
        X, y = sp.vstack([X, Xt]).tocsr(), np.r_[y, yt]
    return X, y


class _Files:
    """``loader(folder) -> (X, y)``: ``read`` of the files ``names`` of a set's folder in
    the data directory; a folder without one of them holds no copy of the set."""

    def __init__(self, read: Callable[..., tuple[Any, Any]], *names: str) -> None:
        self.read, self.names = read, names

    def __call__(self, folder: Path) -> tuple[Any, Any]:
        return self.read(*(Path(folder) / n for n in self.names))

    def lacking(self, folder: Path) -> list[Path]:
        """The files of the set not in ``folder``."""
        return [Path(folder) / n for n in self.names if not (Path(folder) / n).is_file()]


# name -> (folder in the data directory or None, its files' loader(folder) -> (X, y)); the
# formats of each SOURCE.md. Sets without a folder come from the LIBSVM cache (`birank datasets fetch
# NAME` into the data directory) or from the bundled copies. Order: the paper's Table 1.
BENCH_SETS = {
    "glass": ("glass", _Files(_mat, "glass.mat")),
    "ionosphere": ("ionosphere", _Files(_svmlight, "ionosphere_scale")),
    "german.numer": ("german.numer", _Files(_svmlight, "german.numer")),
    "svmguide4": ("svmguide4", _Files(_svmguide4, "svmguide4")),
    "svmguide3": (None, None),
    "cod-rna": (None, None),
    "spambase": ("spambase", _Files(_tsv_gz, "spambase.tsv.gz")),
    "covtype": (None, None),
    "magic04": (None, None),
    "heart": ("heart", _Files(_svmlight, "heart_scale")),
    "australian": (None, None),
    "diabetes": ("diabetes", _Files(_svmlight, "diabetes")),
    "acoustic": (None, None),
    "vehicle": ("vehicle", _Files(_tsv_gz, "vehicle.tsv.gz")),
    "segment": ("segment", _Files(_mat, "segment.mat")),
}
HD_SETS = {
    "farm-ads": ("farm-ads", _Files(_farm_ads, "X_raw.npz", "y_raw.npy")),
    "reuters21578": ("reuters21578", _Files(_reuters, "Reuters21578.mat")),
    "rcv1": (None, None),
    "sector": (None, None),
    "real-sim": (None, None),
    "news20": (None, None),
    "generated": (None, None),
}
#: our name -> the LIBSVM download name (``birank datasets fetch NAME``)
LIBSVM_NAME = {"covtype": "covtype.binary", "rcv1": "rcv1.binary", "news20": "news20.binary"}
NOTES = {
    "svmguide4": "training part only (300 rows; paper: 612, train + test): the test part "
                 "svmguide4.t was not in the data folder",
    "glass": "LIBOL's glass.mat, classes relabelled 1..6",
    "generated": "make_sparse_bipartite(2000 rows, 10000 features, 50 non-zeros per row, "
                 "30% positive, class_sep=2, random_state=0); not in the paper",
}

#: per multi-class set: the binarization rule and why (the paper says only "randomly"). The
#: evidence is the rule ablation of the report (``Binarization rules``): OPTROC accuracy can
#: never fall below the majority-class rate max(p, 1 - p), so a rule whose floor is above the
#: paper's lowest accuracy is excluded, and among the rest the one whose six columns lie
#: closest to the paper's Tables 3-4 (mean |ours - paper|) is used.
BINARY_RULE = {
    "glass": ("class1", "closest to the paper (mean |AUC diff| 0.040, accuracy 0.029, vs 0.123 "
                        "/ 0.076 for the largest class); halves' accuracy floor 0.76 is above "
                        "the paper's 0.73"),
    "vehicle": ("class1", "closest to the paper (mean |AUC diff| 0.019, accuracy 0.016, vs "
                          "0.176 / 0.136 for the largest class, 0.140 / 0.089 for halves)"),
    "segment": ("halves", "one class of seven vs the rest has an accuracy floor of 0.857, above "
                          "the paper's 0.691: excluded; halves are within 0.072 AUC / 0.058 "
                          "accuracy"),
    "svmguide4": ("largest", "the paper's accuracies (0.83-0.96) with AUCs down to 0.61 need "
                             "about 18% positives (one class of six); the largest class is "
                             "closest in accuracy (0.037); halves fit AUC better (0.044) but "
                             "miss accuracy by 0.108; no rule reaches the paper's CBR 0.97"),
    "sector": ("halves", "105 classes: one class is ~1% positives, about 4 per test fold, "
                         "accuracy ~0.99 where the paper reports ~0.85; halves match that "
                         "level"),
    "reuters21578": ("largest", "65 classes; the largest class is 45% positives, whose "
                                "accuracy floor (0.55) is consistent with the paper's 0.95-0.97 "
                                "(not ablated: the high-dimensional runs are long)"),
}
#: any other multi-class set (a ``--libsvm`` file too) follows this rule
DEFAULT_RULE = ("halves", "default for multi-class sets not ablated: the rule the paper's "
                          "numbers support on the many-class sets (segment, sector)")


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


def _duration(seconds):
    """A run's length for the report: seconds below two minutes, else minutes."""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def how_to_get(name, data_home=None):
    """One line saying where a missing set comes from (and, given ``data_home``, where it
    was looked for)."""
    from ..datasets import LIBSVM_DATASETS, NOT_ON_LIBSVM

    libsvm = LIBSVM_NAME.get(name, name)
    # a file given by path: a high-dimensional set's with --libsvm, a benchmark set's with
    # --libsvm-bench (the two run in different tables)
    option = "--libsvm" if name in HD_SETS else "--libsvm-bench"
    folder, loader = {**BENCH_SETS, **HD_SETS}.get(name, (None, None))
    looked = ""
    if folder is not None and data_home is not None:
        path = Path(data_home).expanduser() / folder
        # (a folder without the set's files: they are named, not the folder)
        looked = (f"no {', no '.join(map(str, loader.lacking(path)))}, " if path.is_dir()
                  else f"no folder {path}, ")
    if libsvm in LIBSVM_DATASETS and data_home is not None:
        from ..datasets._locate import find_data_file

        train = LIBSVM_DATASETS[libsvm]["train"].rsplit("/", 1)[-1]
        try:
            find_data_file(data_home, f"{libsvm}/{train}", required=True)
        except FileNotFoundError as exc:
            looked += str(exc)
        return f"{looked.rstrip(', ')}; or `{option} PATH`"
    if libsvm in LIBSVM_DATASETS:
        return f"`birank datasets fetch {libsvm} --data-home DATA_HOME`, or `{option} PATH`"
    paper = {"reuters21578": "Reuters"}.get(name, name)
    origin = NOT_ON_LIBSVM.get(paper, "not on the LIBSVM page")
    put = (f"{', '.join(loader.names)} under DATA_HOME/{folder}/" if loader is not None
           else f"it under DATA_HOME/{name}/")
    looked = f"{looked[:-2]}; " if looked else ""
    return f"{looked}{origin}: put {put} or give the file with {option} PATH"


def _find(name, data_home, table):
    """``(loader_thunk, source, own_folder)`` for a named set, or None when it is nowhere;
    ``own_folder``: read from the set's folder by its loader (the copy :data:`NOTES` is
    about), not from a LIBSVM file."""
    folder, loader = table.get(name, (None, None))
    if data_home is not None:  # ("~": the home folder, as for how_to_get and find_data_file)
        data_home = Path(data_home).expanduser()
    if folder is not None and data_home is not None:
        path = data_home / folder
        if path.is_dir() and not loader.lacking(path):
            return (lambda: loader(path)), f"data folder: {folder}/", True
    from ..datasets import BUNDLED, LIBSVM_DATASETS

    libsvm = LIBSVM_NAME.get(name, name)
    if libsvm in LIBSVM_DATASETS and data_home is not None:
        train, test = _libsvm_files(libsvm, data_home)
        if train is not None:
            where = (f"LIBSVM cache: {libsvm}"
                     if train.parent == data_home / "libsvm"
                     else f"data folder: {libsvm}/")
            part = " (training part only)" if LIBSVM_DATASETS[libsvm]["test"] and test is None \
                else ""
            return (lambda: _load_libsvm(libsvm, train, test)), where + part, False
    if name in BUNDLED:
        from ..datasets import load_bundled

        return (lambda: load_bundled(name)[:2]), "bundled with birank", False
    return None


def _libsvm_files(libsvm, data_home):
    """The training and test files of LIBSVM set ``libsvm`` (each None when not found) under
    ``data_home``: ``NAME/FILE`` as published, or downloaded by ``birank datasets fetch``."""
    from ..datasets import LIBSVM_DATASETS
    from ..datasets._locate import find_data_file

    info = LIBSVM_DATASETS[libsvm]
    return tuple(None if info[part] is None else
                 find_data_file(data_home, f"{libsvm}/{info[part].rsplit('/', 1)[-1]}")
                 for part in ("train", "test"))


def _load_libsvm(libsvm, train, test):
    """The training part, and the test part below it when there is one; at least the
    published number of features."""
    from ..datasets import LIBSVM_DATASETS

    X, y = _svmlight(train)
    parts = [(X, y)] if test is None else [(X, y), _svmlight(test)]
    d = max([LIBSVM_DATASETS[libsvm]["n_features"]] + [P.shape[1] for P, _ in parts])
    for P, _ in parts:
        P.resize((P.shape[0], d))
    return sp.vstack([P for P, _ in parts]).tocsr(), np.concatenate([v for _, v in parts])


def missing_sets(names, data_home, *, high_dimensional=False):
    """``[(name, how to get it)]`` for the named sets found nowhere (files always count)."""
    table = HD_SETS if high_dimensional else BENCH_SETS
    out = []
    for name in names:
        if name == "generated" or (name not in table and Path(name).is_file()):
            continue
        if name not in table:
            raise ValueError(f"unknown data set {name!r}; known: {', '.join(table)}, or give a "
                             "LIBSVM/SVMlight file.")
        if _find(name, data_home, table) is None:
            out.append((name, how_to_get(name, data_home)))
    return out


def load_dataset(name: str, *, data_home: StrPath | None, high_dimensional: bool = False,
                 rule: Literal["largest", "class1", "halves"] | None = None,
                 scale: bool = True) -> tuple[Matrix, NDArray[np.int8], dict[str, Any]]:
    """``(X, y01, info)``; X scaled (dense for the benchmark sets, CSR for the others).

    Parameters
    ----------
    name : str
        A known set (of :data:`BENCH_SETS`, or of :data:`HD_SETS` with
        ``high_dimensional=True``), looked for in the data folder, the LIBSVM cache and
        the bundled copies, in that order; or the path of a LIBSVM/SVMlight file.
    data_home : str or os.PathLike or None
        The data folder (None: only the bundled copies and files).
    high_dimensional : bool, default=False
        Rows scaled to unit norm, CSR (Tables 5/6), instead of features to [-1, 1],
        dense (Tables 3/4).
    rule : {"largest", "class1", "halves"}, default=None
        How a multi-class set is made binary (:data:`BINARY_RULES`); None: its rule in
        :data:`BINARY_RULE` (by name, a file by its stem), else :data:`DEFAULT_RULE`.
    scale : bool, default=True
        False keeps the features as stored (an ablation).

    Returns
    -------
    X : ndarray of float64 or scipy.sparse.csr_matrix
    y01 : ndarray of int8
        1 positive, 0 negative.
    info : dict
        Rows, features, positive rate, the binarization rule and why, source, scaling.

    Examples
    --------
    >>> from birank.experiments.khalid import load_dataset
    >>> X, y01, info = load_dataset("heart", data_home=None)
    >>> X.shape, float(X.min()), float(X.max()), info["source"]
    ((270, 13), -1.0, 1.0, 'bundled with birank')
    """
    table = HD_SETS if high_dimensional else BENCH_SETS
    label = name
    own_folder = True
    if name == "generated":
        from ..datasets import make_sparse_bipartite

        X, y = make_sparse_bipartite(2000, n_features=10_000, nnz_per_row=50, pos_fraction=0.3,
                                     class_sep=2.0, random_state=0)[:2]
        source = "generated"
    elif name in table:
        found = _find(name, data_home, table)
        if found is None:
            raise FileNotFoundError(f"data set {name!r} not found: "
                                    f"{how_to_get(name, data_home)}.")
        X, y = found[0]()
        source, own_folder = found[1], found[2]
    elif Path(name).is_file():  # a LIBSVM/SVMlight file given on the command line
        X, y = _svmlight(Path(name))
        label = Path(name).name
        source = f"file {label}"
    else:
        raise ValueError(f"unknown data set {name!r}; known: {', '.join(table)}, or give a "
                         "LIBSVM/SVMlight file.")
    y = np.asarray(y).ravel()
    n_classes = int(np.unique(y).shape[0])
    stem = label.split(".")[0] if label not in BINARY_RULE else label
    chosen, why = (rule, "given") if rule else BINARY_RULE.get(label, BINARY_RULE.get(
        stem, DEFAULT_RULE))
    if n_classes == 2:
        chosen, why = "binary", "two classes: used as they are"
    y01, desc = binarize(y, chosen if chosen != "binary" else "largest")
    if scale:
        X = _scale_rows(X) if high_dimensional else _scale_features(X)
    elif not high_dimensional:
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    # (a set's note is about its own folder's copy: not a LIBSVM or bundled one)
    note = NOTES.get(name, "") if own_folder else ""
    if name == "svmguide4" and X.shape[0] > 300:
        note = "training + test parts (612 rows, as the paper)"
    info = {"rows": int(X.shape[0]), "features": int(X.shape[1]), "positive": int(y01.sum()),
            "positive_rate": float(y01.mean()), "binary_rule": desc, "rule": chosen,
            "rule_reason": why, "classes": n_classes, "source": source,
            "scaling": ("rows to unit norm" if high_dimensional else "features to [-1, 1]")
            if scale else "none (as stored)", "note": note}
    return X, y01, info


# ------------------------------------------------------------------------ methods
def _cbr(buffer, covariance):
    def make(p, seed):
        from ..online import CBR
        return CBR(covariance=covariance, buffer=buffer, buffer_size=BUFFER, confidence=ETA_CBR, C=p,
                   random_state=seed)
    return make


def _uniexp(p, seed):
    from ..online import OnlineUniExp
    return OnlineUniExp(eta0=p)


def _opauc(rank):
    def make(p, seed):
        from ..online import OPAUC
        return OPAUC(rank=rank, eta0=p, alpha=LAMBDA, random_state=seed)
    return make


def _oam_seq(p, seed):
    from ..online import OAM
    return OAM(variant="seq", buffer="reservoir", buffer_size=BUFFER, C=p, random_state=seed)


def _adaoam(p, seed):
    from ..online import AdaOAM
    return AdaOAM(eta0=p, delta=DELTA, alpha=LAMBDA, random_state=seed)


def _spam(p, seed):
    from ..online import SPAM
    return SPAM(eta0=p)


def _pgd(p, seed):
    from ..online import PGD
    return PGD(eta0=p, buffer_size=BUFFER)


# column -> (factory(param, seed), name of the tuned parameter, in the paper?)
BENCH_METHODS = {
    "CBR_RS": (_cbr("reservoir", "full"), "C", True),
    "CBR_FIFO": (_cbr("fifo", "full"), "C", True),
    "OnlineUniExp": (_uniexp, "eta0", True),
    "OPAUC": (_opauc(None), "eta0", True),
    "OAM_seq": (_oam_seq, "C", True),
    "AdaOAM": (_adaoam, "eta0", True),
    "SPAM": (_spam, "eta0", False),
    "PGD": (_pgd, "eta0", False),
}
HD_METHODS = {
    "CBR-diag_FIFO": (_cbr("fifo", "diag"), "C", True),
    "OnlineUniExp": (_uniexp, "eta0", True),
    "OPAUCr": (_opauc(RANK), "eta0", True),
    "OAM_seq": (_oam_seq, "C", True),
}
PAPER_BASELINES = ("OnlineUniExp", "OPAUC", "OAM_seq", "AdaOAM")


# --------------------------------------------------------------------- protocol
def _fit_scores(make, p, seed, Xa, ya, Xb, yb):
    """Fit on (Xa, ya) as one stream; AUC on (Xb, yb); -inf when the learner diverged.

    The learners' warnings (steps capped, a model worse than chance on its own
    stream) are silenced here: the grid spans 2^-10..2^10 on purpose, the held-out
    AUC already judges every value, and thousands of them would bury the progress.
    The fits at the chosen values keep theirs (recorded and reported).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            model = make(p, seed).fit(Xa, ya)
            scores = model.decision_function(Xb)  # (overflows to inf where it diverged)
    except (ValueError, FloatingPointError):
        return -np.inf
    if not np.all(np.isfinite(scores)):
        return -np.inf
    from ..metrics import roc_auc

    return roc_auc(yb, scores)


@overload
def select_parameter(make: Callable[[float, int], Any], X: Matrix, y01: NDArray[Any],
                     grid: Iterable[float], *, random_state: int, max_extensions: int = ...,
                     name: str = ..., return_record: Literal[False] = ...,
                     ) -> tuple[float, dict[float, float]]: ...


@overload
def select_parameter(make: Callable[[float, int], Any], X: Matrix, y01: NDArray[Any],
                     grid: Iterable[float], *, random_state: int, max_extensions: int = ...,
                     name: str = ..., return_record: Literal[True],
                     ) -> tuple[float, dict[float, float], dict[str, Any]]: ...


def select_parameter(make: Callable[[float, int], Any], X: Matrix, y01: NDArray[Any],
                     grid: Iterable[float], *, random_state: int, max_extensions: int = 3,
                     name: str = "parameter", return_record: bool = False,
                     ) -> (tuple[float, dict[float, float]]
                           | tuple[float, dict[float, float], dict[str, Any]]):
    """2-fold CV on the training stream: the grid value of best mean held-out AUC.

    The two halves are a random split (``random_state``) of the rows, each kept in stream
    order; ties go to the smaller value. When the best value is at an edge of the
    grid the grid is extended past it by two values of the grid's ratio, at most
    ``max_extensions`` times (:func:`birank.experiments._grid.search_grid`); a choice
    still at an edge issues a :class:`~birank.experiments._grid.GridEdgeWarning`.

    Parameters
    ----------
    make : callable (value, random_state) -> estimator
        An unfitted learner for a parameter value (with ``fit`` and
        ``decision_function``); one that fails or scores non-finite counts as -inf.
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The training stream, rows in stream order.
    y01 : ndarray of shape (n_samples,)
        Labels, 1 or 0.
    grid : iterable of positive float
        A geometric grid.
    random_state : int
        Seeds the split and is passed on to ``make`` (the same int for every fit, so
        the values are compared on equal draws; an int, not a Generator).
    max_extensions : int, default=3
        Extensions past an edge (0: never).
    name : str, default="parameter"
        The parameter, for the warning.
    return_record : bool, default=False
        Also return the search record.

    Returns
    -------
    best : float
    scores : dict of float to float
        Mean held-out AUC of every value tried.
    record : dict
        Only with ``return_record=True``: :func:`birank.experiments._grid.search_grid`'s
        (``at_edge``, ``extended``, ...).

    Examples
    --------
    >>> from birank import RankSVM
    >>> from birank.experiments.khalid import load_dataset, select_parameter
    >>> X, y01, _ = load_dataset("heart", data_home=None)
    >>> best, scores = select_parameter(lambda C, random_state: RankSVM(C=C), X, y01,
    ...                                 [0.001, 0.01, 0.1, 1.0], random_state=0)
    >>> best, len(scores)  # 0.001 was at the edge: 1e-4 and 1e-5 were tried too
    (0.001, 6)
    """
    from ._grid import search_grid

    rng = np.random.default_rng(random_state)
    half = np.zeros(X.shape[0], dtype=bool)
    half[rng.permutation(X.shape[0])[: X.shape[0] // 2]] = True
    a, b = np.flatnonzero(half), np.flatnonzero(~half)

    def score(p):
        s1 = _fit_scores(make, p, random_state, X[a], y01[a], X[b], y01[b])
        s2 = _fit_scores(make, p, random_state, X[b], y01[b], X[a], y01[a])
        return 0.5 * (s1 + s2)

    best, record = search_grid(score, grid, extend=2, max_extensions=max_extensions,
                               prefer="smaller", name=name)
    if return_record:
        return best, record["scores"], record
    return best, record["scores"]


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
            with warnings.catch_warnings():  # six rows: only the compilation matters
                warnings.simplefilter("ignore")
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
               "chosen": [], "cv": [], "at_edge": [], "extended": [], "warnings": []}
        best = None
        for r, (tr, te) in enumerate(splits):
            if best is None or cfg["cv_every_run"]:
                with warnings.catch_warnings():  # the edge is recorded and reported instead
                    warnings.simplefilter("ignore", GridEdgeWarning)
                    best, cv, rec = select_parameter(
                        make, X[tr], y01[tr], cfg["grid"], random_state=cfg["seed"] + r,
                        max_extensions=cfg.get("max_extensions", 3), name=pname,
                        return_record=True)
                res["cv"].append({f"{p:g}": s for p, s in cv.items()})
                edge, extended = rec["at_edge"], rec["extended"]
            res["at_edge"].append(edge)
            res["extended"].append(extended)
            warned = None
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings(record=True) as caught:  # reported per method
                    warnings.simplefilter("always")
                    model = make(best, cfg["seed"] + r).fit(X[tr], y01[tr])
                ms = 1000.0 * (time.perf_counter() - t0)
                warned = str(caught[0].message) if caught else None
                scores = model.decision_function(X[te])
                auc, acc = roc_auc(y01[te], scores), optroc_accuracy(y01[te], scores)
            except ValueError:  # diverged at the chosen value: reported, not hidden
                ms, auc, acc = float("nan"), float("nan"), float("nan")
            res["warnings"].append(warned)
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
    ours = format_mean_std(values, digits=3)
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
                r = results[d].get(m, {})
                vals = r.get(key, [])
                mark = "†" if any(e for e in r.get("at_edge", [])) else ""
                row.append(_cell(vals, pub.published(table, d, m, columns)) + mark
                           if vals else "n/a")
            rows.append(row)
        lines += [f"### {title}", "",
                  "Ours: mean ± std over runs; in parentheses the paper's value (where the "
                  "paper has the data set and the learner). † the cross-validated parameter "
                  "is at an edge of the grid even after extending it (see *Chosen "
                  "hyper-parameters*).", "", markdown_table(heads, rows)]
    return lines


def _time_rows(results, methods):
    rows = []
    for d, res in results.items():
        rows.append([d] + [f"{nanmean(res[m]['ms']):.1f}" if m in res else "n/a"
                           for m in methods])
    return rows


def _figure(results, methods, path, title):
    fig, (ax,) = new_figure(1, size=4.0)
    fig.set_size_inches(max(6.0, 1.1 * len(results) + 2), 4.0)
    names = list(results)
    width = 0.8 / len(methods)
    for i, m in enumerate(methods):
        vals = [nanmean(results[d][m]["ms"]) if m in results[d] else np.nan for d in names]
        ax.bar(np.arange(len(names)) + i * width, vals, width, label=m)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2)
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("training time (ms, one pass)")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=2)
    save_figure(fig, path)


# ---------------------------------------------------------------- ablations and tests
def _paper_cols(results, table, d, key="auc"):
    """``{column: (ours mean, paper mean)}`` for the paper's columns of one set."""
    out = {}
    for m in pub.BENCH_COLUMNS:
        paper = pub.published(table, d, m, pub.BENCH_COLUMNS)
        if paper is not None and m in results and len(results[m][key]):
            out[m] = (float(nanmean(results[m][key])), paper[0])
    return out


def _mad(results, d):
    """Mean |ours - paper| over the paper's columns: (AUC, accuracy)."""
    a = _paper_cols(results, pub.TABLE3, d, "auc")
    c = _paper_cols(results, pub.TABLE4, d, "acc")
    fa = [abs(o - q) for o, q in a.values() if np.isfinite(o)]  # a diverged learner: left out
    fc = [abs(o - q) for o, q in c.values() if np.isfinite(o)]
    if not fa:
        return float("nan"), float("nan")
    return float(np.mean(fa)), float(np.mean(fc)) if fc else float("nan")


def _gap(results, d, columns):
    """Mean (ours - paper) AUC over ``columns``."""
    a = _paper_cols(results, pub.TABLE3, d, "auc")
    v = [o - q for m, (o, q) in a.items() if m in columns and np.isfinite(o)]
    return float(np.mean(v)) if v else float("nan")


def run_ablations(names, data_home, cfg, report=None):
    """The evidence behind the report's choices and its "where we differ" section.

    * ``rules``: every multi-class set under every rule of :data:`BINARY_RULES` (the
      paper's six columns): positive rate, accuracy floor max(p, 1 - p), mean |ours - paper|.
    * ``unscaled``: the features as stored (no svm-scale) -- does scaling explain why our
      baselines are stronger than the paper's?
    * ``fixed``: every learner at its parameter 1 (no CV) -- does tuning explain it?
    """
    methods = {m: BENCH_METHODS[m] for m in pub.BENCH_COLUMNS}
    base = dict(cfg, runs=cfg["ablation_runs"], max_rows=cfg["max_bench"],
                grid=cfg["ablation_grid"], cv_every_run=False)
    out = {"rules": {}, "unscaled": {}, "fixed": {}, "runs": base["runs"],
           "grid": list(base["grid"])}
    for d in names:
        if d not in BENCH_SETS or pub.TABLE3.get(pub.PAPER_NAME.get(d, d)) is None:
            continue
        X, y01, info = load_dataset(d, data_home=data_home)
        if info["classes"] > 2:
            out["rules"][d] = {}
            for rule in BINARY_RULES:
                Xr, yr, ir = load_dataset(d, data_home=data_home, rule=rule)
                res = run_dataset(d, Xr, yr, methods, base)
                p = float(yr.mean())
                mad = _mad(res, d)
                out["rules"][d][rule] = {
                    "desc": ir["binary_rule"], "positive_rate": p,
                    "accuracy_floor": max(p, 1 - p), "mad_auc": mad[0], "mad_acc": mad[1],
                    "paper_min_acc": min(c[0] for c in pub.TABLE4[pub.PAPER_NAME.get(d, d)]),
                    "auc": {m: float(nanmean(res[m]["auc"])) for m in res}}
        Xu = load_dataset(d, data_home=data_home, scale=False)[0]
        res_u = run_dataset(d, Xu, y01, methods, base)
        res_f = run_dataset(d, X, y01, methods, dict(base, grid=(1.0,), max_extensions=0))
        for key, res in (("unscaled", res_u), ("fixed", res_f)):
            out[key][d] = {"baselines_gap": _gap(res, d, PAPER_BASELINES),
                           "cbr_gap": _gap(res, d, ("CBR_FIFO", "CBR_RS")),
                           "auc": {m: float(nanmean(res[m]["auc"])) for m in res}}
        if report is not None:
            report(d)
    return out


def _comparisons(res, cfg):
    """CBR_FIFO against each paper baseline: paired over runs (the units), with a CI."""
    from ._stats import paired_comparison

    out = {}
    if "CBR_FIFO" not in res:
        return out
    for b in PAPER_BASELINES:
        if b in res:
            out[b] = paired_comparison(res["CBR_FIFO"]["auc"], res[b]["auc"],
                                       random_state=cfg["seed"])
    return out


def _best_other(res, exclude=("CBR_FIFO", "CBR_RS")):
    means = {m: float(nanmean(r["auc"])) for m, r in res.items() if m not in exclude
             and len(r["auc"])}
    best = max(means, key=means.get)
    return best, means[best]


def _verdicts(bench, hd, cfg):
    """The plain verdict per claim of the paper (the report's first lines)."""
    lines = []
    if bench:
        with_paper = [d for d in bench if pub.TABLE3.get(pub.PAPER_NAME.get(d, d))]
        ahead, margins, paper_margins, gaps = 0, [], [], []
        for d in with_paper:
            res = bench[d]
            cbr = max(nanmean(res[m]["auc"]) for m in ("CBR_FIFO", "CBR_RS") if m in res)
            best, bm = _best_other({m: res[m] for m in PAPER_BASELINES if m in res})
            ahead += cbr > bm
            margins.append(cbr - bm)
            row = pub.TABLE3[pub.PAPER_NAME.get(d, d)]
            paper_margins.append(max(row[0][0], row[1][0]) - max(c[0] for c in row[2:]))
            gaps.append(_gap(res, d, PAPER_BASELINES))
        n = len(with_paper)
        if not n:
            lines.append("- **CBR ranks better than the online baselines (Table 3): not "
                         "tested** (none of the paper's benchmark sets was run).")
        holds = "not tested" if not n else "holds" if ahead == n and min(margins) > 0.01 else (
            "does not reproduce" if ahead <= n / 2 else "holds only in part")
        lines += [] if not n else [
            f"- **CBR ranks better than the online baselines (Table 3): {holds}.** CBR (better of "
            f"FIFO/RS) has the top AUC among the paper's learners on {ahead} of {n} sets; its "
            f"margin over the best baseline is {np.min(margins):+.3f} to {np.max(margins):+.3f} "
            f"(paper: {np.min(paper_margins):+.3f} to {np.max(paper_margins):+.3f}). Our "
            f"baselines are {np.nanmin(gaps):+.3f} to {np.nanmax(gaps):+.3f} AUC from the "
            "paper's (mean over the four)"
            + (", so the paper's large margins come mostly from weaker baselines"
               if np.nanmedian(gaps) > 0.02 else "")
            + "; see *Where our results differ*."]
        fifo = sum(nanmean(bench[d]["CBR_FIFO"]["auc"]) >= nanmean(bench[d]["CBR_RS"]["auc"])
                   for d in bench if "CBR_FIFO" in bench[d] and "CBR_RS" in bench[d])
        lines.append(f"- **FIFO buffer at least as good as reservoir sampling: "
                     f"{'holds' if fifo > len(bench) / 2 else 'does not reproduce'}** "
                     f"(FIFO >= RS in mean AUC on {fifo} of {len(bench)} sets).")
        faster = sum(nanmean(bench[d]["CBR_FIFO"]["ms"]) < nanmean(bench[d]["OAM_seq"]["ms"])
                     for d in bench if "CBR_FIFO" in bench[d] and "OAM_seq" in bench[d])
        lines.append(f"- **CBR trains faster than OAM_seq (Fig. 1): "
                     f"{'holds' if faster > len(bench) / 2 else 'does not reproduce'}** "
                     f"(CBR_FIFO faster on {faster} of {len(bench)} sets).")
    if hd:
        with_paper = [d for d in hd if pub.TABLE5.get(pub.PAPER_NAME.get(d, d))]
        if not with_paper:
            lines.append("- **CBR-diag is best on the high-dimensional sets (Table 5): not "
                         "tested** (none of the paper's high-dimensional sets was run).")
            return lines
        top = sum(nanmean(hd[d]["CBR-diag_FIFO"]["auc"]) >=
                  _best_other(hd[d], ("CBR-diag_FIFO",))[1] for d in with_paper)
        lines.append(f"- **CBR-diag is best on the high-dimensional sets (Table 5): "
                     f"{'holds' if top == len(with_paper) else 'holds only in part'}** "
                     f"(top AUC on {top} of {len(with_paper)} of the paper's sets we have).")
    return lines


def _fx(v, spec=".3f"):
    """A number for a table; 'n/a' for a missing or diverged (NaN, JSON null) value."""
    return "n/a" if v is None or not np.isfinite(v) else format(v, spec)


def _ablation_lines(abl):
    lines = []
    if abl.get("rules"):
        rows = []
        for d, per in abl["rules"].items():
            for rule, r in per.items():
                used = BINARY_RULE.get(d, DEFAULT_RULE)[0] == rule
                rows.append([d, rule + (" (used)" if used else ""), r["desc"]]
                            + [_fx(r[k]) for k in ("positive_rate", "accuracy_floor",
                                                   "paper_min_acc", "mad_auc", "mad_acc")])
        lines += ["### Binarization rules tested against the paper", "",
                  f"Each multi-class set under each rule ({abl['runs']} runs, grid "
                  f"{len(abl['grid'])} values, the paper's six columns). Accuracy at OPTROC "
                  "is never below the majority-class rate max(p, 1 - p) (the all-negative or "
                  "all-positive cut), so a rule whose floor exceeds the paper's lowest "
                  "accuracy cannot be the paper's; among the others, the smaller the mean "
                  "|ours - paper| the better supported.", "",
                  markdown_table(["data set", "rule", "positives", "positive rate",
                                  "accuracy floor", "paper's lowest accuracy",
                                  "mean abs AUC diff", "mean abs accuracy diff"], rows)]
    if abl.get("unscaled"):
        rows = [[d, _fx(abl["unscaled"][d]["baselines_gap"], "+.3f"),
                 _fx(abl["fixed"][d]["baselines_gap"], "+.3f"),
                 _fx(abl["unscaled"][d]["cbr_gap"], "+.3f"),
                 _fx(abl["fixed"][d]["cbr_gap"], "+.3f")] for d in abl["unscaled"]]
        lines += ["### Ablations: what makes our baselines stronger than the paper's?", "",
                  "Mean (ours - paper) AUC over the paper's four baselines and over CBR "
                  "(FIFO, RS), when the features are left as stored (no [-1, 1] scaling) or "
                  "every learner runs at parameter 1 without cross-validation "
                  f"({abl['runs']} runs each).", "",
                  markdown_table(["data set", "baselines, unscaled", "baselines, no CV",
                                  "CBR, unscaled", "CBR, no CV"], rows)]
    return lines


def _differ_lines(bench, hd, infos, abl, main_gaps):
    """The section "Where our results differ", with the likely reason and its evidence."""
    L = ["## Where our results differ", ""]
    if bench:
        gaps = {d: g for d, g in main_gaps.items() if np.isfinite(g)}
        if gaps:
            txt = ", ".join(f"{d} {g:+.3f}" for d, g in gaps.items())
            ev = ""
            if abl.get("unscaled"):
                def finite(part):
                    return {d: v["baselines_gap"] for d, v in abl[part].items()
                            if v["baselines_gap"] is not None and np.isfinite(v["baselines_gap"])}
                un, fx = finite("unscaled"), finite("fixed")
                closer_u = sum(abs(un[d]) < abs(gaps[d]) for d in un if d in gaps)
                closer_f = sum(abs(fx[d]) < abs(gaps[d]) for d in fx if d in gaps)

                def mean_abs(v):
                    return float(nanmean([abs(x) for x in v.values()]))
                ev = (f" Ablation: without feature scaling the baselines come closer to the "
                      f"paper's on {closer_u} of {len(un)} sets (mean |gap| "
                      f"{mean_abs({d: un[d] for d in un if d in gaps}):.3f} vs "
                      f"{mean_abs(gaps):.3f}); without cross-validation (parameter 1) on "
                      f"{closer_f} of {len(fx)} (mean |gap| {mean_abs(fx):.3f}); ablation "
                      "table below.")
                m0 = mean_abs(gaps)
                mu = mean_abs({d: un[d] for d in un if d in gaps})
                mf = mean_abs({d: fx[d] for d in fx if d in gaps})
                if min(mu, mf) < 0.8 * m0:
                    ev += (" The better-matching ablation names the likeliest reason: the "
                           "paper's baselines were run " + ("on unscaled features" if mu < mf
                                                             else "without tuning")
                           + "; the paper does not say.")
                else:
                    ev += (" Neither ablation closes the gap, so neither scaling nor tuning "
                           "explains it; what remains untested here is the paper's own "
                           "baseline implementations (step-size schedules, passes), which "
                           "it does not describe.")
            cbr_close = [d for d in bench if "CBR_FIFO" in bench[d] and pub.published(
                pub.TABLE3, d, "CBR_FIFO", pub.BENCH_COLUMNS) and abs(
                nanmean(bench[d]["CBR_FIFO"]["auc"]) - pub.published(
                    pub.TABLE3, d, "CBR_FIFO", pub.BENCH_COLUMNS)[0]) <= 0.025]
            L += [f"- **Baselines stronger than the paper's** (mean ours - paper AUC over "
                  f"the four baselines: {txt}).{ev} Our CBR_FIFO is within 0.025 AUC of the "
                  f"paper's on {len(cbr_close)} of {len(gaps)} sets "
                  f"({', '.join(cbr_close) or 'none'}), so the paper's CBR margins come from "
                  "the baseline side, not from a CBR we fail to reproduce."]
        for d, res in bench.items():
            if "CBR_FIFO" not in res:
                continue
            best, bm = _best_other({m: res[m] for m in PAPER_BASELINES if m in res})
            cf = float(nanmean(res["CBR_FIFO"]["auc"]))
            if bm > cf + 0.005:
                paper = pub.published(pub.TABLE3, d, best, pub.BENCH_COLUMNS)
                pc = pub.published(pub.TABLE3, d, "CBR_FIFO", pub.BENCH_COLUMNS)
                ev = (f" ours {bm:.3f} against the paper's {paper[0]:.3f}, while our "
                      f"CBR_FIFO is {cf:.3f} against the paper's {pc[0]:.3f}") if paper and pc \
                    else ""
                from ._stats import format_comparison, paired_comparison

                test = paired_comparison(res["CBR_FIFO"]["auc"], res[best]["auc"])
                L.append(f"- **{d}: {best} ({bm:.3f}) above CBR_FIFO ({cf:.3f})**; CBR_FIFO − "
                         f"{best} {format_comparison(test, digits=3)} over "
                         f"{test['n_units']} runs. "
                         "Likely reason: the baseline is stronger here than "
                         f"in the paper ({ev.strip() or 'no paper cell'}); CBR itself is "
                         "where the paper has it.")
            elif bm >= cf - 0.005:  # CBR level with the best baseline: no margin at all
                base = [m for m in PAPER_BASELINES if m in res]
                pb = [pub.published(pub.TABLE3, d, m, pub.BENCH_COLUMNS) for m in base]
                pc = pub.published(pub.TABLE3, d, "CBR_FIFO", pub.BENCH_COLUMNS)
                if pc is None or not base or not all(pb) or \
                        pc[0] - max(p[0] for p in pb) <= 0.02 or abs(cf - pc[0]) > 0.025:
                    continue  # no clear CBR margin in the paper, or CBR itself is off
                from ._stats import paired_comparison

                tests = {m: paired_comparison(res["CBR_FIFO"]["auc"], res[m]["auc"])
                         for m in base}
                ours_b = [float(nanmean(res[m]["auc"])) for m in base]
                gap = float(np.mean(ours_b) - np.mean([p[0] for p in pb]))
                ev, closes = [], []
                for part, what in (("unscaled", "unscaled features"),
                                   ("fixed", "parameter 1 without CV")):
                    g = (abl.get(part) or {}).get(d, {}).get("baselines_gap")
                    if g is not None and np.isfinite(g):
                        ev.append(f"{what} {g:+.3f}")
                        if abs(g) <= 0.02:
                            closes.append(what)
                ev_txt = ("; the baselines' gap to the paper under the ablations: "
                          + ", ".join(ev)) if ev else ""
                if closes:
                    ev_txt += (f" — with {' or '.join(closes)} our baselines land at the "
                               "paper's level, the likeliest account of its margin here")
                L.append(
                    f"- **{d}: CBR_FIFO level with the baselines** (CBR_FIFO {cf:.3f}; "
                    f"the paper's four baselines {min(ours_b):.3f}-{max(ours_b):.3f}; "
                    "CBR_FIFO − baseline " + ", ".join(
                        f"{m} {t['mean_diff']:+.3f} (t p {t['t_p']:.2f})"
                        for m, t in tests.items()) + f", {tests[base[0]]['n_units']} runs). "
                    f"The paper has CBR_FIFO at {pc[0]:.3f}, ahead of baselines at "
                    f"{min(p[0] for p in pb):.3f}-{max(p[0] for p in pb):.3f}. Likely reason: "
                    f"the baselines, not CBR: our CBR_FIFO is {cf - pc[0]:+.3f} from the "
                    f"paper's, our baselines {gap:+.3f} on average{ev_txt}.")
        rs_better = [d for d in bench if "CBR_RS" in bench[d] and "CBR_FIFO" in bench[d] and
                     nanmean(bench[d]["CBR_RS"]["auc"]) >
                     nanmean(bench[d]["CBR_FIFO"]["auc"])]
        if rs_better:
            within = sum(abs(nanmean(bench[d]["CBR_RS"]["auc"]) -
                             nanmean(bench[d]["CBR_FIFO"]["auc"])) <=
                         max(np.nanstd(bench[d]["CBR_RS"]["auc"]),
                             np.nanstd(bench[d]["CBR_FIFO"]["auc"])) for d in rs_better)
            L.append(f"- **FIFO vs RS**: RS has the higher mean AUC on {', '.join(rs_better)} "
                     f"(within one std on {within} of them). Likely reason: the streams are "
                     "random permutations, so a FIFO buffer holds no more recent (or more "
                     "relevant) rows than a reservoir, and the two buffers are "
                     "interchangeable samples of the past.")
        slow = [(d, nanmean(r["CBR_FIFO"]["ms"]), nanmean(r["OAM_seq"]["ms"]))
                for d, r in bench.items() if "CBR_FIFO" in r and "OAM_seq" in r]
        slower = [x for x in slow if x[1] > x[2]]
        if slower:
            ex = max(slower, key=lambda x: x[1] / x[2])
            L.append(f"- **CBR slower than OAM_seq on {len(slower)} of {len(slow)} sets** "
                     f"(e.g. {ex[0]}: {ex[1]:.0f} vs {ex[2]:.0f} ms). Likely reason: full-"
                     "covariance CBR updates a d x d matrix against every buffered row of the "
                     "opposite class (O(B d^2) per row) while OAM_seq does O(B d) work; the "
                     "paper's timings may come from an implementation with other constant "
                     "factors. Its claim does not hold for the algorithms as written.")
        for d in ("svmguide4", "diabetes"):
            if d in bench and d in main_gaps:
                cf = float(nanmean(bench[d]["CBR_FIFO"]["auc"]))
                paper = pub.published(pub.TABLE3, d, "CBR_FIFO", pub.BENCH_COLUMNS)[0]
                if abs(cf - paper) > 0.05:
                    why = ("the data: we have " + infos[d]["note"] + "; no binarization rule "
                           "reaches the paper's CBR level (rule table)") if d == "svmguide4" \
                        else ("every learner of ours is shifted alike: all "
                              f"{len(bench[d])} reach {_span_means(bench[d])} AUC, the usual "
                              "level of a linear model on Pima diabetes, against the paper's "
                              "0.63-0.71, so the paper's set or preprocessing differs from "
                              "LIBSVM's diabetes")
                    L.append(f"- **{d}: CBR_FIFO {cf:.3f} vs the paper's {paper:.3f}.** "
                             f"Likely reason: {why}.")
    L.append("")
    return L


def _span_means(res):
    means = [float(nanmean(r["auc"])) for r in res.values() if len(r["auc"])]
    return f"{min(means):.2f}-{max(means):.2f}"


def _test_lines(bench, cfg):
    rows = []
    for d, res in bench.items():
        for b, r in _comparisons(res, cfg).items():
            from ._stats import format_comparison

            rows.append([d, b, r["n_units"], format_comparison(r, digits=3)])
    if not rows:
        return []
    return ["### Paired tests: CBR_FIFO against each of the paper's baselines", "",
            "AUC difference CBR_FIFO - baseline, mean over runs with a 95% bootstrap interval "
            "over runs, paired t-test (t p) and Wilcoxon signed-rank test (W p). Units: the "
            f"runs ({cfg['runs_bench']} per set); they are random permutations of the same "
            "rows, so they are independent draws of the protocol, not of new data.", "",
            markdown_table(["data set", "baseline", "units", "difference [95% CI] (p-values)"],
                           rows)]


def _pow2(v):
    k = np.log2(v) if v > 0 else np.nan
    return f"2^{int(round(k))}" if np.isfinite(k) and abs(k - round(k)) < 1e-9 else f"{v:g}"


def write_report(out, cfg, bench, hd, infos, ablations=None, missing=None,
                 feature_budget=None):
    """Markdown report + figures from the results dicts (``feature_budget``: the sweep of
    :mod:`birank.experiments.khalid_budget`)."""
    out = Path(out)
    stem = cfg["stem"]
    abl = ablations or {}
    lines = ["# Khalid, Ray & Chitsaz (2016): confidence-weighted bipartite ranking, reproduced",
             ""]
    if cfg.get("reduced"):
        lines += [f"**Reduced run**: {cfg['reduced']}", ""]
    lines += ["## Verdict", ""] + _verdicts(bench, hd, cfg) + [""]
    lines += [f"Command: `{cfg['command']}`", "",
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
             "(2 shared cores)"
             + (f"; the whole run took {_duration(cfg['elapsed_s'])}" if cfg.get("elapsed_s")
                else "") + ".", ""]
    if bench:
        cols = list(BENCH_METHODS)
        lines += ["## Benchmark data sets (Tables 3 and 4)", ""]
        lines += _tables(bench, infos, cols, pub.TABLE3, pub.TABLE4, pub.BENCH_COLUMNS,
                         "Table 3: AUC", "Table 4: accuracy at OPTROC")
        lines += ["SPAM and PGD are not in the paper (extra columns).", ""]
        lines += _test_lines(bench, cfg)
        rows, holds = [], 0
        for d, res in bench.items():
            ok, worse = _criterion(res, PAPER_BASELINES)
            ok_all, worse_all = _criterion(res, [m for m in cols if m not in
                                                 ("CBR_FIFO", "CBR_RS")])
            holds += bool(ok)
            rows.append([d, "yes" if ok else "no", "; ".join(worse) or "-",
                         "yes" if ok_all else "no"])
        lines += ["### CBR_FIFO not behind any baseline by more than one std", "",
                  "CBR_FIFO's mean AUC is not below a baseline's mean by more than one "
                  "standard deviation (the larger of the two stds); baselines: the paper's "
                  "(OnlineUniExp, OPAUC, OAM_seq, AdaOAM); last column: SPAM and PGD too.", "",
                  markdown_table(["data set", "holds", "baselines ahead by > 1 std",
                                  "holds incl. SPAM/PGD"], rows),
                  f"**Holds on {holds} of {len(bench)} data sets.** A coarse check; the "
                  "paired tests above weigh each difference against its run-to-run "
                  "spread.", ""]
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
        lines += ["Any LIBSVM/SVMlight file runs as a further set with `--libsvm PATH`. "
                  "The generated set is not in the paper.", "",
                  "### Training time (ms, mean over runs; Fig. 2: "
                  f"`{stem}-fig2.png`)", "", markdown_table(["data set"] + cols,
                                                            _time_rows(hd, cols))]
        _figure(hd, cols, out / f"{stem}-fig2.png",
                "Fig. 2: training time, high-dimensional sets")
    if feature_budget:
        from .khalid_budget import budget_lines
        lines += budget_lines(feature_budget, figure_path=out / f"{stem}-budget.png")
    main_gaps = {d: _gap(res, d, PAPER_BASELINES) for d, res in bench.items()}
    lines += _differ_lines(bench, hd, infos, abl, main_gaps)
    lines += ["## Data sets", "", markdown_table(
        ["data set", "rows", "features", "positive rate", "binary rule", "why this rule",
         "source", "scaling", "note"],
        [[d, i["rows"], i["features"], f"{i['positive_rate']:.3f}", i["binary_rule"],
          i.get("rule_reason", ""), i.get("source", ""), i["scaling"], i["note"]]
         for d, i in infos.items()])]
    lines += _ablation_lines(abl)
    if missing:
        lines += ["", "### The paper's sets not found (not run, nothing substituted)", ""]
        lines += [f"- {d}: {how}" for d, how in missing]
    lines += ["", "## Chosen hyper-parameters (2-fold CV)", "",
              f"Grid 2^[{cfg.get('grid_exp', [-10, 10])[0]}:{cfg.get('grid_step', 1)}:"
              f"{cfg.get('grid_exp', [-10, 10])[1]}] (high-dimensional sets: step "
              f"{cfg.get('hd_grid_step', 1)}); when the best value is at an edge the grid "
              "is extended by "
              "two values of the same ratio past it, at most three times; '(edge)' marks a "
              "choice still at an edge, '(+k)' the number of extensions made.", ""]
    for group in (bench, hd):
        for d, res in group.items():
            parts = []
            for m in res:
                r = res[m]
                chosen = r["chosen"]
                ext = max(r.get("extended") or [0])
                edges = sum(bool(e) for e in r.get("at_edge") or [])
                if len(set(chosen)) == 1:  # one CV (first run) or every run agreed
                    tag = (" (edge)" if edges else "") + (f" (+{ext})" if ext else "")
                    parts.append(f"{m}: {r['parameter']}={_pow2(chosen[0])}{tag}")
                else:  # CV on every run's training set: the range over runs
                    tag = (f" (edge in {edges} of {len(chosen)} runs)" if edges else "") + \
                        (f" (+{ext})" if ext else "")
                    parts.append(f"{m}: {r['parameter']}={_pow2(min(chosen))}.."
                                 f"{_pow2(max(chosen))} (median "
                                 f"{_pow2(float(np.median(chosen)))}){tag}")
            lines.append(f"- {d}: {', '.join(parts)}")
    lines += _warning_lines(bench, hd)
    lines.append("")
    write_text(out / f"{stem}.md", "\n".join(lines) + "\n")


def _warning_lines(bench, hd):
    """Report lines: which fits at the chosen values warned (the CV's fits are silenced)."""
    runs, warned = {}, {}
    for group in (bench, hd):
        for d, res in group.items():
            for m, r in res.items():
                msgs = r.get("warnings") or []
                runs[m] = runs.get(m, 0) + len(msgs)
                hit = [w for w in msgs if w]
                if hit:
                    warned.setdefault(m, []).append((d, len(hit), len(msgs), hit[0]))
    head = ("the CV's own fits are silenced: its grid spans values meant to fail, and "
            "their held-out AUC judges them")
    if not warned:
        return ["", f"No fit at a chosen value warned ({head})."]
    out = ["", f"Warnings of the fits at the chosen values ({head}):", ""]
    for m, sets in warned.items():
        n = sum(k for _, k, _, _ in sets)
        where = ", ".join(f"{d} {k}/{t}" for d, k, t, _ in sets)
        out.append(f"- {m}: {n} of {runs[m]} runs ({where}); the first: “{sets[0][3]}”")
    return out


def _report_from_json(paths, output, stem):
    """Merge the results of earlier runs (later files win per data set) and write the report."""
    import json

    bench, hd, infos, cfg, budget = {}, {}, {}, None, {}
    commands, ablations, missing = [], {}, []
    for path in paths:
        doc = json.loads(Path(path).read_text())
        ablations = doc.get("ablations") or ablations
        missing = doc.get("missing") or missing
        bench.update(doc["benchmark"])
        hd.update(doc["high_dimensional"])
        budget.update(doc.get("feature_budget") or {})
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
    if len(paths) > 1:  # a report merged from several runs names each run's command
        commands.append(f"birank reproduce khalid --from-json "
                        f"{' '.join(Path(p).name for p in paths)} --stem {stem}")
    cfg.update(stem=stem, command=" ; ".join(commands))
    cfg.setdefault("reduced", "")
    write_report(output, cfg, bench, hd, infos, ablations, missing, budget)
    write_json(Path(output) / f"{stem}.json",
               {"config": cfg, "meta": run_metadata(), "datasets": infos, "benchmark": bench,
                "high_dimensional": hd, "ablations": ablations, "missing": missing,
                "feature_budget": budget, "merged_from": [Path(p).name for p in paths],
                "published": {"table3": pub.TABLE3, "table4": pub.TABLE4,
                              "table5": pub.TABLE5, "table6": pub.TABLE6}})
    say_written([Path(output) / (stem + '.md')])
    return 0


# --------------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``birank reproduce khalid``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        Receives the options (``--data-home``, ``--datasets``, ``--runs``, ...).

    Examples
    --------
    >>> import argparse
    >>> from birank.experiments import khalid
    >>> parser = argparse.ArgumentParser()
    >>> khalid.add_arguments(parser)
    >>> args = parser.parse_args(["--quick", "--datasets", "heart"])
    >>> args.datasets, args.runs, args.cv_every_run
    (['heart'], 10, True)
    """
    parser.add_argument("--data-home", default=None,
                        help="folder holding the data set folders or the LIBSVM cache of "
                             "`birank datasets fetch` (default: the birank data folder, "
                             "$BIRANK_DATA or ~/.cache/birank); bundled sets need nothing")
    parser.add_argument("--datasets", nargs="*", default=list(BENCH_SETS),
                        help=f"benchmark sets (Tables 3/4; known: {', '.join(BENCH_SETS)}); "
                             "a path runs that LIBSVM/SVMlight file")
    parser.add_argument("--hd-datasets", nargs="*", default=list(HD_SETS),
                        help=f"high-dimensional sets (Tables 5/6; known: {', '.join(HD_SETS)})")
    parser.add_argument("--libsvm", nargs="*", default=[],
                        help="LIBSVM/SVMlight files run as extra high-dimensional sets")
    parser.add_argument("--libsvm-bench", nargs="*", default=[],
                        help="LIBSVM/SVMlight files run as extra benchmark sets (Tables 3/4; "
                             "a file named like a paper set, e.g. cod-rna, gets its paper "
                             "column)")
    parser.add_argument("--skip-missing", action="store_true",
                        help="run the sets found and list the others in the report (default: "
                             "stop with an error naming each missing set)")
    parser.add_argument("--no-ablations", action="store_true",
                        help="skip the binarization-rule, unscaled and no-CV ablations")
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
    parser.add_argument("--max-extensions", type=int, default=3,
                        help="times the grid is extended past an edge choice (0: never)")
    # the paper: the parameter is chosen "by 2-fold cross-validation on the training set"
    # of each run, so CV on every run is the default
    parser.add_argument("--cv-every-run", dest="cv_every_run", action="store_true",
                        default=True, help="redo the 2-fold CV on every run's training set "
                                           "(the default, as the paper)")
    parser.add_argument("--cv-first-run", dest="cv_every_run", action="store_false",
                        help="cross-validate on the first run's training set only and reuse "
                             "its choice (10x cheaper)")
    parser.add_argument("--feature-budgets", nargs="*", type=int, default=None,
                        help="CBR-diag feature budgets swept on the high-dimensional sets "
                             "(default: 10 30 100 300 1000 3000, plus no budget)")
    parser.add_argument("--no-budget-sweep", action="store_true",
                        help="skip the CBR-diag feature-budget sweep")
    parser.add_argument("--budget-sweep-only", action="store_true",
                        help="run only the feature-budget sweep on --hd-datasets (its JSON "
                             "joins a report through --from-json)")
    parser.add_argument("--quick", action="store_true",
                        help="3 / 2 runs, grid 2^[-10:10:4], at most 1000 / 600 rows; "
                             "writes khalid-quick.*")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="no progress lines")
    parser.add_argument("--output", default="docs/results", help="output folder")
    parser.add_argument("--stem", default="khalid", help="file name stem of the outputs")
    parser.add_argument("--from-json", nargs="+", default=[],
                        help="write the report from earlier khalid JSON results (e.g. a "
                             "benchmark-only and a high-dimensional-only run) instead of running")


def _command(argv):
    """The command line as run, without machine paths (data folder, output, files)."""
    out, skip = [], None
    for a in argv:
        if skip == "output":
            skip = None
            continue
        if skip == "path":
            out.append(Path(a).name)
            continue
        if skip == "dir":
            out.append("DATA_HOME")
            skip = None
            continue
        if a in ("--data-home", "--data-dir"):  # (--data-dir: its deprecated name)
            skip, a = "dir", "--data-home"
        elif a == "--output":
            skip = "output"
            continue
        elif a in ("--from-json", "--libsvm", "--libsvm-bench"):
            skip = "path"
        elif a.startswith("--"):
            skip = None
        out.append(a)
    return "birank reproduce khalid " + " ".join(out)


def _reduced(cfg):
    """A sentence when the run is smaller than the paper's protocol, else ''."""
    parts = []
    if cfg["runs_bench"] < 10:
        parts.append(f"{cfg['runs_bench']} runs instead of 10 (benchmark)")
    if cfg["runs_hd"] < 5:
        parts.append(f"{cfg['runs_hd']} runs instead of 5 (high-dimensional)")
    if cfg["grid_step"] > 1 or cfg["hd_grid_step"] > 1:
        parts.append(f"grid step {cfg['grid_step']} / {cfg['hd_grid_step']} instead of 1")
    if cfg["max_bench"] < 8000 or cfg["max_hd"] < 2000:
        parts.append(f"at most {cfg['max_bench']} / {cfg['max_hd']} rows instead of "
                     "8000 / 2000")
    return "; ".join(parts) + "." if parts else ""


def run(args: argparse.Namespace) -> int:
    """Run the reproduction; returns 0.

    What ``birank reproduce khalid`` runs: writes ``<stem>.json`` and ``<stem>.md``
    (and figures) under ``args.output`` (minutes with ``--quick`` on bundled sets,
    hours for the paper's protocol).

    Parameters
    ----------
    args : argparse.Namespace
        The options of :func:`add_arguments`.

    Returns
    -------
    status : int
        0 (errors are raised).

    Examples
    --------
    >>> import argparse
    >>> from birank.experiments import khalid
    >>> parser = argparse.ArgumentParser()
    >>> khalid.add_arguments(parser)
    >>> args = parser.parse_args(["--quick", "--datasets", "heart", "--hd-datasets",
    ...                           "--no-ablations", "--output", "results"])
    >>> khalid.run(args)  # doctest: +SKIP
    0
    """
    import sys

    from ..datasets import get_data_home

    quick = bool(args.quick)
    stem = args.stem + ("-quick" if quick and not args.stem.endswith("-quick") else "")
    data_home = args.data_home if args.data_home is not None else get_data_home()
    step = 4 if quick else max(1, int(args.grid_step))
    hd_step = 4 if quick else max(1, int(args.hd_grid_step))
    exps = list(range(-10, 11, step))
    cfg = {"grid": tuple(2.0 ** k for k in exps), "grid_exp": (exps[0], exps[-1]),
           "grid_step": step, "hd_grid": tuple(2.0 ** k for k in range(-10, 11, hd_step)),
           "hd_grid_step": hd_step, "cv_every_run": bool(args.cv_every_run), "seed": int(args.seed),
           "runs_bench": 3 if quick else args.runs, "runs_hd": 2 if quick else args.hd_runs,
           "max_bench": 1000 if quick else args.max_bench,
           "max_hd": 600 if quick else args.max_hd, "stem": stem,
           "max_extensions": int(args.max_extensions),
           "ablation_runs": 2 if quick else 5,
           "ablation_grid": tuple(2.0 ** k for k in range(-10, 11, 4 if quick else 2)),
           "command": _command(sys.argv[3:])}
    cfg["reduced"] = ("quick run (a smoke test, not the paper's protocol): " if quick else "") \
        + _reduced(cfg)
    if args.from_json:
        return _report_from_json(args.from_json, args.output, stem)
    bench_names = list(args.datasets) + list(args.libsvm_bench)
    hd_names = list(args.hd_datasets) + list(args.libsvm)
    missing = missing_sets(bench_names, data_home) + \
        missing_sets(hd_names, data_home, high_dimensional=True)
    if missing and not args.skip_missing:
        raise missing_data_error(missing, "Pass --skip-missing to run the sets that were "
                                 "found, or --datasets/--hd-datasets with fewer sets.")
    gone = {d for d, _ in missing}
    bench_names = [d for d in bench_names if d not in gone]
    hd_names = [d for d in hd_names if d not in gone]
    quiet = bool(getattr(args, "no_progress", False))
    report = make_progress(not quiet, "khalid")
    infos: dict[str, Any] = {}
    bench: dict[str, Any] = {}
    hd: dict[str, Any] = {}
    budget: dict[str, Any] = {}
    groups = [(bench_names, False, BENCH_METHODS, cfg["runs_bench"], cfg["max_bench"], bench),
              (hd_names, True, HD_METHODS, cfg["runs_hd"], cfg["max_hd"], hd)]
    if getattr(args, "budget_sweep_only", False):
        groups, bench_names = [], []
    total = sum(len(g[0]) * len(g[2]) * g[3] for g in groups)
    done = [0]
    t_start = time.perf_counter()

    def save(ablations=None):
        write_json(Path(args.output) / f"{stem}.json",
                   {"config": cfg, "meta": run_metadata(), "datasets": infos,
                    "benchmark": bench, "high_dimensional": hd, "ablations": ablations or {},
                    "feature_budget": budget,
                    "missing": missing,
                    "published": {"table3": pub.TABLE3, "table4": pub.TABLE4,
                                  "table5": pub.TABLE5, "table6": pub.TABLE6}})

    for names, high, methods, runs, max_rows, store in groups:
        for name in names:
            X, y01, info = load_dataset(name, data_home=data_home, high_dimensional=high)
            label = Path(name).name if name not in (HD_SETS if high else BENCH_SETS) else name
            infos[label] = info

            def tick(method, r, label=label):
                done[0] += 1
                report(done[0], total, f"{label} {method} run {r + 1}")

            run_cfg = dict(cfg, runs=runs, max_rows=max_rows)
            if high:
                run_cfg["grid"] = cfg["hd_grid"]
            store[label] = run_dataset(label, X, y01, methods, run_cfg, tick)
            cfg["elapsed_s"] = time.perf_counter() - t_start
            save()
    if hd_names and not args.no_budget_sweep:
        # the paper's future work: online feature selection for CBR-diag
        from .khalid_budget import BUDGETS, run_budget_sweep
        budgets = BUDGETS if args.feature_budgets is None else \
            tuple(args.feature_budgets) + (None,)
        if not quiet:
            print("khalid: CBR-diag feature-budget sweep", file=sys.stderr)
        data = {}
        for name in hd_names:
            label = Path(name).name if name not in HD_SETS else name
            X, y01, _ = load_dataset(name, data_home=data_home, high_dimensional=True)
            data[label] = (X, y01)
        chosen = {d: hd[d]["CBR-diag_FIFO"]["chosen"][0] for d in hd if "CBR-diag_FIFO" in hd[d]}
        budget.update(run_budget_sweep(
            data, dict(cfg, runs=cfg["runs_hd"], max_rows=cfg["max_hd"], grid=cfg["hd_grid"]),
            budgets=budgets, chosen_C=chosen))
        save()
    ablations = {}
    if not args.no_ablations and bench_names:
        if not quiet:
            print("khalid: ablations (binarization rules, unscaled features, no CV)",
                  file=sys.stderr)
        ablations = run_ablations([d for d in bench_names if d in BENCH_SETS], data_home, cfg)
    cfg["elapsed_s"] = time.perf_counter() - t_start
    save(ablations)
    write_report(args.output, cfg, bench, hd, infos, ablations, missing, budget)
    if not quiet:
        say_written([f"{Path(args.output) / (stem + '.md')} in "
                     f"{time.perf_counter() - t_start:.0f} s"])
    return 0
