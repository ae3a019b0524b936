"""Numbers published in Lin, Jan & Lin, "Data selection techniques for large-scale
RankSVM" (TAAI 2010), transcribed from its Tables I-VI.

Pairwise accuracy in percent as (mean, std); ``None`` where the paper has '-'
(total pairs too many to train). Table VI: problem sizes (pairs, or 2N Lagrange
multipliers for SVR).
"""

NOISES = (0.0, 0.05, 0.1, 0.5, 1.0)
NOISE_NAMES = {0.0: "noiseless", 0.05: "0.05", 0.1: "0.1", 0.5: "0.5", 1.0: "1"}

# Tables I and II (artificial data): 1-closest (199 pairs), random (199), total (19900), SVR
TABLE1_2 = {
    0.0: {"closest": (99.94, 0.01), "random": (98.30, 0.17), "total": (99.94, 0.01),
          "svr": (99.29, 0.04)},
    0.05: {"closest": (98.45, 0.05), "random": (97.24, 0.22), "total": (98.48, 0.06),
           "svr": (98.40, 0.06)},
    0.1: {"closest": (96.73, 0.18), "random": (95.72, 0.21), "total": (96.91, 0.17),
          "svr": (96.93, 0.16)},
    0.5: {"closest": (84.01, 0.63), "random": (84.78, 0.49), "total": (85.95, 0.47),
          "svr": (85.82, 0.48)},
    1.0: {"closest": (71.33, 1.29), "random": (73.64, 0.81), "total": (74.79, 0.73),
          "svr": (74.66, 0.77)},
}

# Table III (artificial data): closest S (199), closest S + random S (398), total, SVR
TABLE3 = {
    0.0: {"closest": (99.94, 0.01), "pruned": (99.94, 0.01), "total": (99.94, 0.01),
          "svr": (99.29, 0.04)},
    0.05: {"closest": (98.45, 0.05), "pruned": (98.44, 0.05), "total": (98.48, 0.06),
           "svr": (98.40, 0.06)},
    0.1: {"closest": (96.73, 0.18), "pruned": (96.74, 0.17), "total": (96.91, 0.17),
          "svr": (96.93, 0.16)},
    0.5: {"closest": (84.01, 0.63), "pruned": (85.31, 0.54), "total": (85.95, 0.47),
          "svr": (85.82, 0.48)},
    1.0: {"closest": (71.33, 1.29), "pruned": (73.79, 0.82), "total": (74.79, 0.73),
          "svr": (74.66, 0.77)},
}

REAL_DATASETS = ("mg", "space_ga", "bodyfat", "housing", "mpg")

# Table IV (linear) and Table V (RBF): closest S + random S, closest 2S + random 2S,
# total pairs, SVR
TABLE4 = {
    "mg": {"pruned": (77.45, 0.07), "pruned2": (77.44, 0.16), "total": (77.56, 0.16),
           "svr": (77.73, 0.04)},
    "space_ga": {"pruned": (78.22, 0.13), "pruned2": (78.71, 0.12), "total": None,
                 "svr": (78.28, 0.13)},
    "bodyfat": {"pruned": (99.25, 0.16), "pruned2": (98.83, 0.09), "total": (99.13, 0.03),
                "svr": (96.37, 0.12)},
    "housing": {"pruned": (86.43, 0.10), "pruned2": (86.57, 0.26), "total": (86.90, 0.03),
                "svr": (85.74, 0.04)},
    "mpg": {"pruned": (90.07, 0.25), "pruned2": (90.34, 0.20), "total": (90.71, 0.09),
            "svr": (90.40, 0.02)},
}
TABLE5 = {
    "mg": {"pruned": (80.80, 0.20), "pruned2": (81.18, 0.19), "total": None,
           "svr": (80.32, 1.11)},
    "space_ga": {"pruned": (81.65, 0.13), "pruned2": (82.12, 0.12), "total": None,
                 "svr": (79.13, 0.24)},
    "bodyfat": {"pruned": (96.92, 0.13), "pruned2": (98.21, 0.12), "total": (97.87, 0.61),
                "svr": (96.01, 0.15)},
    "housing": {"pruned": (87.35, 0.27), "pruned2": (88.16, 0.33), "total": (89.19, 0.32),
                "svr": (87.25, 0.27)},
    "mpg": {"pruned": (90.03, 0.30), "pruned2": (90.73, 0.28), "total": (90.99, 0.28),
            "svr": (90.93, 0.11)},
}

# Table VI: size of the optimization problem (mean, std); SVR: 2N multipliers
TABLE6 = {
    "mg": {"pruned": (1388.2, 0.45), "pruned2": (2776.4, 0.91), "total": (239083, 0.22),
           "svr": 1384},
    "space_ga": {"pruned": (3107.5, 0.41), "pruned2": (6216.4, 1.08),
                 "total": (1205130, 0.20), "svr": 3106},
    "bodyfat": {"pruned": (270.1, 1.41), "pruned2": (540.2, 2.82), "total": (7864.9, 0.64),
                "svr": 252},
    "housing": {"pruned": (815.4, 6.60), "pruned2": (1630.8, 13.2), "total": (31721.5, 2.66),
                "svr": 506},
    "mpg": {"pruned": (1012.2, 22.1), "pruned2": (2024.4, 44.2), "total": (18767, 7.42),
            "svr": 392},
}
