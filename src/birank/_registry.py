"""The one registry of estimators: public names for the CLI, the experiments and model files.

:data:`ESTIMATORS` maps each public estimator name (the class name users
import from :mod:`birank`) to where it lives; :func:`estimator_class`
resolves a name (and nothing else) to its class, so a model file or a command
line can only ever name one of birank's own estimators. :data:`MODELS` are the
model names the CLI knows (``birank train --model NAME``, the demo): each is a
registered estimator with default parameters, a one-line description and paper.
Entries whose module is not importable (not written yet in this build) are
skipped by ``available_models`` and reported as unavailable.
"""

from __future__ import annotations

import importlib

__all__ = ["ESTIMATORS", "MODELS", "available_models", "estimator_class", "estimator_name",
           "make_model"]

#: public name -> "module:Class"
ESTIMATORS = {
    "RankSVM": "birank.batch.ranksvm:RankSVM",
    "ActiveRankSVM": "birank.batch.active_ranksvm:ActiveRankSVM",
    "WeightedSVM": "birank.batch.weighted_svm:WeightedSVM",
    "CombinedRanking": "birank.batch.combined_ranking:CombinedRanking",
    "BBR": "birank.batch.bbr:BBR",
    "LCBR": "birank.batch.bbr:LCBR",
    # online learners (DESIGN.md), resolved once they exist
    "CBR": "birank.online:CBR",
    "OAM": "birank.online:OAM",
    "AdaOAM": "birank.online:AdaOAM",
    "OPAUC": "birank.online:OPAUC",
    "OnlineUniExp": "birank.online:OnlineUniExp",
    "SPAM": "birank.online:SPAM",
    "PGD": "birank.online:PGD",
}

#: CLI model name -> (registered estimator name or "module:Class", defaults, description)
MODELS = {
    "ranksvm": ("RankSVM", {"C": 1.0, "loss": "squared_hinge"},
                "exact all-pairs RankSVM, squared hinge, truncated Newton (O(N log N) per pass)"),
    "ranksvm-hinge": ("RankSVM", {"C": 1.0, "loss": "hinge"},
                      "exact all-pairs RankSVM, hinge (Huber-smoothed Newton, certified duality gap)"),
    "active": ("ActiveRankSVM",
               {"budget": 8000, "strategy": "soft-correct", "C": 0.1},
               "ASRankSVM: soft-correct active sampling of 8000 pairs (shen-lin)"),
    "wsvm": ("WeightedSVM", {"C": 1.0, "class_weight": "balanced"},
             "point-wise class-weighted linear SVM (shen-lin eq. 2)"),
    "crr": ("CombinedRanking", {"alpha": 1e-4, "n_iter": 1_000_000},
            "combined ranking and regression SGD, 10^6 steps (Sculley 2010, sofia-ml)"),
    "bbr": ("BBR", {},
            "exact all-pairs squared loss from pair moments (gultekin-paisley BBR)"),
    "lcbr": ("LCBR", {"n_pairs": 5000},
             "pairwise squared loss on 5000 sampled pairs (gultekin-paisley LCBR)"),
}


def _import(path):
    """The class at "module:Class", or None when its module does not exist (yet)."""
    module_name, cls_name = path.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            return None
        raise
    return getattr(module, cls_name, None)


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


def estimator_class(name, *, missing_ok=False):
    """The class of a registered estimator.

    Parameters
    ----------
    name : str
        A public name (``"RankSVM"``); for model files written before the
        registry, also the ``"module:Class"`` of a registered estimator.
    missing_ok : bool, default=False
        Return None instead of raising when the estimator is registered but its
        module is not part of this build.

    Raises
    ------
    ValueError
        For a name that is not registered (nothing else is ever imported), or
        an unavailable one unless ``missing_ok``.

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
    cls = _import(ESTIMATORS[public])
    if cls is None and not missing_ok:
        raise ValueError(f"estimator {public!r} is not available in this build of birank.")
    return cls


def estimator_name(estimator):
    """The public name of an estimator (instance or class); ValueError if not registered."""
    cls = estimator if isinstance(estimator, type) else type(estimator)
    for name, path in ESTIMATORS.items():
        if path == f"{cls.__module__}:{cls.__qualname__}":
            return name
    raise ValueError(f"{cls.__module__}.{cls.__qualname__} is not a registered birank "
                     "estimator.")


def _load(name):
    target, params, _ = MODELS[name]
    if _registered_name(target) is None:
        raise ValueError(f"model {name!r} names {target!r}, which is not a registered "
                         "estimator (add it to birank._registry.ESTIMATORS).")
    return estimator_class(target, missing_ok=True), params


def available_models():
    """Names whose estimator class can be imported, in registry order."""
    return [name for name in MODELS if _load(name)[0] is not None]


def make_model(name, **overrides):
    """Instantiate a registered model with its defaults updated by ``overrides``.

    Raises
    ------
    ValueError
        For an unknown or unavailable name, or a parameter the model does not have.
    """
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; choose one of {', '.join(MODELS)}.")
    cls, params = _load(name)
    if cls is None:
        raise ValueError(f"model {name!r} is not available in this build of birank.")
    params = dict(params)
    valid = cls().get_params()
    for key, value in overrides.items():
        if key not in valid:
            raise ValueError(f"model {name!r} has no parameter {key!r}; its parameters are "
                             f"{', '.join(sorted(valid))}.")
        params[key] = value
    return cls(**params)
