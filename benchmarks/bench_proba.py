"""predict_proba on a9a: test log-loss of every binary ranker vs CalibratedClassifierCV(LinearSVC).

Each birank estimator is fitted with its defaults on the bundled a9a training
file (CombinedRanking / ActiveRankSVM as the CLI runs them) and its
``predict_proba`` (Platt's sigmoid fitted during ``fit``, see
docs/conventions.md) is scored on a9a.t; scikit-learn's
``CalibratedClassifierCV(LinearSVC())`` (5-fold sigmoid) is the reference,
fitted in the same process. Printed per estimator: the test log-loss, its
difference to the reference with a 95 % paired bootstrap interval over the
test rows (1000 resamples), the ratio; the same estimator's scores calibrated
by isotonic regression on the training scores, and by a sigmoid fitted on the
*test* scores at its own midpoint (the best any sigmoid of these scores can
do: below the reference only if the scores allow it); the test accuracy of
``predict`` (threshold where the training sigmoid is 1/2) and of the cut of
best training accuracy (the rule before). ``WeightedSVM(class_weight=None)``
shows what the default class-weighted (balanced) decision threshold costs.

    python benchmarks/bench_proba.py [--estimators RankSVM PGD ...]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import log_loss
from sklearn.svm import LinearSVC

import birank
from birank._calibration import platt_fit, platt_midpoint, platt_proba
from birank.metrics import best_accuracy_threshold
from birank.datasets import load_a9a

FAST = {"ActiveRankSVM": {"random_state": 0}, "CombinedRanking": {"random_state": 0},
        "LCBR": {"random_state": 0}, "CBR": {"covariance": "diag"}}
SKIP = {"ActiveRankLearner"}  # not a classifier (no predict / predict_proba)
EXTRA = {"WeightedSVM": {"class_weight": None}}  # also printed without class weights


def row_log_loss(y01, p1):
    p1 = np.clip(p1, 1e-15, 1 - 1e-15)
    return -(y01 * np.log(p1) + (1 - y01) * np.log(1 - p1))


def best_sigmoid(s, y01):
    """Two slopes at Platt's midpoint, fitted on (s, y01) themselves."""
    m = platt_midpoint(s, y01)
    m = 0.0 if m is None else m
    return platt_proba(s - m, *platt_fit(s - m, y01))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--estimators", nargs="*", default=None)
    args = ap.parse_args()
    Xtr, ytr = load_a9a()
    Xte, yte = load_a9a(subset="test")
    y01 = (ytr == 1).astype(int)
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    ref = CalibratedClassifierCV(LinearSVC()).fit(Xtr, ytr)
    t01 = (yte == 1).astype(int)
    ref_rows = row_log_loss(t01, ref.predict_proba(Xte)[:, 1])
    ref_ll = float(ref_rows.mean())
    boot = np.random.default_rng(0).integers(0, len(t01), size=(1000, len(t01)))
    print(f"CalibratedClassifierCV(LinearSVC()): test log-loss {ref_ll:.4f} "
          f"({time.perf_counter() - t0:.1f} s)")
    print(f"{'estimator':30s} {'log-loss':>8s} {'- ref':>8s} {'95% interval':>17s} "
          f"{'ratio':>6s} {'isotonic':>8s} {'best sigmoid':>12s} {'acc':>6s} "
          f"{'acc@best':>8s} {'fit s':>6s}")
    runs = [(n, FAST.get(n, {})) for n in (args.estimators or birank.__all__) if n not in SKIP]
    runs += [(n, kw) for n, kw in EXTRA.items() if any(n == r[0] for r in runs)]
    for name, kw in runs:
        est = getattr(birank, name)(**kw)
        t0 = time.perf_counter()
        est.fit(Xtr, ytr)
        fit_s = time.perf_counter() - t0
        proba = est.predict_proba(Xte)
        rows = row_log_loss(t01, proba[:, 1])
        ll = float(rows.mean())
        d = (rows - ref_rows)[boot].mean(axis=1)
        lo, hi = np.percentile(d, [2.5, 97.5])
        s_tr, s_te = est.decision_function(Xtr), est.decision_function(Xte)
        iso = IsotonicRegression(out_of_bounds="clip", y_min=1e-3, y_max=1 - 1e-3)
        p_iso = iso.fit(s_tr, y01).predict(s_te)
        iso_ll = log_loss(yte, np.column_stack([1 - p_iso, p_iso]))
        best_ll = log_loss(yte, best_sigmoid(s_te, t01))
        acc = float(np.mean(est.predict(Xte) == yte))
        cut, _ = best_accuracy_threshold(y01, s_tr)
        acc_best = float(np.mean((s_te > cut) == t01))
        label = name + ("(" + ",".join(f"{k}={v}" for k, v in kw.items()) + ")"
                        if name in EXTRA and kw == EXTRA[name] else "")
        print(f"{label:30s} {ll:8.4f} {ll - ref_ll:+8.4f} [{lo:+.4f}, {hi:+.4f}] "
              f"{ll / ref_ll:6.3f} {iso_ll:8.4f} {best_ll:12.4f} {acc:6.4f} {acc_best:8.4f} "
              f"{fit_s:6.1f}", flush=True)


if __name__ == "__main__":
    main()
