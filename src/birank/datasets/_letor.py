"""LETOR learning-to-rank data sets: folds, local folders and checked downloads.

LETOR files are SVMlight text with ``qid:`` and a trailing comment
(``label qid:N 1:v ... #docid = ...``); :func:`birank.datasets.load_svmlight`
reads them. Two layouts are known:

- ``"folds"`` (LETOR 3.0 Gov: TD2003, TD2004, ...): the published archive holds
  ``Fold1..Fold5/{train,vali,test}.txt``. Microsoft distributes it as a RAR
  archive only, so it is not downloaded: extract it and put the folder at
  ``<data_home>/letor/<name>/`` (or pass ``data_home``).
- partitions (MQ2008: ``S1..S5``; OHSUMED: the five ``FoldK/test.txt``, which
  are disjoint and together the whole set): folds are built from them as the
  LETOR readme says; the files are fetched from a public mirror, each checked
  against the md5 of a byte-identical copy we verified.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from ._fetch import _fetch_file, get_data_home
from ._svmlight import load_svmlight

if TYPE_CHECKING:
    from typing import Literal

    from scipy.sparse import csr_matrix

    from .._typing import FloatArray, IntArray, StrPath

__all__ = ["LETOR_DATASETS", "fetch_letor", "letor_fold_parts"]

_META = "https://raw.githubusercontent.com/meta-toolkit/meta/"

#: name -> layout, parts (partition layouts), mirror, md5 of each part, n_features, note
LETOR_DATASETS = {
    "TD2003": {"layout": "folds", "n_features": None, "papers": "donmez-carbonell",
               "note": "LETOR 3.0 Gov (TREC 2003 topic distillation), 50 queries, binary "
                       "labels; extract Gov.rar to <data_home>/letor/TD2003/Fold1..5"},
    "TD2004": {"layout": "folds", "n_features": None, "papers": "donmez-carbonell",
               "note": "LETOR 3.0 Gov (TREC 2004 topic distillation), 75 queries, binary "
                       "labels; extract Gov.rar to <data_home>/letor/TD2004/Fold1..5"},
    "MQ2008": {"layout": "letor4", "n_features": 46, "papers": "",
               "base_url": _META + "eab9748c3c40da28619f043c99d030e1ca66401d/data/",
               "parts": [f"MQ2008/S{k}.txt" for k in range(1, 6)],
               "md5": ["3282f8739013bee5b50c34ceb61aa709", "d447dfb2937a3b82b3d1ea8efa226629",
                       "68b806b1eae269114bda65a31aef5fbb", "7172efffc68068b40150b369880339b8",
                       "3e12d60702e36c0e2813c815fc38ff91"],
               "note": "LETOR 4.0, 784 queries, labels 0/1/2"},
    "OHSUMED": {"layout": "letor3", "n_features": 45, "papers": "",
                "base_url": _META + "ca344dfe6a7bace9b818a6ad4f764c1ad581cf99/data/",
                "parts": [f"OHSUMED/QueryLevelNorm/Fold{k}/test.txt" for k in range(1, 6)],
                "md5": ["1f34a5be20685bd20bd3159c281330d4", "8c0deaf258ddf8c660fda8dd7b0adf15",
                        "55d6c656bf0f0c24e6ef5808e98c9a5f", "c5d9c1e82d0ee822fec84a9eb5682c26",
                        "beda64a1a60b5369f796ebe93f04e819"],
                "note": "LETOR 3.0 QueryLevelNorm, 106 queries, labels 0/1/2"},
}


def letor_fold_parts(name: str, *, fold: int,
                     subset: Literal["train", "vali", "test"]) -> list[int]:
    """Indices (0-based) of the partitions forming ``subset`` of ``fold`` (1..5).

    LETOR 4.0 (MQ2008, readme): fold k trains on S_k, S_k+1, S_k+2, validates on
    S_k+3 and tests on S_k+4. LETOR 3.0 (OHSUMED): fold k tests on partition k,
    validates on partition k-1 and trains on k+1, k+2, k+3 (indices mod 5; e.g.
    Fold1 trains on the Fold2..Fold4 test files and validates on Fold5's).

    Parameters
    ----------
    name : {"MQ2008", "OHSUMED"}
        A partition-layout data set of :data:`LETOR_DATASETS` (the ``"folds"``
        layout of TD2003 / TD2004 raises a ValueError).
    fold : int in 1..5
    subset : {"train", "vali", "test"}

    Returns
    -------
    parts : list of int
        Sorted 0-based indices into the data set's five partitions
        (``LETOR_DATASETS[name]["parts"]``).

    Examples
    --------
    >>> from birank.datasets import letor_fold_parts
    >>> letor_fold_parts("MQ2008", fold=1, subset="train")
    [0, 1, 2]
    >>> letor_fold_parts("MQ2008", fold=2, subset="test")
    [0]
    >>> letor_fold_parts("OHSUMED", fold=1, subset="train")
    [1, 2, 3]
    >>> letor_fold_parts("OHSUMED", fold=5, subset="vali")
    [3]
    """
    info = _info(name)
    _check_fold(fold, subset)
    k = fold - 1
    if info["layout"] == "letor4":
        offsets = {"train": (0, 1, 2), "vali": (3,), "test": (4,)}[subset]
    elif info["layout"] == "letor3":
        offsets = {"train": (1, 2, 3), "vali": (4,), "test": (0,)}[subset]
    else:
        raise ValueError(f"LETOR dataset {name!r} comes as folds, not partitions.")
    return sorted((k + o) % 5 for o in offsets)


def _info(name):
    if name not in LETOR_DATASETS:
        raise ValueError(f"unknown LETOR dataset {name!r}; known: "
                         f"{', '.join(sorted(LETOR_DATASETS))}.")
    return LETOR_DATASETS[name]


def _check_fold(fold, subset):
    if isinstance(fold, bool) or not isinstance(fold, (int, np.integer)) or not 1 <= fold <= 5:
        raise ValueError(f"fold must be an int in 1..5; got {fold!r}.")
    if subset not in ("train", "vali", "test"):
        raise ValueError(f"subset must be 'train', 'vali' or 'test'; got {subset!r}.")


def fetch_letor(name: str, *, fold: int = 1,
                subset: Literal["train", "vali", "test"] = "train",
                data_home: StrPath | None = None, base_url: str | None = None,
                download_if_missing: bool = True, verbose: bool = False,
                ) -> tuple[csr_matrix, FloatArray, IntArray]:
    """Load ``subset`` of ``fold`` of a LETOR data set, with query ids.

    Parameters
    ----------
    name : {"TD2003", "TD2004", "MQ2008", "OHSUMED"}
        See :data:`LETOR_DATASETS`.
    fold : int in 1..5, default=1
    subset : {"train", "vali", "test"}, default="train"
    data_home : str, default=None
        Cache folder (default ``$BIRANK_DATA`` or ``~/.cache/birank``); LETOR
        files live in ``<data_home>/letor``. TD2003/TD2004 must be extracted to
        ``<data_home>/letor/<name>/Fold<k>/<subset>.txt`` by hand.
    base_url : str, default=None
        Mirror for the partition files (default: the meta-toolkit repository
        at a fixed commit); every file is checked against its known md5.
    download_if_missing : bool, default=True
    verbose : bool, default=False

    Returns
    -------
    X : csr_matrix of float64
    y : ndarray of float64 (relevance labels as published)
    qid : ndarray of int64

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.datasets import fetch_letor
    >>> home = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(home, "letor", "TD2003", "Fold1"))
    >>> with open(os.path.join(home, "letor", "TD2003", "Fold1", "test.txt"), "w") as fh:
    ...     _ = fh.write("1 qid:3 1:0.5 2:1 #docid = G01\\n0 qid:3 1:0.1 2:0 #docid = G02\\n")
    >>> X, y, qid = fetch_letor("TD2003", fold=1, subset="test", data_home=home)
    >>> X.shape, y.tolist(), qid.tolist()
    ((2, 2), [1.0, 0.0], [3, 3])
    """
    info = _info(name)
    _check_fold(fold, subset)
    root = os.path.join(get_data_home(data_home), "letor")
    if info["layout"] == "folds":
        path = os.path.join(root, name, f"Fold{fold}", f"{subset}.txt")
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"{path} not found. {name} is distributed by Microsoft Research as a RAR "
                f"archive (LETOR 3.0, Gov) that birank cannot download; extract it so that "
                f"{os.path.join(root, name, 'Fold1', 'train.txt')} etc. exist.")
        return load_svmlight(path, n_features=info["n_features"], query_id=True)
    base = info["base_url"] if base_url is None else base_url
    parts = []
    for i in letor_fold_parts(name, fold=fold, subset=subset):
        local = _fetch_file(info["parts"][i], root, base, download_if_missing, verbose,
                            known=("md5", info["md5"][i]))
        parts.append(load_svmlight(local, n_features=info["n_features"], query_id=True))
    return (sp.vstack([p[0] for p in parts]).tocsr(), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))
