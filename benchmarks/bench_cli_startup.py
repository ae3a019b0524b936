"""Start-up time of the ``birank`` command (targets: ``birank --help`` < 0.5 s; ``evaluate``
and ``predict`` on a 1,000-row file < 1 s of overhead, warm kernel cache).

Each case runs in a fresh interpreter; the reference is ``python -c pass`` in the same
loop, so the ratio says what birank adds to a bare interpreter start. Medians of
``--repeats`` runs, in wall time and in CPU time (user + system of the child process):
on a shared machine the wall time grows with the load, the CPU time much less, so both are
printed with the load average before and after.

    PYTHONPATH=src python benchmarks/bench_cli_startup.py [--repeats 7] [--quick]
        [--baseline-src /path/to/other/checkout/src]

With ``--baseline-src`` the birank cases are also timed with that source tree
(e.g. an older checkout), interleaved with these, and the ratio is printed.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def _time(cmd, env):
    """(wall seconds, CPU seconds of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="3 repeats")
    parser.add_argument("--baseline-src", default=None,
                        help="another birank src folder to compare against")
    args = parser.parse_args()
    repeats = 3 if args.quick else args.repeats
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    env = dict(os.environ, PYTHONPATH=src)
    tmp = tempfile.mkdtemp()
    data = os.path.join(tmp, "tiny.svm")
    with open(data, "w") as fh:
        fh.write("1 1:0.5 2:1\n-1 1:-1 3:2\n1 2:0.3\n-1 3:-0.5\n")
    model = os.path.join(tmp, "m.json")
    subprocess.run([sys.executable, "-m", "birank.cli", "train", "-q", "-m", "wsvm", data,
                    "-o", model], env=env, check=True)
    # 1,000 rows x 20 features, 10 queries
    import random

    rnd = random.Random(0)
    rows = os.path.join(tmp, "rows1000.svm")
    with open(rows, "w") as fh:
        for i in range(1000):
            x = [rnd.gauss(0, 1) for _ in range(20)]
            fh.write(f"{int(x[0] + rnd.gauss(0, 1) > 0)} qid:{i // 100} "
                     + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(x)) + "\n")
    model1k = os.path.join(tmp, "m1k.json")
    scores1k = os.path.join(tmp, "s1k.txt")
    subprocess.run([sys.executable, "-m", "birank.cli", "train", "-q", "-m", "wsvm", "--no-groups",
                    rows, "-o", model1k], env=env, check=True)
    with open(scores1k, "w") as fh:
        subprocess.run([sys.executable, "-m", "birank.cli", "predict", model1k, rows],
                       env=env, check=True, stdout=fh)
    out1k = os.path.join(tmp, "out.json")
    cases = {
        "python -c pass (reference)": [sys.executable, "-c", "pass"],
        "birank --help": [sys.executable, "-m", "birank.cli", "--help"],
        "birank train --help": [sys.executable, "-m", "birank.cli", "train", "--help"],
        "birank predict (4 rows)": [sys.executable, "-m", "birank.cli", "predict", model, data],
        "import birank": [sys.executable, "-c", "import birank"],
        "birank evaluate (1000 rows)": [sys.executable, "-m", "birank.cli", "evaluate",
                                        "--labels", rows, "--scores", scores1k],
        "birank predict (1000 rows)": [sys.executable, "-m", "birank.cli", "predict", model1k,
                                       rows],
        "birank train wsvm (1000 rows)": [sys.executable, "-m", "birank.cli", "train", "-q",
                                          "-m", "wsvm", "--no-groups", "--force", rows,
                                          "-o", out1k],
    }
    for name, cmd in cases.items():  # warm: every kernel a case needs is compiled and cached
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = [(name, cmd, env) for name, cmd in cases.items()]
    if args.baseline_src:
        base_env = dict(os.environ, PYTHONPATH=args.baseline_src)
        runs += [(f"{name} [baseline]", cmd, base_env) for name, cmd in cases.items()
                 if name.startswith(("birank", "import"))]
    load0 = os.getloadavg()
    times = {name: [] for name, _, _ in runs}
    cpu = {name: [] for name, _, _ in runs}
    for _ in range(repeats):  # interleaved, so load changes hit every case alike
        for name, cmd, run_env in runs:
            wall, used = _time(cmd, run_env)
            times[name].append(wall)
            cpu[name].append(used)
    load1 = os.getloadavg()
    ref = statistics.median(times["python -c pass (reference)"])
    ref_cpu = statistics.median(cpu["python -c pass (reference)"])
    print(f"load average (1 min) {load0[0]:.2f} before, {load1[0]:.2f} after; "
          f"{os.cpu_count()} CPUs")
    print(f"median of {repeats} runs (seconds; ratio to a bare interpreter start; overhead = "
          "minus the bare start)")
    print(f"  {'case':<40} {'wall':>7}   {'ratio':>6}   {'overhead':>8}   {'CPU':>6}   "
          f"{'CPU overhead':>12}")
    for name, ts in times.items():
        med, med_cpu = statistics.median(ts), statistics.median(cpu[name])
        print(f"  {name:<40} {med:7.3f}   x{med / ref:5.1f}   {med - ref:8.3f}   "
              f"{med_cpu:6.3f}   {med_cpu - ref_cpu:12.3f}")
    for name in ("birank evaluate (1000 rows)", "birank predict (1000 rows)"):
        wall = statistics.median(times[name]) - ref
        used = statistics.median(cpu[name]) - ref_cpu
        print(f"  target < 1 s overhead, {name:<28} wall {wall:.3f} s, CPU {used:.3f} s: "
              f"{'met' if used < 1.0 else 'NOT met'} (judged on CPU time)")
    for name in cases:
        if f"{name} [baseline]" in times:
            ratio = statistics.median(times[f"{name} [baseline]"]) / statistics.median(times[name])
            print(f"  baseline / this tree, {name:<28} {ratio:6.1f}x")


if __name__ == "__main__":
    main()
