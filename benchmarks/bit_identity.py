"""Refactoring guard: fit a fixed set of models and save or compare their coefficients.

Run it once on the commit before a refactoring with ``--save before.npz`` and
once after with ``--compare before.npz``; it prints, per model and data set,
whether ``coef_`` and ``intercept_`` are bit-identical (``np.array_equal``) and
the largest absolute difference otherwise. Exit status 1 if any differs.

Parameter names that were renamed since the reference (``gamma`` ->
``pair_weight`` and ``threshold`` -> ``fit_intercept`` for ActiveRankSVM,
``fit_threshold`` -> ``fit_intercept`` for WeightedSVM) are translated to
whatever the installed estimator accepts, so the same script runs on both sides.

Usage::

    python benchmarks/bit_identity.py --data-home PATH --save ref.npz [--quick]
    python benchmarks/bit_identity.py --data-home PATH --compare ref.npz [--quick]
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from birank.datasets import load_svmlight

from _data import data_file  # (benchmarks/_data.py)

#: old parameter name -> the names it may have today (first accepted one wins)
RENAMES = {"gamma": ("pair_weight", "gamma"), "threshold": ("fit_intercept", "threshold"),
           "fit_threshold": ("fit_intercept", "fit_threshold"),
           "max_iter": ("max_iter", "n_iter")}  # (CombinedRanking's n_iter before 1.0)


def data_sets(data_home, quick):
    """(name, X, y01) of a9a (sparse), german.numer and housing (y > median), as CSR."""
    out = []
    X, y = load_svmlight(data_file(data_home, "a9a/a9a"))[:2]
    if quick:
        X, y = X[:6000], y[:6000]
    out.append(("a9a", X, (y > 0).astype(int)))
    X, y = load_svmlight(data_file(data_home, "german.numer/german.numer"))[:2]
    out.append(("german.numer", X, (y > 0).astype(int)))
    X, y = load_svmlight(data_file(data_home, "housing/housing_scale"))[:2]
    out.append(("housing", X, (y > np.median(y)).astype(int)))
    return out


def models():
    """(label, class, parameters with the names of the reference commit)."""
    from birank.batch.active_ranksvm import ActiveRankSVM
    from birank.batch.bbr import BBR, LCBR
    from birank.batch.combined_ranking import CombinedRanking
    from birank.batch.weighted_svm import WeightedSVM

    return [
        ("active-soft-correct", ActiveRankSVM, dict(budget=2000, random_state=0)),
        ("active-soft-close-crc-thr", ActiveRankSVM,
         dict(budget=2000, strategy="soft-close", gamma=0.5, threshold=True, random_state=1)),
        ("active-hard-correct-sq", ActiveRankSVM,
         dict(budget=1000, strategy="hard-correct", loss="squared_hinge", random_state=2)),
        ("active-random-paper-rounds", ActiveRankSVM,
         dict(budget=1000, strategy="random", gamma="uniform", round_tol=None,
              round_max_iter=None, random_state=3)),
        ("active-dense", ActiveRankSVM, dict(budget=800, random_state=4, _dense=True)),
        ("wsvm-balanced", WeightedSVM, dict(class_weight="balanced", random_state=0)),
        ("wsvm-budget-thr-sq", WeightedSVM,
         dict(C=0.1, budget=800, fit_threshold=True, loss="squared_hinge", random_state=0)),
        ("bbr", BBR, dict()),
        ("bbr-cg", BBR, dict(solver="cg", radius=1.0)),
        ("lcbr", LCBR, dict(n_pairs=2000, random_state=0)),
        ("crr", CombinedRanking, dict(max_iter=20000, random_state=0)),
    ]


def translate(cls, params):
    accepted = cls().get_params()
    out = {}
    for key, value in params.items():
        for name in RENAMES.get(key, (key,)):
            if name in accepted:
                out[name] = value
                break
        else:
            raise KeyError(f"{cls.__name__} has no parameter {key!r}")
    return out


def run(data_home, quick):
    results = {}
    for dname, X, y in data_sets(data_home, quick):
        for label, cls, params in models():
            params = dict(params)
            dense = params.pop("_dense", False)
            Xf = X.toarray() if dense else X
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # budget caps, convergence: not compared here
                model = cls(**translate(cls, params)).fit(Xf, y)
            key = f"{dname}/{label}"
            results[key + "/coef"] = np.asarray(model.coef_, dtype=np.float64)
            results[key + "/intercept"] = np.asarray([model.intercept_], dtype=np.float64)
            print(f"fitted {key}", flush=True)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", required=True)
    parser.add_argument("--save")
    parser.add_argument("--compare")
    parser.add_argument("--quick", action="store_true", help="a9a: first 6000 rows only")
    args = parser.parse_args(argv)
    results = run(args.data_home, args.quick)
    if args.save:
        np.savez(args.save, **results)
        print(f"saved {len(results)} arrays to {args.save}")
    if args.compare:
        ref = np.load(args.compare)
        bad = 0
        for key in sorted(ref.files):
            if key not in results:
                print(f"MISSING   {key}")
                bad += 1
                continue
            same = np.array_equal(ref[key], results[key])
            diff = 0.0 if same else float(np.max(np.abs(ref[key] - results[key])))
            print(f"{'identical' if same else 'DIFFERENT'} {key}"
                  + ("" if same else f" (max |diff| {diff:.3g})"))
            bad += not same
        print(f"{len(ref.files) - bad} of {len(ref.files)} arrays bit-identical")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
