"""The one registry of estimators: public names for the CLI, the experiments and model files.

:data:`ESTIMATORS` maps each public estimator name (the class name users
import from :mod:`birank`) to where it lives; :func:`estimator_class`
resolves a name (and nothing else) to its class, so a model file or a command
line can only ever name one of birank's own estimators. :data:`MODELS` are the
model names the CLI knows (``birank train --model NAME``, the demo): each is a
registered estimator with default parameters, a one-line description and paper.
"""

from __future__ import annotations

import importlib

__all__ = ["ESTIMATORS", "MODELS", "estimator_class", "estimator_name", "make_model"]

#: public name -> "module:Class"
ESTIMATORS = {
    "RankSVM": "birank.batch.ranksvm:RankSVM",
    "ActiveRankSVM": "birank.batch.active_ranksvm:ActiveRankSVM",
    "WeightedSVM": "birank.batch.weighted_svm:WeightedSVM",
    "CombinedRanking": "birank.batch.combined_ranking:CombinedRanking",
    "BBR": "birank.batch.bbr:BBR",
    "LCBR": "birank.batch.bbr:LCBR",
    "PrunedRankSVM": "birank.batch.pruned_ranksvm:PrunedRankSVM",
    # online learners
    "CBR": "birank.online.cbr:CBR",
    "OAM": "birank.online.oam:OAM",
    "AdaOAM": "birank.online.adaoam:AdaOAM",
    "OPAUC": "birank.online.opauc:OPAUC",
    "OnlineUniExp": "birank.online.uniexp:OnlineUniExp",
    "SPAM": "birank.online.spam:SPAM",
    "PGD": "birank.online.pgd:PGD",
    # the active-learning loop (no model file of its own: it wraps a ranker)
    "ActiveRankLearner": "birank.active_learning.learner:ActiveRankLearner",
}

#: CLI model name -> (registered estimator name or "module:Class", defaults, description)
MODELS = {
    "ranksvm": ("RankSVM", {"C": 1.0, "loss": "squared_hinge"},
                "exact all-pairs RankSVM, squared hinge, truncated Newton (O(N log N) per pass)"),
    "ranksvm-hinge": ("RankSVM", {"C": 1.0, "loss": "hinge"},
                      "exact all-pairs RankSVM, hinge (Huber-smoothed Newton, "
                      "certified duality gap)"),
    "active": ("ActiveRankSVM",
               {"budget": 8000, "strategy": "soft-correct", "C": 0.1},
               "ASRankSVM: soft-correct active sampling of 8000 pairs (shen-lin)"),
    "wsvm": ("WeightedSVM", {"C": 1.0, "class_weight": "balanced"},
             "point-wise class-weighted linear SVM (shen-lin eq. 2)"),
    "crr": ("CombinedRanking", {"alpha": 1e-4, "max_iter": 1_000_000},
            "combined ranking and regression SGD, 10^6 steps (Sculley 2010, sofia-ml)"),
    "bbr": ("BBR", {},
            "exact all-pairs squared loss from pair moments (gultekin-paisley BBR)"),
    "lcbr": ("LCBR", {"n_pairs": 5000},
             "pairwise squared loss on 5000 sampled pairs (gultekin-paisley LCBR)"),
    "cbr": ("CBR", {"covariance": "full", "buffer": "fifo", "C": 1e-3},
            "online confidence-weighted ranking, full covariance, FIFO buffers of 50 (khalid-ray-chitsaz)"),
    "cbr-diag": ("CBR", {"covariance": "diag", "buffer": "fifo", "C": 1e-3},
                 "online CBR-diag: diagonal covariance, O(nnz) per pair, for sparse high-dim data"),
    "oam": ("OAM", {"variant": "seq", "C": 0.01},
            "online AUC maximization, OAM_seq with reservoir buffers of 50 (Zhao et al. 2011)"),
    "adaoam": ("AdaOAM", {"eta0": 0.05},
               "online AUC maximization with AdaGrad steps (Ding et al. 2015), d <= 1000"),
    "opauc": ("OPAUC", {"eta0": 0.01, "alpha": 1e-4},
              "one-pass AUC, square loss, full class covariances (Gao et al. 2013)"),
    "opaucr": ("OPAUC", {"rank": 50, "eta0": 0.01, "alpha": 1e-4},
               "OPAUCr: one-pass AUC with rank-50 covariance sketches (Gao et al. 2013)"),
    "uniexp": ("OnlineUniExp", {"eta0": 0.01},
               "online class-weighted univariate exponential loss (Kotlowski et al. 2011)"),
    "spam": ("SPAM", {"eta0": 0.05},
             "stochastic proximal AUC maximization, L2 (Natole et al. 2018)"),
    "pgd": ("PGD", {"eta0": 0.1, "buffer_size": 50},
            "online pairwise gradient descent, FIFO buffers of 50 (Boissier et al. 2016)"),
    "pruned": ("PrunedRankSVM", {"C": 1.0, "kernel": "linear"},
               "Pruned RankSVM: closest S + random S pairs, real-valued labels (lin-jan-lin)"),
}


def _registered_name(target):
    """The public name of a registry target: a name in ESTIMATORS or its "module:Class"."""
    if target in ESTIMATORS:
        return target
    for name, path in ESTIMATORS.items():
        if path == target:
            return name
    module_name, _, cls_name = str(target).rpartition(":")
    # the package root re-exports the public estimators: "birank:RankSVM"
    if module_name == "birank" and cls_name in ESTIMATORS:
        return cls_name
    return None


def estimator_class(name):
    """The class of a registered estimator.

    Parameters
    ----------
    name : str
        A public name (``"RankSVM"``); for model files written before the
        registry, also the ``"module:Class"`` of a registered estimator.

    Raises
    ------
    ValueError
        For a name that is not registered (nothing else is ever imported).

    Examples
    --------
    >>> from birank._registry import estimator_class
    >>> estimator_class("RankSVM").__name__
    'RankSVM'
    >>> estimator_class("os:system")
    Traceback (most recent call last):
    ...
    ValueError: 'os:system' is not a registered birank estimator; registered: ...
    """
    public = _registered_name(name)
    if public is None:
        raise ValueError(f"{name!r} is not a registered birank estimator; registered: "
                         f"{', '.join(ESTIMATORS)}.")
    module_name, cls_name = ESTIMATORS[public].split(":")
    return getattr(importlib.import_module(module_name), cls_name)


def estimator_name(estimator):
    """The public name of an estimator (instance or class); ValueError if not registered."""
    cls = estimator if isinstance(estimator, type) else type(estimator)
    for name, path in ESTIMATORS.items():
        if path == f"{cls.__module__}:{cls.__qualname__}":
            return name
    raise ValueError(f"{cls.__module__}.{cls.__qualname__} is not a registered birank "
                     "estimator.")


def make_model(name, **overrides):
    """Instantiate a registered model with its defaults updated by ``overrides``.

    Raises
    ------
    ValueError
        For an unknown name, or a parameter the model does not have.
    """
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; choose one of {', '.join(MODELS)}.")
    target, params, _ = MODELS[name]
    cls = estimator_class(target)
    params = dict(params)
    valid = cls().get_params()
    for key, value in overrides.items():
        if key not in valid:
            raise ValueError(f"model {name!r} has no parameter {key!r}; its parameters are "
                             f"{', '.join(sorted(valid))}.")
        params[key] = value
    return cls(**params)
