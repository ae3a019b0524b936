"""WeightedSVM's defaults against its paper setting.

Test AUC on the bundled a9a train/test split (shen-lin use a9a) of
WeightedSVM() with today's defaults (class_weight='balanced'), the old
defaults (class_weight=None), and shen-lin's setting (C=0.1, budget=8000), then
scikit-learn's LinearSVC (C=1, plain and class_weight='balanced') on the same split
in the same process, the reference: its AUC, and the fit-time ratio of WeightedSVM's
defaults to the balanced LinearSVC (< 1: WeightedSVM is faster). Prints one line per
setting and the gaps to the paper setting.

    .venv/bin/python benchmarks/bench_wsvm_defaults.py [--quick] [--seeds 3]
"""

import argparse
import time
import warnings

import numpy as np

from birank import WeightedSVM
from birank.datasets import load_a9a, load_german_numer
from birank.metrics import roc_auc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="german.numer 70/30 instead of a9a")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    if args.quick:
        from sklearn.model_selection import train_test_split

        X, y = load_german_numer()
        X, Xt, y, yt = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        name = "german.numer (70/30)"
    else:
        X, y = load_a9a(subset="train")
        Xt, yt = load_a9a(subset="test")
        name = "a9a (official split)"
    defaults = "defaults (class_weight='balanced', C=1)"
    settings = {
        defaults: {},
        "old defaults (class_weight=None, C=1)": {"class_weight": None},
        "paper (C=0.1, budget=8000)": {"C": 0.1, "budget": 8000},
    }
    print(f"WeightedSVM test AUC on {name}, {X.shape[0]} train rows, mean of "
          f"{args.seeds} seeds")
    res, fit_s = {}, {}
    for label, params in settings.items():
        aucs, secs = [], []
        for seed in range(args.seeds):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = WeightedSVM(random_state=seed, **params).fit(X, y)
            secs.append(time.perf_counter() - t0)
            aucs.append(roc_auc(yt, model.decision_function(Xt)))
        res[label] = float(np.mean(aucs))
        fit_s[label] = float(np.median(secs))
        print(f"  {label:<42} AUC {res[label]:.4f}  fit {np.median(secs):.2f}s")
    from sklearn.svm import LinearSVC

    times = {}
    for label, params in (("LinearSVC(C=1)", {}),
                          ("LinearSVC(C=1, class_weight='balanced')",
                           {"class_weight": "balanced"})):
        secs = []
        for _ in range(args.seeds):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = LinearSVC(C=1.0, **params).fit(X, y)
            secs.append(time.perf_counter() - t0)
        times[label] = float(np.median(secs))
        print(f"  reference {label:<42} AUC {roc_auc(yt, ref.decision_function(Xt)):.4f}  "
              f"fit {times[label]:.2f}s")
    print(f"  fit-time ratio WeightedSVM defaults / LinearSVC balanced: "
          f"{fit_s[defaults] / times[label]:.2f}")
    paper = res["paper (C=0.1, budget=8000)"]
    for label, auc in res.items():
        print(f"  gap to paper setting: {label:<42} {auc - paper:+.4f}")


if __name__ == "__main__":
    main()
