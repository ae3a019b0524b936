"""Do the online / SGD learners' defaults work without tuning? Default AUC vs the best of a grid.

For every online or SGD learner, one ``fit`` (one pass over the training rows,
in a random order drawn from the repeat's seed; CombinedRanking: its default
number of SGD steps) with the constructor's defaults, and with each point of a
small grid over the parameters that set its step size / aggressiveness /
regularization. Prints per estimator and data set the default's test AUC, the
best grid AUC (and where), and their difference; ``*`` marks a default more
than 0.01 below the best.

Data: the bundled a9a (its own train / test files) and german.numer, and, from
``--data-home`` (a folder with LIBSVM copies: ``w8a/w8a``,
``spambase/spambase.libsvm``, ``ionosphere/ionosphere_scale``), those sets
split 2/3 train, 1/3 test at random per repeat. Features are scaled into
[-1, 1] by ``MaxAbsScaler`` fitted on the training part (as the estimators'
docs advise; binary sets are unchanged). Small sets average ``--repeats``
random splits, so that the 0.01 criterion is not test-set noise.

    nice -n 10 python benchmarks/bench_defaults.py --data-home PATH
    python benchmarks/bench_defaults.py --quick      # bundled sets, fewer repeats
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.preprocessing import MaxAbsScaler

from birank import CBR, OAM, OPAUC, PGD, SPAM, AdaOAM, CombinedRanking, OnlineUniExp
from birank.datasets import load_a9a, load_german_numer, load_svmlight
from birank.metrics import roc_auc

from _data import data_file  # (benchmarks/_data.py)

LOG_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
STEP_GRID = (1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0)

#: name -> (default instance, grid: parameter -> values)
ESTIMATORS = {
    "CBR(diag)": (CBR(covariance="diag"), {"C": LOG_GRID, "confidence": (0.6, 0.7, 0.9)}),
    "CBR(full)": (CBR(), {"C": LOG_GRID, "confidence": (0.6, 0.7, 0.9)}),
    "OAM": (OAM(), {"C": LOG_GRID}),
    "AdaOAM": (AdaOAM(), {"eta0": STEP_GRID}),
    "OPAUC": (OPAUC(), {"eta0": STEP_GRID}),
    "OPAUCr": (OPAUC(rank=50), {"eta0": STEP_GRID}),
    "OnlineUniExp": (OnlineUniExp(), {"eta0": STEP_GRID}),
    "SPAM": (SPAM(), {"eta0": STEP_GRID}),
    "PGD": (PGD(), {"eta0": STEP_GRID}),
    "CombinedRanking": (CombinedRanking(), {"alpha": (1e-6, 1e-5, 1e-4, 1e-3, 1e-2)}),
}

#: shared set -> file inside --data-home
SHARED = {"w8a": "w8a/w8a", "spambase": "spambase/spambase.libsvm",
          "ionosphere": "ionosphere/ionosphere_scale"}


def splits(name, data_home, repeats):
    """Yield ``(X_train, y_train, X_test, y_test)`` per repeat (scaled, shuffled)."""
    if name == "a9a":
        X, y = load_a9a()
        Xt, yt = load_a9a(subset="test")
    else:
        if name == "german.numer":
            X, y = load_german_numer()
        else:
            X, y = load_svmlight(data_file(data_home, SHARED[name]))[:2]
        Xt = yt = None
    y = np.asarray(y)
    for r in range(repeats):
        rng = np.random.default_rng(r)
        if Xt is not None:
            tr, Xte, yte = rng.permutation(X.shape[0]), Xt, yt
            Xtr, ytr = X[tr], y[tr]
        else:
            order = rng.permutation(X.shape[0])
            cut = 2 * X.shape[0] // 3
            Xtr, ytr, Xte, yte = X[order[:cut]], y[order[:cut]], X[order[cut:]], y[order[cut:]]
        scaler = MaxAbsScaler().fit(Xtr)
        yield scaler.transform(Xtr), ytr, scaler.transform(Xte), yte


def auc_of(est, data):
    out = []
    for Xtr, ytr, Xte, yte in data:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                est.fit(Xtr, ytr)
                s = est.decision_function(Xte)
            except ValueError:  # diverged (a step size far too large): worst case
                out.append(0.5)
                continue
        out.append(roc_auc(yte == est.classes_[1], s) if np.isfinite(s).all() else 0.5)
    return float(np.mean(out))


def too_big(name, X):
    if name == "CBR(full)" and X.shape[1] > 60:  # O(d^2) per pair: minutes per fit
        return True
    if name in ("AdaOAM", "OPAUC") and X.shape[1] > 300:
        return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-home", default=None, help="folder with the shared LIBSVM sets")
    ap.add_argument("--sets", nargs="*", default=None)
    ap.add_argument("--estimators", nargs="*", default=None)
    ap.add_argument("--repeats", type=int, default=5, help="random splits of the small sets")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--all", action="store_true", help="also print every grid point")
    args = ap.parse_args()
    sets = args.sets or (["a9a", "german.numer"]
                         + (list(SHARED) if args.data_home else []))
    names = args.estimators or list(ESTIMATORS)
    print(f"{'estimator':16s} {'set':13s} {'default':>8s} {'best':>8s} {'diff':>7s}  best at")
    for set_name in sets:
        big = set_name in ("a9a", "w8a")
        reps = 1 if big else (2 if args.quick else args.repeats)
        data = list(splits(set_name, args.data_home, reps))
        for name in names:
            proto, grid = ESTIMATORS[name]
            if too_big(name, data[0][0]) or (big and name == "CBR(full)" and args.quick):
                continue
            t0 = time.perf_counter()
            if "random_state" in proto.get_params():  # buffers / SGD draws: repeatable
                proto = clone(proto).set_params(random_state=0)
            default = auc_of(clone(proto), data)
            best, where = -1.0, None
            keys = list(grid)
            for values in itertools.product(*(grid[k] for k in keys)):
                params = dict(zip(keys, values))
                a = auc_of(clone(proto).set_params(**params), data)
                if args.all:
                    print(f"    {name} {set_name} {params} {a:.4f}", flush=True)
                if a > best:
                    best, where = a, params
            best = max(best, default)
            flag = "*" if best - default > 0.01 else " "
            print(f"{name:16s} {set_name:13s} {default:8.4f} {best:8.4f} {default - best:+7.4f}"
                  f"{flag} {where}  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
