"""The public estimators, discovered from ``birank.__all__``, in instances fast enough for tests.

Estimators that land later are covered with no edit here: they are built
with their defaults (and ``random_state=0`` when they have one). Only an
estimator whose defaults are too slow for small test data needs an entry in
``FAST_PARAMS``.
"""

import inspect

import birank
from sklearn.base import BaseEstimator

# class name -> parameters that keep a fit on check data well under a second
FAST_PARAMS = {
    "ActiveRankSVM": {"budget": 200, "batch_size": 50},
    "CombinedRanking": {"alpha": 1e-2, "max_iter": 20000},
    "LCBR": {"n_pairs": 500},
    # the default tol=0.1 (LIBLINEAR's) is too loose for check_sample_weight_equivalence
    "WeightedSVM": {"tol": 1e-10, "max_iter": 100000},
}


def public_estimator_classes():
    """Every estimator class named in ``birank.__all__`` (sorted by name)."""
    out = []
    for name in sorted(birank.__all__):
        obj = getattr(birank, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            out.append(obj)
    return out


def make_fast(cls, **extra):
    """An instance of ``cls`` with test-friendly parameters and ``random_state=0``."""
    params = dict(FAST_PARAMS.get(cls.__name__, {}))
    valid = cls().get_params()
    if "random_state" in valid:
        params["random_state"] = 0
    params.update(extra)
    return cls(**{k: v for k, v in params.items() if k in valid})


def is_binary_ranker(est):
    """Bipartite rankers need two classes; RankSVM-like ones also take real labels."""
    from birank.base import BinaryRankerMixin

    return isinstance(est, BinaryRankerMixin)


def supports_groups(est):
    return "groups" in inspect.signature(est.fit).parameters


def has_partial_fit(est):
    return hasattr(est, "partial_fit")
