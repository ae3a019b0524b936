"""Rankers known by name to the CLI (`birank train --model NAME`) and the demo.

Each entry: import path, default parameters, one-line description and paper.
Entries whose module is not importable are skipped by ``available_models``.
"""

from __future__ import annotations

import importlib

__all__ = ["MODELS", "available_models", "make_model", "registered_class"]

MODELS = {
    "ranksvm": ("birank.batch.ranksvm:RankSVM", {"C": 1.0, "loss": "squared_hinge"},
                "exact all-pairs RankSVM, squared hinge, truncated Newton (O(N log N) per pass)"),
    "ranksvm-hinge": ("birank.batch.ranksvm:RankSVM", {"C": 1.0, "loss": "hinge"},
                      "exact all-pairs RankSVM, hinge (Huber-smoothed Newton, certified duality gap)"),
    "active": ("birank.batch.active_ranksvm:ActiveRankSVM",
               {"budget": 8000, "strategy": "soft-correct", "C": 0.1},
               "ASRankSVM: soft-correct active sampling of 8000 pairs (shen-lin)"),
    "wsvm": ("birank.batch.weighted_svm:WeightedSVM", {"C": 1.0, "class_weight": "balanced"},
             "point-wise class-weighted linear SVM (shen-lin eq. 2)"),
    "crr": ("birank.batch.combined_ranking:CombinedRanking", {"alpha": 1e-4, "n_iter": 1_000_000},
            "combined ranking and regression SGD, 10^6 steps (Sculley 2010, sofia-ml)"),
    "bbr": ("birank.batch.bbr:BBR", {},
            "exact all-pairs squared loss from pair moments (gultekin-paisley BBR)"),
    "lcbr": ("birank.batch.bbr:LCBR", {"n_pairs": 5000},
             "pairwise squared loss on 5000 sampled pairs (gultekin-paisley LCBR)"),
}


def _load(name):
    path, params, _ = MODELS[name]
    module_name, cls_name = path.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None, params
        raise
    return getattr(module, cls_name, None), params


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


def registered_class(spec, source="model file"):
    """The estimator class named ``"module:Class"``, if it is one of birank's own.

    Allowed are the classes of :data:`MODELS` and the public estimators of
    ``birank.__all__``; anything else is refused before any import, so a model
    file cannot make birank import (and run) a module it names.

    Raises
    ------
    ValueError
        Naming ``source`` and the refused class.

    Examples
    --------
    >>> registered_class("birank.batch.ranksvm:RankSVM").__name__
    'RankSVM'
    >>> registered_class("os:system")
    Traceback (most recent call last):
    ...
    ValueError: model file: estimator 'os:system' is not one of birank's registered ...
    """
    allowed = {entry[0] for entry in MODELS.values()}
    if spec not in allowed:  # the public estimators (imports them: only when needed)
        import inspect

        import birank

        for name in birank.__all__:
            obj = getattr(birank, name)
            if inspect.isclass(obj):
                allowed.add(f"{obj.__module__}:{obj.__name__}")
    if spec not in allowed:
        raise ValueError(f"{source}: estimator {spec!r} is not one of birank's registered "
                         f"estimators ({', '.join(sorted(allowed))}); refusing to load it.")
    module_name, cls_name = spec.split(":")
    return getattr(importlib.import_module(module_name), cls_name)
