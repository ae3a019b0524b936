"""The kernels compiled at install (birank._kernels.ahead): used for exactly their types,
the same bits as numba's just-in-time code, the GIL released where the kernel says nogil,
and never used when built from other sources, for another CPU or by another numba."""

import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from birank._kernels import ahead, labels

#: records each birank kernel that a Python call made numba compile (or load from its
#: cache): a call the compiled-ahead entries did not take
RECORD = """
import numba.core.dispatcher as _d
_compiled = []
_plain = _d.Dispatcher._compile_for_args
def _record(self, *args, **kws):
    if self.py_func.__module__.startswith("birank."):
        _compiled.append(f"{self.py_func.__module__}.{self.py_func.__name__}")
    return _plain(self, *args, **kws)
_d.Dispatcher._compile_for_args = _record
"""

#: the README's three models on the bundled a9a; saves the status, the models' numbers
#: and the kernels compiled from Python
FIT = RECORD + """
import json, sys
import numpy as np
from birank import RankSVM, ActiveRankSVM, BBR
from birank.datasets import load_a9a
from birank._kernels import ahead
X, y = load_a9a(subset="train")
models = [RankSVM(C=1.0), ActiveRankSVM(budget=2000, random_state=0), BBR(radius=1.0)]
out = {"status": ahead.status(), "models": []}
for m in models:
    m.fit(X, y)
    out["models"].append([m.coef_.ravel().tolist(), float(np.ravel(m.intercept_)[0])])
out["compiled"] = _compiled
np.save(sys.argv[1], np.array(json.dumps(out)))
"""

#: every public estimator with its defaults on float64 CSR and dense rows of a9a
EVERY_ESTIMATOR = RECORD + """
import birank
from birank.datasets import load_a9a
X, y = load_a9a(subset="train")
X, y = X[:1500], y[:1500]
for name in birank.__all__:
    for rows in (X, X.toarray()):
        model = getattr(birank, name)().fit(rows, y)
        model.decision_function(rows)
        for method in ("predict", "predict_proba"):  # (a ranker of graded labels has neither)
            if hasattr(model, method):
                getattr(model, method)(rows)
print(sorted(set(_compiled)))
"""


def _fit(tmp_path, ahead_on):
    out = tmp_path / f"fit_{int(ahead_on)}.npy"
    env = dict(os.environ, BIRANK_AHEAD="1" if ahead_on else "0")
    r = subprocess.run([sys.executable, "-c", FIT, str(out)], env=env, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    return json.loads(str(np.load(out)))


def test_module_is_built_and_loaded():
    """The install (or `python -m birank._kernels`) built it for these sources and this CPU."""
    assert ahead.status().startswith("loaded"), ahead.status()


@pytest.mark.slow
def test_readme_models_same_bits_and_nothing_compiled(tmp_path):
    """The README's models from the compiled-ahead kernels equal, bit for bit, the ones
    from numba's just-in-time kernels, and none of those kernels was compiled from Python."""
    on = _fit(tmp_path, True)
    off = _fit(tmp_path, False)
    assert on["status"].startswith("loaded") and off["status"].startswith("off")
    assert on["compiled"] == [], on["compiled"]
    assert "birank._kernels.threshold_sweep.lower_ranks" in off["compiled"]
    assert on["models"] == off["models"]


@pytest.mark.slow
def test_every_estimators_default_fit_compiles_nothing():
    """Each public estimator's default fit, scores, predictions and probabilities (where it
    has them) on float64 data, dense and CSR, call only kernels compiled at install (a kernel whose
    arguments change needs its entry in ahead.ENTRIES changed too)."""
    r = subprocess.run([sys.executable, "-c", EVERY_ESTIMATOR], capture_output=True, text=True,
                       timeout=1800)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[-2] == "[]", r.stdout[-2000:]


def test_other_types_take_the_just_in_time_path():
    """float32, read-only and strided arrays are not the compiled signature: numba
    compiles (or loads) its own, and the answer is right (no reinterpretation)."""
    x = np.array([3.0, 1.0, 3.0, 1.0])
    read_only = x.copy()
    read_only.setflags(write=False)
    for arr in (x.astype(np.float32), read_only, x.repeat(2)[::2]):
        assert labels.two_values(arr) == (2, 1.0, 3.0)


def test_nogil_kernel_releases_the_gil():
    """The compiled csr_matvec_block (nogil=True) lets another Python thread run while it
    works: some time stamp of the main thread falls strictly inside the call."""
    matvec = ahead.compiled("blocked_products", "csr_matvec_block")
    rng = np.random.default_rng(0)
    n, d, per_row = 400_000, 1000, 40
    indptr = np.arange(0, n * per_row + 1, per_row, dtype=np.int32)
    indices = rng.integers(0, d, n * per_row).astype(np.int32)
    data = rng.random(n * per_row)
    v, out = rng.random(d), np.empty(n)
    call = [0.0, 0.0]

    def work():
        call[0] = time.perf_counter()
        for _ in range(5):
            matvec(data, indices, indptr, v, out, 0, n)
        call[1] = time.perf_counter()

    t = threading.Thread(target=work)
    stamps = []
    t.start()
    while t.is_alive():
        stamps.append(time.perf_counter())
    t.join()
    assert any(call[0] < s < call[1] for s in stamps)
    expect = np.add.reduceat(data * v[indices], indptr[:-1])
    np.testing.assert_allclose(out, expect, rtol=1e-12)


@pytest.mark.parametrize("what", ["digest", "cpu", "numba", "off"])
def test_not_used_when_built_from_other_sources_or_for_another_cpu(monkeypatch, what):
    if what == "digest":
        monkeypatch.setattr(ahead, "source_digest", lambda: "0" * 64)
    elif what == "cpu":
        monkeypatch.setattr(ahead, "host_cpu", lambda: {"cpu_name": "other", "cpu_features": ""})
    elif what == "numba":  # an upgraded or downgraded numba
        import numba

        monkeypatch.setattr(numba, "__version__", "0.0.0")
    else:
        monkeypatch.setenv("BIRANK_AHEAD", "0")
    try:
        assert ahead.install() == 0
        assert {"digest": "stale", "cpu": "another CPU", "numba": "built by numba",
                "off": "BIRANK_AHEAD=0"}[what] in ahead.status()
    finally:
        monkeypatch.undo()
        assert ahead.install() == len(ahead.ENTRIES)


def test_manifest_names_every_entry(tmp_path):
    path = os.path.join(os.path.dirname(ahead.__file__), ahead.MANIFEST)
    with open(path) as f:
        built = json.load(f)
    listed = [sym for part in built["parts"] for sym in part]
    assert sorted(listed) == sorted(ahead._symbols())
    assert len(set(listed)) == len(ahead.ENTRIES)
    # one entry per kernel and argument types
    assert len({(m, n, tuple(sig.args)) for m, n, sig in ahead.ENTRIES}) == len(ahead.ENTRIES)
