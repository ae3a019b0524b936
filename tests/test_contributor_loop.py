"""The contributor's loop: a kernel edit never runs stale compiled code (tests/conftest.py)."""

from conftest import STAMP, clear_stale_numba_cache, kernel_sources_hash


def test_stale_numba_cache_is_cleared_when_any_kernel_source_changes(tmp_path):
    src = tmp_path / "_kernels"
    cache = src / "__pycache__"
    cache.mkdir(parents=True)
    (src / "a.py").write_text("def f(): return 1\n")
    (src / "b.py").write_text("def g(): return 2\n")
    for name in ("a.f-1.py311.nbi", "a.f-1.py311.1.nbc", "b.g-1.py311.nbi"):
        (cache / name).write_bytes(b"compiled")
    # no stamp yet: the cache is of unknown origin and goes
    assert clear_stale_numba_cache(src, [cache]) == 3
    assert (cache / STAMP).read_text() == kernel_sources_hash(src)
    (cache / "a.f-1.py311.nbi").write_bytes(b"compiled")  # numba recompiled
    assert clear_stale_numba_cache(src, [cache]) == 0  # sources unchanged: kept
    (src / "b.py").write_text("def g(): return 3\n")  # edit the inlined file only
    assert clear_stale_numba_cache(src, [cache]) == 1  # a's cache goes too
    assert not list(cache.glob("*.nbi"))
