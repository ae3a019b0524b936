"""Rankers known by name to the CLI (`birank train --model NAME`) and the demo.

Each entry: import path, default parameters, one-line description and paper.
Entries whose module is not importable are skipped by ``available_models``.
"""

from __future__ import annotations

import importlib

__all__ = ["MODELS", "available_models", "make_model"]

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
    "cbr": ("birank.online.cbr:CBR", {"covariance": "full", "buffer": "fifo", "C": 1.0},
            "online confidence-weighted ranking, full covariance, FIFO buffers of 50 (khalid-ray-chitsaz)"),
    "cbr-diag": ("birank.online.cbr:CBR", {"covariance": "diag", "buffer": "fifo", "C": 1.0},
                 "online CBR-diag: diagonal covariance, O(nnz) per pair, for sparse high-dim data"),
    "oam": ("birank.online.oam:OAM", {"variant": "seq", "C": 0.01},
            "online AUC maximization, OAM_seq with reservoir buffers of 50 (Zhao et al. 2011)"),
    "adaoam": ("birank.online.adaoam:AdaOAM", {"learning_rate": 0.05},
               "online AUC maximization with AdaGrad steps (Ding et al. 2015), d <= 1000"),
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
