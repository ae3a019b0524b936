"""Where a data set's file is under a data folder: the user's own layout, then the downloads.

The reproductions and benchmarks name each file by its path in their data folder
(``--data-home``): the data set's folder, then the file as published (``a9a/a9a.t``,
``letter/letter.scale``, ``MQ2008/S1.txt``, ``OHSUMED/QueryLevelNorm/Fold1/test.txt``).
The same folder is the cache of ``birank datasets fetch NAME``
(:func:`~birank.datasets.download_libsvm`) and of :func:`~birank.datasets.fetch_letor`,
which keep each file flat under ``libsvm/`` or ``letor/`` by its path on the mirror
(``libsvm/binary__a9a.t``). :func:`find_data_file` looks in both, the user's files first,
so a folder laid out by hand reads exactly as before.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast, overload

from ._fetch import LIBSVM_DATASETS, _cache_file, _fetch_file
from ._letor import LETOR_DATASETS

if TYPE_CHECKING:
    from .._typing import StrPath

__all__ = ["find_data_file"]


class _Download(NamedTuple):
    path: Path
    cache_dir: str
    remote: str
    known: tuple[str, str] | None  # a checksum the catalogue gives (else the cache's own)
    how: str  # the call that downloads it there


def _download(home, rel):
    """Where the downloads keep the file ``rel`` (``NAME/FILE``), or None when no
    catalogue holds that file of that set."""
    name, _, file = rel.replace(os.sep, "/").partition("/")
    if not file or os.path.isabs(rel):
        return None
    info = LIBSVM_DATASETS.get(name)
    if info is not None:
        for part in ("train", "test"):
            remote = info[part]
            # the cache keeps a compressed file (.bz2) as published; it reads as it is
            if remote is not None and remote.rsplit("/", 1)[-1] in (file, file + ".bz2"):
                cache_dir = os.path.join(home, "libsvm")
                how = f"`birank datasets fetch {name} --data-home {shlex.quote(home)}`"
                return _Download(Path(_cache_file(cache_dir, remote)), cache_dir, remote, None,
                                 how)
    letor = cast("dict[str, Any]", LETOR_DATASETS.get(name, {}))  # (values of mixed types)
    parts = letor.get("parts", [])
    if f"{name}/{file}" in parts:
        i = parts.index(f"{name}/{file}")
        cache_dir = os.path.join(home, "letor")
        # each fold tests on another partition: folds 1..5 download all five
        how = (f"`birank.datasets.fetch_letor({name!r}, fold=k, subset='test', "
               f"data_home={home!r})` for k = 1..5")
        return _Download(Path(_cache_file(cache_dir, parts[i])), cache_dir, parts[i],
                         ("md5", letor["md5"][i]), how)
    return None


def _or(items):
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


@overload
def find_data_file(data_home: StrPath, *paths: str, required: Literal[True]) -> Path: ...


@overload
def find_data_file(data_home: StrPath, *paths: str, required: bool = False) -> Path | None: ...


def find_data_file(data_home: StrPath, *paths: str, required: bool = False) -> Path | None:
    """The first file found of ``paths`` (each ``NAME/FILE`` under ``data_home``, or absolute):
    in ``data_home`` itself, in the given order, else the copy downloaded there by
    ``birank datasets fetch NAME`` / :func:`~birank.datasets.fetch_libsvm` or
    :func:`~birank.datasets.fetch_letor` (checked against its checksum).

    Parameters
    ----------
    data_home : str or os.PathLike
        The data folder (``--data-home``).
    *paths : str
        Other names of the same file, in the order they are preferred (e.g.
        ``"mg/mg_scale", "mg/mg"``); a path that is not ``NAME/FILE`` is looked for in
        ``data_home`` only.
    required : bool, default=False
        Raise a FileNotFoundError naming every place looked in (and the command that
        downloads the file) instead of returning None.

    Returns
    -------
    path : pathlib.Path or None
        None when the file is nowhere (and ``required`` is False).

    Raises
    ------
    ValueError
        A downloaded copy that does not match its checksum.
    """
    home = os.path.expanduser(os.fspath(data_home))
    for rel in paths:
        if (Path(home) / rel).is_file():
            return Path(home) / rel
    downloads = [d for d in (_download(home, rel) for rel in paths) if d is not None]
    for d in downloads:
        if d.path.is_file():
            _fetch_file(d.remote, d.cache_dir, "", False, False, d.known)  # its checksum
            return d.path
    if not required:
        return None
    message = f"no {_or([str(Path(home) / rel) for rel in paths])}"
    if downloads:
        message += (f", nor the download {_or([str(d.path) for d in downloads])} of "
                    f"{_or(sorted({d.how for d in downloads}))}")
    raise FileNotFoundError(message)
