"""Start-up time of the ``birank`` command (target: ``birank --help`` < 0.5 s).

Each case runs in a fresh interpreter; the reference is ``python -c pass`` in the same
loop, so the ratio says what birank adds to a bare interpreter start. Medians of
``--repeats`` runs.

    PYTHONPATH=src python benchmarks/bench_cli_startup.py [--repeats 7] [--quick]
        [--baseline-src /path/to/other/checkout/src]

With ``--baseline-src`` the birank cases are also timed with that source tree
(e.g. an older checkout), interleaved with these, and the ratio is printed.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def _time(cmd, env):
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - t0


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
    times = {name: [] for name, _, _ in runs}
    for _ in range(repeats):  # interleaved, so load changes hit every case alike
        for name, cmd, run_env in runs:
            times[name].append(_time(cmd, run_env))
    ref = statistics.median(times["python -c pass (reference)"])
    print(f"median of {repeats} runs (seconds; ratio to a bare interpreter start)")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"  {name:<40} {med:7.3f} s   x{med / ref:5.1f}   overhead {med - ref:6.3f} s   "
              f"(best {min(ts):.3f} s)")
    for name in cases:
        if f"{name} [baseline]" in times:
            ratio = statistics.median(times[f"{name} [baseline]"]) / statistics.median(times[name])
            print(f"  baseline / this tree, {name:<28} {ratio:6.1f}x")


if __name__ == "__main__":
    main()
