"""Time to first result: the README example with an empty numba cache, beside warm.

Each run is a fresh ``python`` subprocess executing the README's ten-line
example (RankSVM, ActiveRankSVM and BBR on a9a, then roc_auc of each). The
cold runs point ``NUMBA_CACHE_DIR`` at a new empty temporary directory; the
warm runs reuse one directory filled by a first run. Each is run as installed
(the kernels the example calls were compiled at install:
``birank._kernels.ahead``) and with ``BIRANK_AHEAD=0`` (every kernel compiled
just in time on first use, as before they were), alternating; medians are
printed with their ratios. Target: under 6 s cold on a 2-core machine, warm
time unchanged.

``--compiled`` also lists, for one cold run, the kernels compiled and the
seconds each took (numba's compiler events), largest first.

``--estimators`` times each public estimator's first fit instead (default
parameters, the first 5,000 rows of the bundled a9a, CSR): a fresh process with
an empty cache, as installed and with ``BIRANK_AHEAD=0``, beside a warm one.
The time is the fit's alone (imports and data loading excluded).

``--build`` also times what the install adds: compiling the module of kernels
(``birank._kernels.ahead.build``, one process per core) into a temporary
directory, in a fresh process, once; and prints after how many cold runs of the
README example it has paid for itself (its CPU seconds over the CPU seconds a
cold run saves). pip's isolated build environment adds to it (a fresh
``pip install``'s own time is not measured here).

Usage::

    python benchmarks/bench_cold_start.py [--repeat 3] [--compiled] [--build]
    python benchmarks/bench_cold_start.py --estimators [--repeat 1]
    # against an older version under the same load (its src/ from git archive)
    mkdir -p OLD && git archive HEAD~1 src | tar -x -C OLD
    python benchmarks/bench_cold_start.py --baseline-src OLD/src
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

EXAMPLE = """
from birank import RankSVM, ActiveRankSVM, BBR
from birank.datasets import load_a9a
from birank.metrics import roc_auc

X, y = load_a9a(subset="train")
Xt, yt = load_a9a(subset="test")
exact = RankSVM(C=1.0).fit(X, y)
active = ActiveRankSVM(budget=8000, random_state=0).fit(X, y)
moments = BBR(radius=1.0).fit(X, y)
for model in (exact, active, moments):
    print(type(model).__name__, roc_auc(yt, model.decision_function(Xt)))
"""

#: prefix that records numba's compile time per dispatcher (numba.core.event)
LISTEN = """
import atexit, collections, time
from numba.core import event
_t = collections.defaultdict(float)
_start = {}
class _L(event.Listener):
    def on_start(self, ev):
        _start[id(ev.data['dispatcher']), str(ev.data['args'])] = time.perf_counter()
    def on_end(self, ev):
        k = (id(ev.data['dispatcher']), str(ev.data['args']))
        d = ev.data['dispatcher']
        _t[d.py_func.__module__ + '.' + d.py_func.__qualname__ + str(ev.data['args'])] += (
            time.perf_counter() - _start.pop(k))
event.register('numba:compile', _L())
def _dump():
    import sys
    tot = 0.0
    for k, v in sorted(_t.items(), key=lambda kv: -kv[1]):
        print(f'{v:7.3f} s  {k}', file=sys.stderr)
    print(f'{len(_t)} specializations', file=sys.stderr)
atexit.register(_dump)
"""


#: one estimator's first fit (``{name}``), timed inside the process
FIRST_FIT = """
import time
import birank
from birank.datasets import load_a9a
X, y = load_a9a(subset="train")
X, y = X[:5000], y[:5000]
model = birank.{name}()
t0 = time.perf_counter()
model.fit(X, y)
print(time.perf_counter() - t0)
"""


def _cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(cache_dir, code=EXAMPLE, src=None, ahead=True):
    """Wall seconds, CPU seconds (the child's: steadier on a shared machine), output.

    ``ahead=False``: ``BIRANK_AHEAD=0``, the kernels compiled at install left unused."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, BIRANK_AHEAD="1" if ahead else "0")
    if src:  # another copy of the package (e.g. ``git archive`` of an older commit)
        env["PYTHONPATH"] = str(src)
    t0, c0 = time.perf_counter(), _cpu()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    dt, dc = time.perf_counter() - t0, _cpu() - c0
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return dt, dc, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--compiled", action="store_true")
    ap.add_argument("--baseline-src", help="a src/ directory of another birank version: its "
                    "cold runs alternate with this one's, for a ratio under the same load")
    ap.add_argument("--estimators", action="store_true",
                    help="each public estimator's first fit, cold and warm")
    ap.add_argument("--build", action="store_true",
                    help="also time the install's compile step, against the saving per cold run")
    args = ap.parse_args(argv)
    if args.estimators:
        return _estimators(args.repeat)
    if args.baseline_src:
        cold, base = [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as d:
                cold.append(_run(d)[:2])
            with tempfile.TemporaryDirectory() as d:
                base.append(_run(d, src=args.baseline_src)[:2])
        (c, cc), (b, bc) = np.median(cold, axis=0), np.median(base, axis=0)
        print(f"cold: this tree {c:.2f} s wall / {cc:.2f} s CPU; baseline {b:.2f} s / "
              f"{bc:.2f} s CPU; ratio {c / b:.2f} wall, {cc / bc:.2f} CPU "
              f"(load average {os.getloadavg()[0]:.1f})", flush=True)
    status = _run(tempfile.gettempdir(), "from birank._kernels import ahead; "
                  "print(ahead.status())")[2].stdout.strip()
    print(f"kernels compiled at install: {status}")
    times = {}
    with tempfile.TemporaryDirectory() as warm_dir, \
            tempfile.TemporaryDirectory() as warm_jit_dir:
        _run(warm_dir)  # fill the warm caches
        _run(warm_jit_dir, ahead=False)
        for _ in range(args.repeat):
            for ahead in (True, False):
                with tempfile.TemporaryDirectory() as cold_dir:
                    times.setdefault(("cold", ahead), []).append(_run(cold_dir, ahead=ahead)[:2])
                times.setdefault(("warm", ahead), []).append(
                    _run(warm_dir if ahead else warm_jit_dir, ahead=ahead)[:2])
    med = {k: np.median(v, axis=0) for k, v in times.items()}
    for ahead, label in ((True, "as installed"), (False, "BIRANK_AHEAD=0 (just in time)")):
        (c, cc), (w, wc) = med["cold", ahead], med["warm", ahead]
        print(f"README example, {label}: cold (empty numba cache) {c:.2f} s wall, {cc:.2f} s "
              f"CPU; warm {w:.2f} s wall, {wc:.2f} s CPU; cold/warm {c / w:.2f}x wall, "
              f"{cc / wc:.2f}x CPU; compilation about {cc - wc:.2f} CPU s")
    c, w = med["cold", True][0], med["warm", True][0]
    print(f"as installed / just in time: cold {c / med['cold', False][0]:.2f}x, warm "
          f"{w / med['warm', False][0]:.2f}x (wall); target cold < 6 s: "
          f"{'met' if c < 6.0 else 'MISSED'} (wall)")
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores)")
    if args.build:
        saved = med["cold", False][1] - med["cold", True][1]
        with tempfile.TemporaryDirectory() as d:
            bt, bc, _ = _run(d, "import os; from importlib.machinery import EXTENSION_SUFFIXES; "
                             "from birank._kernels import ahead; ahead.build(os.path.join("
                             f"{d!r}, ahead.MODULE + EXTENSION_SUFFIXES[0]), force=True)")
        print(f"the install's compile step (ahead.build, {min(os.cpu_count() or 1, 4)} "
              f"processes): {bt:.1f} s wall, {bc:.1f} s CPU; a cold README run saves "
              f"{saved:.1f} CPU s: paid back after {bc / saved:.1f} cold runs (CPU)")
    if args.compiled:
        with tempfile.TemporaryDirectory() as cold_dir:
            dt, dc, out = _run(cold_dir, LISTEN + EXAMPLE)
        print(f"cold run with compile events: {dt:.2f} s wall, {dc:.2f} s CPU "
              "(times below include the kernels each one calls)")
        print(out.stderr)


def _estimators(repeat):
    import birank

    print("first fit (s), default parameters, 5,000 rows of a9a (CSR): cold as installed | "
          "cold BIRANK_AHEAD=0 | warm (medians of alternating fresh processes)")
    for name in birank.__all__:
        code = FIRST_FIT.replace("{name}", name)
        t = {"ahead": [], "jit": [], "warm": []}
        with tempfile.TemporaryDirectory() as warm_dir:
            _run(warm_dir, code)
            for _ in range(repeat):
                for kind in t:
                    with tempfile.TemporaryDirectory() as cold_dir:
                        out = _run(warm_dir if kind == "warm" else cold_dir, code,
                                   ahead=kind != "jit")[2]
                    t[kind].append(float(out.stdout.split()[-1]))
        a, j, w = (float(np.median(t[k])) for k in ("ahead", "jit", "warm"))
        print(f"  {name:<18} {a:7.2f} | {j:7.2f} | {w:6.3f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores)")


if __name__ == "__main__":
    main()
