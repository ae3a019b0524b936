import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

KERNELS = Path(__file__).resolve().parent.parent / "src" / "birank" / "_kernels"
#: the hash of the kernel sources the on-disk numba cache was compiled from
STAMP = ".birank-kernel-sources.sha256"


def kernel_sources_hash(folder=KERNELS):
    """sha256 over every ``_kernels/*.py`` (names and contents, in name order): the digest
    the kernels compiled ahead of time are checked against."""
    from birank._kernels.ahead import source_digest

    return source_digest(folder)


def clear_stale_numba_cache(folder=KERNELS, cache_dirs=None):
    """Delete the numba cache files of the kernels when any kernel source changed.

    Numba keys a cached kernel on its own file only, so a kernel that inlines a
    primitive of another file (``sparse_rows.row_dot_w`` ...) would keep running
    the old primitive after that file is edited. One hash over all kernel sources
    is stored next to the cache; when it differs, every ``*.nbi`` / ``*.nbc`` of
    the kernels is removed and numba recompiles. Returns the number removed.
    """
    digest = kernel_sources_hash(folder)
    if cache_dirs is None:
        cache_dirs = [folder / "__pycache__"]
        if os.environ.get("NUMBA_CACHE_DIR"):
            root = Path(os.environ["NUMBA_CACHE_DIR"])
            cache_dirs += [p for p in root.rglob("_kernels") if p.is_dir()]
    removed = 0
    for cache in cache_dirs:
        stamp = cache / STAMP
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        for path in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            try:
                path.unlink()
                removed += 1
            except OSError:
                pass
        try:
            cache.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest)
        except OSError:  # a read-only cache: numba does not write there either
            pass
    return removed


def pytest_configure(config):
    # before any kernel runs: never run kernels compiled from older sources
    if not hasattr(config, "workerinput"):  # once, in the controller (pytest-xdist)
        clear_stale_numba_cache()


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def dense_and_csr(X):
    """Both layouts of X, for tests that run every case on dense and sparse input."""
    return [np.asarray(X), sp.csr_matrix(X)]


@pytest.fixture(params=["dense", "csr"])
def layout(request):
    """Parametrize a test over dense and CSR input: ``to_layout(X)`` converts."""
    if request.param == "dense":
        return lambda X: np.asarray(X.toarray() if sp.issparse(X) else X)
    return lambda X: sp.csr_matrix(X)
