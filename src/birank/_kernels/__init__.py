"""Numba kernels only: imports numpy and numba, never scikit-learn or estimators.

Every kernel is compiled with ``cache=True``. Where numba finds no writable
cache location (a read-only install, no writable HOME, a read-only
``NUMBA_CACHE_DIR``: the usual non-root container), numba would raise
``cannot cache function ...: no locator available`` at import; instead the
cache goes to a fresh temporary folder, with one warning; the process that made
the folder removes it when it exits (nothing piles up in the temporary folder).

The command line sets ``BIRANK_COMPILE_NOTICE=1``: the first import of the kernels
in a process then says once, on stderr, that an empty cache means compiling and
where the cache lives. It is said here, on first import, because a command
imports the kernels only when its input needs them (``birank evaluate`` on a
small file never does, and so never pays numba's start-up).

Importing this package also hands the kernels compiled at install to their
dispatchers (:mod:`.ahead`), so that a first run does not compile them.
"""

import atexit
import os
import shutil
import sys
import tempfile
import warnings

from numba.core import config as _config
from numba.core.caching import FunctionCache as _FunctionCache


def _probe():  # a function of this folder: numba locates its cache like every kernel's
    pass


def _locate():
    """The cache folder numba uses for this package's kernels (raises RuntimeError if none)."""
    return _FunctionCache(_probe).cache_path


def _ensure_cache():
    """``(folder, temporary)``: numba's cache folder, or a temporary one made for this process."""
    try:
        return _locate(), False
    except RuntimeError:
        pass
    tmp = tempfile.mkdtemp(prefix="birank-numba-cache-")
    owner = os.getpid()  # a forked child inherits the handler but must not remove the folder
    atexit.register(lambda: os.getpid() == owner and shutil.rmtree(tmp, ignore_errors=True))
    _config.CACHE_DIR = tmp
    os.environ["NUMBA_CACHE_DIR"] = tmp  # worker processes too
    warnings.warn(
        "birank: no writable numba cache folder (read-only install, no writable HOME or "
        f"NUMBA_CACHE_DIR); compiled kernels are cached in {tmp} for this process only. "
        "Set NUMBA_CACHE_DIR to a writable folder to keep them between runs.",
        RuntimeWarning, stacklevel=2)
    return _locate(), True


_CACHE_DIR, _CACHE_IS_TEMPORARY = _ensure_cache()

# the kernels compiled at install (ahead.py): handed to their dispatchers here, once
from .ahead import install as _install_ahead  # noqa: E402

_AHEAD = _install_ahead()


def _compile_notice():
    """One line on stderr when the command line asked for it and the cache holds no kernel."""
    if os.environ.get("BIRANK_COMPILE_NOTICE") != "1":
        return
    os.environ["BIRANK_COMPILE_NOTICE"] = "0"  # once per run, worker processes included
    try:
        cached = any(f.endswith(".nbi") for f in os.listdir(_CACHE_DIR))
    except OSError:
        cached = False
    if _CACHE_IS_TEMPORARY:  # (the warning above said why)
        print("birank: compiling numba kernels (about a minute); with no writable cache "
              "folder every run compiles again: set NUMBA_CACHE_DIR", file=sys.stderr)
    elif not cached and _AHEAD:
        print("birank: first run: compiling numba kernels this command needs beyond those "
              f"compiled at install (seconds each, once); cached in {_CACHE_DIR}",
              file=sys.stderr)
    elif not cached:
        print(f"birank: first run: compiling numba kernels (about a minute, once); the "
              f"compiled code is cached in {_CACHE_DIR}", file=sys.stderr)


_compile_notice()


def cache_dir():
    """Where the compiled kernels are cached."""
    return _CACHE_DIR


def cache_is_temporary():
    """Whether the cache lives only as long as this process (no writable folder was found)."""
    return _CACHE_IS_TEMPORARY
