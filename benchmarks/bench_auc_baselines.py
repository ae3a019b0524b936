"""One pass of the online AUC baselines (OPAUC, OPAUCr, OnlineUniExp, SPAM, PGD) on a9a.

Prints, per learner: wall and CPU seconds and rows per second of one pass over the whole
training set, test AUC, and the speedup over the same updates written in plain
numpy (tests/online_references.py), timed in the same process on the first
``--ref-rows`` rows (median of ``--repeats``). The reference figure of the
authors' OPAUC Matlab code under Octave on a9a is 4.88 s (shared reference
folder): its ratio is printed beside ours.

    PYTHONPATH=src python benchmarks/bench_auc_baselines.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from online_references import (opauc_reference, pgd_reference,  # noqa: E402
                               spam_reference, uniexp_reference)

from _timing import median_time, wall_and_cpu  # noqa: E402
from birank import OPAUC, PGD, SPAM, OnlineUniExp  # noqa: E402
from birank.datasets import load_a9a  # noqa: E402

OCTAVE_OPAUC_S = 4.88

LEARNERS = {
    "OPAUC": (lambda: OPAUC(eta0=1e-3, alpha=1e-4),
              lambda X, y: opauc_reference(X, y, 1e-3, 1e-4)),
    "OPAUCr (tau=50)": (lambda: OPAUC(rank=50, eta0=1e-3, alpha=1e-4, random_state=0), None),
    "OnlineUniExp": (lambda: OnlineUniExp(eta0=0.01), lambda X, y: uniexp_reference(X, y, 0.01)),
    "SPAM": (lambda: SPAM(eta0=0.1), lambda X, y: spam_reference(X, y, 0.1, 0.5, 1e-4)),
    "PGD (buffer 50)": (lambda: PGD(eta0=0.1), lambda X, y: pgd_reference(X, y, 0.1, 0.5,
                                                                        "hinge", 0.0, 50)),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ref-rows", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="1 repeat, 300 reference rows")
    args = parser.parse_args(argv)
    repeats, ref_rows = (1, 300) if args.quick else (args.repeats, args.ref_rows)
    X, y = load_a9a(subset="train")
    Xt, yt = load_a9a(subset="test")
    Xd = X[:ref_rows].toarray()
    yd = (y[:ref_rows] > 0).astype(int)
    print(f"a9a: {X.shape[0]} rows, {X.shape[1]} features; numpy reference on {ref_rows} rows")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'learner':<18}{'one pass s':>11}{'CPU s':>8}{'rows/s':>11}{'test AUC':>10}"
          f"{'numpy rows/s':>14}{'speedup':>9}")
    for name, (make, reference) in LEARNERS.items():
        make().fit(X[:20], y[:20])  # compile
        model = make()
        seconds, cpu_s, _ = wall_and_cpu(lambda: model.fit(X, y), repeats)
        auc = model.score(Xt, yt)
        rate = X.shape[0] / seconds
        if reference is None:
            ref_rate, ratio = float("nan"), ""
        else:
            ref_s = median_time(lambda: reference(Xd, yd), 1)[0]
            ref_rate = ref_rows / ref_s
            ratio = f"{rate / ref_rate:8.1f}x"
        print(f"{name:<18}{seconds:11.3f}{cpu_s:8.3f}{rate:11.0f}{auc:10.6f}{ref_rate:14.0f}"
              f"{ratio:>9}")
        if name == "OPAUC":
            print(f"{'':<18}authors' Matlab under Octave (unloaded machine): {OCTAVE_OPAUC_S} s"
                  f" -> {OCTAVE_OPAUC_S / seconds:.1f}x faster (wall), "
                  f"{OCTAVE_OPAUC_S / cpu_s:.1f}x (CPU s); goal 20x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
