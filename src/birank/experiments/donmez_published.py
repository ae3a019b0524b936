"""Published results of Donmez & Carbonell (ECIR 2009), LETOR 3.0 TD2003 / TD2004.

Only what the paper prints: Table 1 (relative performance by a two-sided paired
t-test over the operating range; ``>>`` p < 0.01, ``>`` p < 0.05, ``~`` not
significant), Table 2 (TD2003, first 5 iterations: per-iteration CPU seconds of
training + ranking + selection, and MAP) and the significance statements of
section 3.2. Fig. 3 is a plot without printed values.
"""

__all__ = ["TABLE1", "TABLE2_TD2003", "SIGNIFICANCE", "PROTOCOL"]

#: metric -> dataset -> methods from best to worst with the relation between neighbours
TABLE1 = {
    "MAP": {"TD04": "LossMin >> Entropy >> Diverse >> Uncertain",
            "TD03": "LossMin >> Entropy >> Uncertain >> Diverse"},
    "NDCG10": {"TD04": "LossMin >> Entropy >> Diverse ~ Uncertain",
               "TD03": "LossMin ~ Entropy >> Uncertain > Diverse"},
    "AUC": {"TD04": "LossMin > Entropy > Diverse >> Uncertain",
            "TD03": "LossMin ~ Entropy >> Uncertain > Diverse"},
}

#: iteration -> {"time": {method: cpu-s}, "map": {method: MAP}} (TD2003, Table 2)
TABLE2_TD2003 = {
    0: {"time": {"lossmin": 1.347, "entropy": 1.347, "diverse": 1.347, "uncertain": 1.347},
        "map": {"lossmin": 0.184, "entropy": 0.184, "diverse": 0.184, "uncertain": 0.184}},
    1: {"time": {"lossmin": 1.977, "entropy": 45.234, "diverse": 36.072, "uncertain": 1.947},
        "map": {"lossmin": 0.219, "entropy": 0.183, "diverse": 0.190, "uncertain": 0.194}},
    2: {"time": {"lossmin": 2.003, "entropy": 48.576, "diverse": 39.127, "uncertain": 1.953},
        "map": {"lossmin": 0.201, "entropy": 0.204, "diverse": 0.171, "uncertain": 0.191}},
    3: {"time": {"lossmin": 2.038, "entropy": 52.865, "diverse": 41.973, "uncertain": 1.968},
        "map": {"lossmin": 0.221, "entropy": 0.222, "diverse": 0.183, "uncertain": 0.189}},
    4: {"time": {"lossmin": 2.110, "entropy": 55.038, "diverse": 44.665, "uncertain": 2.001},
        "map": {"lossmin": 0.226, "entropy": 0.228, "diverse": 0.160, "uncertain": 0.186}},
}

#: section 3.2: LossMin against the others, two-sided paired t-test, whole operating range
SIGNIFICANCE = {
    "TD03": "p < 0.0001 w.r.t. MAP and NDCG10",
    "TD04": "p < 0.001 w.r.t. MAP and NDCG10",
}

#: section 3.1
PROTOCOL = {
    "initial_relevant_per_query": 1,
    "initial_nonrelevant_per_query": 10,
    "selected_per_query_per_round": 5,
    "rounds": 20,
    "lambda": 0.6,
    "folds": 5,
    "ranker": "SVMlight ranking mode, linear kernel, default parameters",
    "features": "LETOR 3.0, 44 features, query-level normalised to [0, 1]",
    "relevant_fraction": {"TD2003": 0.01, "TD2004": 0.006},
}
