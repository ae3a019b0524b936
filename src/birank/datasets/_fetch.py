"""Download LIBSVM datasets into a local cache (pooch), with checksums and atomic writes.

Integrity: a file whose md5 we know (because a byte-identical copy of the
LIBSVM original was checked) is verified against it. For every other file we
use *trust on first use*: at the first download its sha256 is written next to
it (``<file>.sha256``) and every later load, or re-download, is verified
against that value. We never invent a checksum.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from typing import TYPE_CHECKING

from ._svmlight import load_svmlight

if TYPE_CHECKING:
    from typing import Literal

    from scipy.sparse import csr_matrix

    from .._typing import FloatArray, StrPath

__all__ = ["LIBSVM_DATASETS", "fetch_libsvm", "download_libsvm", "get_data_home"]

DEFAULT_BASE_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"

# md5 of LIBSVM originals, recorded only where the project's data collection holds a
# byte-identical copy whose md5 an independent download list confirms.
_KNOWN_MD5 = {
    "binary/a9a": "fb3596510d780aaf76a06dc721d49662",
    "binary/w1a": "3d49d7d2ab90609d811d0af4c14642d9",
    "binary/ionosphere_scale": "5dae06d1367d5b4fe7d96865a5b16bb7",
}


def _d(kind, train, test=None, n_features=None, papers="", note=""):
    return {"kind": kind, "train": train, "test": test, "n_features": n_features,
            "papers": papers, "note": note}


# name -> remote files (relative to the base URL), number of features, papers using it.
LIBSVM_DATASETS = {
    # binary
    "a9a": _d("binary", "binary/a9a", "binary/a9a.t", 123, "shen-lin, gultekin-paisley"),
    "w1a": _d("binary", "binary/w1a", "binary/w1a.t", 300, ""),
    "w8a": _d("binary", "binary/w8a", "binary/w8a.t", 300, ""),
    "ijcnn1": _d("binary", "binary/ijcnn1.bz2", "binary/ijcnn1.t.bz2", 22, "shen-lin"),
    "covtype.binary": _d("binary", "binary/covtype.libsvm.binary.bz2", None, 54,
                         "shen-lin, khalid-ray-chitsaz"),
    "url": _d("binary", "binary/url_combined.bz2", None, 3231961, "shen-lin"),
    "rcv1.binary": _d("binary", "binary/rcv1_train.binary.bz2",
                      "binary/rcv1_test.binary.bz2", 47236, "shen-lin, khalid-ray-chitsaz"),
    "news20.binary": _d("binary", "binary/news20.binary.bz2", None, 1355191,
                        "shen-lin, khalid-ray-chitsaz"),
    "real-sim": _d("binary", "binary/real-sim.bz2", None, 20958,
                   "shen-lin, khalid-ray-chitsaz"),
    "svmguide3": _d("binary", "binary/svmguide3", "binary/svmguide3.t", 22,
                    "gultekin-paisley, khalid-ray-chitsaz"),
    "german.numer": _d("binary", "binary/german.numer", None, 24,
                       "gultekin-paisley, khalid-ray-chitsaz"),
    "heart": _d("binary", "binary/heart_scale", None, 13, "khalid-ray-chitsaz"),
    "ionosphere": _d("binary", "binary/ionosphere_scale", None, 34, "khalid-ray-chitsaz"),
    "diabetes": _d("binary", "binary/diabetes", None, 8, "khalid-ray-chitsaz"),
    "australian": _d("binary", "binary/australian", None, 14, "khalid-ray-chitsaz"),
    "cod-rna": _d("binary", "binary/cod-rna", "binary/cod-rna.t", 8, "khalid-ray-chitsaz"),
    # multiclass (the papers rank one class against the rest)
    "letter": _d("multiclass", "multiclass/letter.scale", "multiclass/letter.scale.t", 16,
                 "shen-lin"),
    "protein": _d("multiclass", "multiclass/protein.bz2", "multiclass/protein.t.bz2", 357,
                  "shen-lin"),
    "mnist": _d("multiclass", "multiclass/mnist.bz2", "multiclass/mnist.t.bz2", 780,
                "shen-lin"),
    "shuttle": _d("multiclass", "multiclass/shuttle.scale", "multiclass/shuttle.scale.t", 9,
                  "shen-lin"),
    "connect-4": _d("multiclass", "multiclass/connect-4", None, 126, "shen-lin"),
    "acoustic": _d("multiclass", "multiclass/vehicle/acoustic.bz2",
                   "multiclass/vehicle/acoustic.t.bz2", 50, "shen-lin, khalid-ray-chitsaz"),
    "glass": _d("multiclass", "multiclass/glass.scale", None, 9, "khalid-ray-chitsaz"),
    "segment": _d("multiclass", "multiclass/segment.scale", None, 19, "khalid-ray-chitsaz"),
    "vehicle": _d("multiclass", "multiclass/vehicle.scale", None, 18, "khalid-ray-chitsaz"),
    "svmguide4": _d("multiclass", "multiclass/svmguide4", "multiclass/svmguide4.t", 10,
                    "khalid-ray-chitsaz"),
    "sector": _d("multiclass", "multiclass/sector/sector.scale.bz2",
                 "multiclass/sector/sector.t.scale.bz2", 55197, "khalid-ray-chitsaz"),
    # regression (real-valued labels)
    "housing": _d("regression", "regression/housing_scale", None, 13, "lin-jan-lin"),
    "bodyfat": _d("regression", "regression/bodyfat", None, 14, "lin-jan-lin"),
    "mpg": _d("regression", "regression/mpg", None, 7, "lin-jan-lin"),
    "mg": _d("regression", "regression/mg", None, 6, "lin-jan-lin"),
    "space_ga": _d("regression", "regression/space_ga", None, 6, "lin-jan-lin"),
}

# Used by the papers but not distributed by LIBSVM (UCI or elsewhere; not fetchable here):
NOT_ON_LIBSVM = {
    "bank": "UCI Bank Marketing (shen-lin)",
    "spambase": "UCI Spambase (khalid-ray-chitsaz)",
    "magic04": "UCI MAGIC gamma telescope (khalid-ray-chitsaz)",
    "farm-ads": "UCI Farm Ads (khalid-ray-chitsaz)",
    "Reuters": "Deng Cai's TextData page (khalid-ray-chitsaz)",
    "TD2003/TD2004": "LETOR 3.0 (donmez-carbonell; see birank.datasets.fetch_letor)",
}


def get_data_home(data_home: StrPath | None = None) -> str:
    """The cache folder: ``data_home``, else ``$BIRANK_DATA``, else ``~/.cache/birank``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder to use; None reads ``$BIRANK_DATA`` (when set and not empty),
        else takes ``~/.cache/birank``.

    Returns
    -------
    path : str
        That folder as an absolute path, ``~`` expanded. Nothing is created.

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.datasets import get_data_home
    >>> home = tempfile.mkdtemp()
    >>> get_data_home(home) == os.path.abspath(home)
    True
    >>> get_data_home("data") == os.path.join(os.getcwd(), "data")  # a relative folder
    True
    """
    if data_home is None:
        data_home = os.environ.get("BIRANK_DATA") or os.path.join(
            os.path.expanduser("~"), ".cache", "birank"
        )
    return os.path.abspath(os.path.expanduser(os.fspath(data_home)))


def _file_hash(path, algorithm):
    h = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _write_atomic(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


@contextlib.contextmanager
def _quiet_pooch():
    """pooch's log lines off ("Downloading data from ...", and its advice to pass the
    hash as ``known_hash``: birank keeps the hash itself); ``verbose`` progress is
    birank's own (:class:`_DownloadProgress`)."""
    from .._extras import require

    pooch = require("pooch", "Downloading data sets")

    logger = pooch.get_logger()
    old = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(old)


class _DownloadProgress:
    """pooch's custom progress bar (``total``, ``update``, ``reset``, ``close``) drawn by
    birank's own :class:`~birank._progress.Progress` on stderr: bytes (no tqdm)."""

    def __init__(self, label):
        from .._progress import Progress, byte_count

        self.total, self.n, self._done = 0, 0, False
        self._line = Progress(label, count=byte_count)

    def update(self, n):
        if self._done:  # (pooch's closing reset + update(total): drawn already)
            return
        self.n += n
        if self.total:  # (pooch counts whole chunks: the last one may pass the size)
            self._done = self.n >= self.total
            self._line(min(self.n, self.total), self.total)
        elif n:  # the size unknown (no Content-Length)
            self._line(self.n, None)

    def reset(self):
        if not self._done:
            self.n = 0

    def close(self):
        self._line.close()


def _expected_hash(remote, local):
    """(algorithm, hexdigest) to check ``local`` against, or None before first use."""
    if remote in _KNOWN_MD5:
        return "md5", _KNOWN_MD5[remote]
    sidecar = local + ".sha256"
    if os.path.exists(sidecar):
        with open(sidecar, "rb") as fh:
            words = fh.read(4096).split()
        digest = words[0].decode("ascii", "replace").lower() if words else ""
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(
                f"checksum file {sidecar} is corrupted (it should start with the sha256 of "
                f"{os.path.basename(local)}, 64 hexadecimal digits). Delete it and the data "
                "file to download them again.")
        return "sha256", digest
    return None


def _make_cache_dir(cache_dir):
    """Create the cache folder, or say why not and how to choose another."""
    advice = ("give data_home=... (command line: --data-home) or set BIRANK_DATA to a "
              "writable folder")
    try:
        os.makedirs(cache_dir, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise NotADirectoryError(f"cannot use {cache_dir} as the data cache: a file is in "
                                 f"the way; {advice}.") from None
    except PermissionError:
        raise PermissionError(f"cannot create the data cache {cache_dir}: permission "
                              f"denied; {advice}.") from None
    if not os.access(cache_dir, os.W_OK):
        raise PermissionError(f"the data cache {cache_dir} is not writable; {advice}.")


def _retrieve(pooch, requests, url, known, local, cache_dir, verbose):
    """Download ``url`` to ``local`` through pooch (checked against ``known``), its errors
    in one line each."""
    bar = _DownloadProgress(f"downloading {url.rsplit('/', 1)[-1]}") if verbose else None
    try:
        with _quiet_pooch():
            pooch.retrieve(
                url, known_hash=known, fname=os.path.basename(local), path=cache_dir,
                downloader=pooch.HTTPDownloader(progressbar=bar or False, timeout=60,
                                                chunk_size=1 << 16),
            )
    except ValueError as exc:  # pooch: hash mismatch; the temporary file is removed
        raise ValueError(
            f"checksum mismatch for {url}: {exc} Nothing was stored in {cache_dir}."
        ) from None
    except requests.exceptions.RequestException as exc:
        raise ConnectionError(
            f"download of {url} failed ({type(exc).__name__}: {exc}); "
            f"no partial file was kept in {cache_dir}."
        ) from None
    finally:
        if bar is not None:  # (a failed download: its line ended before the error)
            bar.close()


def _cache_file(cache_dir, remote):
    """Where the cache keeps ``remote`` (a path on the mirror): one flat folder, ``/`` as
    ``__`` (``binary/a9a.t`` -> ``binary__a9a.t``)."""
    return os.path.join(cache_dir, remote.replace("/", "__"))


def _fetch_file(remote, cache_dir, base_url, download_if_missing, verbose, known=None):
    """Path of ``remote`` in ``cache_dir``, downloaded (checked) if missing.

    ``known``: an ``(algorithm, hexdigest)`` to check against instead of
    :data:`_KNOWN_MD5` / trust on first use (other catalogues, e.g. LETOR).
    """
    local = _cache_file(cache_dir, remote)
    expected = known or _expected_hash(remote, local)
    if os.path.exists(local):
        if expected is not None:
            got = _file_hash(local, expected[0])
            if got != expected[1]:
                raise ValueError(
                    f"cached file {local} does not match its {expected[0]} checksum "
                    f"(expected {expected[1]}, got {got}); it was modified or corrupted. "
                    + ("Delete it to download it again." if known is not None else
                       "Delete it, or call download_libsvm(..., refresh=True) (command line: "
                       "`birank datasets fetch NAME --refresh`), to download it again.")
                )
        return local
    if not download_if_missing:
        raise FileNotFoundError(f"{local} is not in the cache and download_if_missing=False.")
    from .._extras import require  # only a download needs pooch: cached files read without it

    pooch = require("pooch", f"Downloading {remote}")
    requests = require("requests", f"Downloading {remote}")
    url = base_url.rstrip("/") + "/" + remote
    known = None if expected is None else f"{expected[0]}:{expected[1]}"
    created = not os.path.isdir(cache_dir)
    _make_cache_dir(cache_dir)
    try:
        _retrieve(pooch, requests, url, known, local, cache_dir, verbose)
    except BaseException:
        if created and not os.listdir(cache_dir):  # a failed first download leaves no folder
            os.rmdir(cache_dir)
        raise
    if expected is None:  # trust on first use
        _write_atomic(local + ".sha256", f"{_file_hash(local, 'sha256')}  "
                      f"{os.path.basename(local)}\n")
    return local


def _resolve(name):
    if name not in LIBSVM_DATASETS:
        extra = f" {name} is {NOT_ON_LIBSVM[name]}, not a LIBSVM file." if name in NOT_ON_LIBSVM \
            else ""
        raise ValueError(
            f"unknown LIBSVM dataset {name!r}.{extra} Known: {', '.join(sorted(LIBSVM_DATASETS))}."
        )
    return LIBSVM_DATASETS[name]


def download_libsvm(name: str, *, data_home: StrPath | None = None, base_url: str | None = None,
                    subset: Literal["all", "train", "test"] = "all", refresh: bool = False,
                    verbose: bool = False) -> dict[str, str]:
    """Download the file(s) of LIBSVM dataset ``name`` into the cache; return their paths.

    Parameters
    ----------
    name : str
        A key of :data:`LIBSVM_DATASETS`.
    data_home : str, default=None
        Cache folder (default ``$BIRANK_DATA`` or ``~/.cache/birank``); files
        go to ``<data_home>/libsvm``.
    base_url : str, default=None
        Mirror of the LIBSVM dataset page (default its official address).
    subset : {"all", "train", "test"}
    refresh : bool, default=False
        Download again; the cached file(s) are replaced once the new download
        passed its check (a failed download leaves them as they were).
    verbose : bool, default=False
        Show the progress of a download (bytes) on stderr.

    Returns
    -------
    paths : dict
        ``{"train": path, "test": path or absent}``.

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.datasets import LIBSVM_DATASETS, download_libsvm, get_data_home
    >>> LIBSVM_DATASETS["heart"]["train"], LIBSVM_DATASETS["heart"]["test"]
    ('binary/heart_scale', None)
    >>> home = tempfile.mkdtemp()
    >>> download_libsvm("heart", data_home=home)  # doctest: +SKIP
    {'train': '.../libsvm/binary__heart_scale'}
    >>> os.path.join(get_data_home(home), "libsvm") == os.path.join(home, "libsvm")
    True
    """
    info = _resolve(name)
    if subset not in ("all", "train", "test"):
        raise ValueError(f"subset must be 'all', 'train' or 'test'; got {subset!r}.")
    if subset == "test" and info["test"] is None:
        raise ValueError(f"LIBSVM dataset {name!r} has no test file.")
    cache_dir = os.path.join(get_data_home(data_home), "libsvm")
    base_url = DEFAULT_BASE_URL if base_url is None else base_url
    out = {}
    for part in ("train", "test"):
        remote = info[part]
        if remote is None or subset not in ("all", part):
            continue
        local = _cache_file(cache_dir, remote)
        if not refresh:
            out[part] = _fetch_file(remote, cache_dir, base_url, True, verbose)
            continue
        # the cached copy is set aside, not deleted, until the new download passed its
        # check: a failed download (no network, a bad mirror) leaves the cache as it was
        kept = []
        for p in (local, local + ".sha256"):
            if os.path.exists(p):
                os.replace(p, p + ".before-refresh")
                kept.append(p)
        try:
            out[part] = _fetch_file(remote, cache_dir, base_url, True, verbose)
        except BaseException:
            for p in kept:
                os.replace(p + ".before-refresh", p)
            raise
        for p in kept:
            os.remove(p + ".before-refresh")
    return out


def fetch_libsvm(name: str, *, data_home: StrPath | None = None, base_url: str | None = None,
                 subset: Literal["train", "test"] = "train", download_if_missing: bool = True,
                 verbose: bool = False) -> tuple[csr_matrix, FloatArray]:
    """Load a LIBSVM dataset, downloading it into the local cache on first use.

    Covers every LIBSVM dataset the five papers behind birank use (see
    :data:`LIBSVM_DATASETS`; ``NOT_ON_LIBSVM`` lists the ones that live on UCI
    or elsewhere). Files are kept as published (bzip2 stays compressed and is
    read directly). Downloads go to a temporary file in the cache folder and
    are moved into place only after the checksum passed (pooch), so an
    interrupted or corrupted transfer leaves nothing behind.

    Checksums: the md5 of a9a, w1a and ionosphere_scale is known and checked;
    other files are trusted on first use -- their sha256 is stored next to the
    file at the first download (``<file>.sha256``) and verified on every
    later load. A cached file that fails its check is never replaced
    silently: you get an error and decide (``refresh=True`` in
    :func:`download_libsvm` or delete the file).

    Parameters
    ----------
    name : str
        E.g. ``"a9a"``, ``"covtype.binary"``, ``"letter"``, ``"housing"``.
    data_home : str, default=None
        Cache folder; default ``$BIRANK_DATA`` or ``~/.cache/birank``.
    base_url : str, default=None
        Mirror of ``https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/``.
    subset : {"train", "test"}, default="train"
    download_if_missing : bool, default=True
    verbose : bool, default=False
        Show the progress of a download (bytes) on stderr.

    Returns
    -------
    X : csr_matrix of float64
        At least the published number of columns (so train and test agree);
        more if the file holds a larger index.
    y : ndarray of float64, labels as in the file

    Examples
    --------
    >>> import tempfile
    >>> from birank.datasets import LIBSVM_DATASETS, fetch_libsvm
    >>> LIBSVM_DATASETS["a9a"]["n_features"], LIBSVM_DATASETS["a9a"]["test"]
    (123, 'binary/a9a.t')
    >>> home = tempfile.mkdtemp()
    >>> fetch_libsvm("a9a", data_home=home)[0].shape  # doctest: +SKIP
    (32561, 123)
    >>> fetch_libsvm("a9a", data_home=home, download_if_missing=False)  # an empty cache
    Traceback (most recent call last):
    ...
    FileNotFoundError: ...binary__a9a is not in the cache and download_if_missing=False.
    """
    if subset not in ("train", "test"):
        raise ValueError(f"subset must be 'train' or 'test'; got {subset!r}.")
    info = _resolve(name)
    if info[subset] is None:
        raise ValueError(f"LIBSVM dataset {name!r} has no {subset} file.")
    cache_dir = os.path.join(get_data_home(data_home), "libsvm")
    base_url = DEFAULT_BASE_URL if base_url is None else base_url
    path = _fetch_file(info[subset], cache_dir, base_url, download_if_missing, verbose)
    X, y = load_svmlight(path)
    # pad to the published width so train and test files agree (never truncate)
    if info["n_features"] is not None and X.shape[1] < info["n_features"]:
        X.resize((X.shape[0], info["n_features"]))
    return X, y
