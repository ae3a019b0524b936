"""Numbers published in Shen & Lin (2014), "Active sampling of pairs and points for
large-scale linear bipartite ranking", transcribed from its tables.

All AUC values at |L*| = 8000, b = 100, gamma = 1.0, C = 0.1 (section 4.1).
Data sets marked (*) in the paper are multi-class, class 1 against the rest.
"""

DATASETS = ("letter", "protein", "news20", "rcv1", "a9a", "bank", "ijcnn1", "shuttle",
            "mnist", "connect", "acoustic", "real-sim", "covtype", "url")

# Table 1: (positive, negative, total points, total pairs, dimension, evaluation)
TABLE1 = {
    "letter": (789, 19211, 20000, 30314958, 16, "CV"),
    "protein": (8198, 9568, 17766, 156876928, 357, "test"),
    "news20": (9999, 9997, 19996, 199920006, 1355191, "CV"),
    "rcv1": (10491, 9751, 20242, 204595482, 47236, "CV"),
    "a9a": (7841, 24720, 32561, 387659040, 123, "test"),
    "bank": (5289, 39922, 45211, 422294916, 51, "CV"),
    "ijcnn1": (4853, 45137, 49990, 438099722, 22, "CV"),
    "shuttle": (34108, 9392, 43500, 640684672, 9, "test"),
    "mnist": (5923, 54077, 60000, 640596142, 780, "test"),
    "connect": (44473, 23084, 67557, 2053229464, 126, "CV"),
    "acoustic": (18261, 60562, 78823, 2211845364, 50, "test"),
    "real-sim": (22238, 50071, 72309, 2226957796, 20958, "CV"),
    "covtype": (297711, 283301, 581012, 168683648022, 54, "CV"),
    "url": (792145, 1603985, 2396130, 2541177395650, 3231961, "CV"),
}

# Table 2: soft versus hard under a 95% t-test, (win, loss, tie) over 13 data sets
TABLE2 = {"close": (9, 3, 1), "correct": (12, 0, 1)}

# Table 3: AUC(with bias correction) - AUC(without), b = 100, gamma = 1
TABLE3 = {
    "close": {"letter": -1.0540e-03, "protein": -1.0400e-03, "news20": -3.2210e-03,
              "rcv1": -5.4200e-04, "a9a": -3.3000e-05, "bank": -2.2160e-03,
              "ijcnn1": -2.9800e-04, "shuttle": -9.3600e-04, "mnist": 2.7600e-04,
              "connect": -7.1700e-04, "acoustic": -2.6960e-03, "real-sim": -8.2700e-04,
              "covtype": -1.7220e-03, "url": 3.8000e-05},
    "correct": {"letter": -2.4430e-03, "protein": 9.3760e-03, "news20": -2.9550e-03,
                "rcv1": -9.6000e-05, "a9a": 2.1680e-03, "bank": 4.5100e-04,
                "ijcnn1": 7.3300e-04, "shuttle": 3.0700e-04, "mnist": 2.4700e-04,
                "connect": 3.2030e-03, "acoustic": 4.9000e-05, "real-sim": -1.8710e-03,
                "covtype": 2.8380e-03, "url": -2.7900e-04},
}

# Table 4: AUC. WSVM / ERankSVM / CRR are single numbers; Random, Soft-Close and
# Soft-Correct are (mean, std) over 10 initial pools.
TABLE4_COLUMNS = ("WSVM", "ERankSVM", "CRR", "Random", "Soft-Close", "Soft-Correct")
TABLE4 = {
    "letter": (.9808, .9877, .9874, (.9883, .0003), (.9883, .0002), (.9874, .0123)),
    "protein": (.8329, .8302, .8306, (.8229, .0031), (.8240, .0016), (.8233, .0028)),
    "news20": (.9379, .9753, .9743, (.9828, .0008), (.9836, .0006), (.9903, .0003)),
    "rcv1": (.9876, .9916, .9755, (.9920, .0004), (.9923, .0003), (.9944, .0002)),
    "a9a": (.9008, .9047, .8999, (.9003, .0006), (.9012, .0004), (.9007, .0006)),
    "bank": (.8932, .9023, .8972, (.9051, .0010), (.9057, .0011), (.9083, .0007)),
    "ijcnn1": (.9335, .9343, .9336, (.9342, .0004), (.9345, .0006), (.9348, .0003)),
    "shuttle": (.9873, .9876, .9888, (.9894, .0001), (.9896, .0001), (.9907, .0000)),
    "mnist": (.9985, .9983, .9973, (.9967, .0004), (.9979, .0001), (.9976, .0002)),
    "connect": (.8603, .8613, .8532, (.8594, .0008), (.8604, .0007), (.8603, .0009)),
    "acoustic": (.8881, .8911, .8931, (.8952, .0005), (.8952, .0005), (.8988, .0004)),
    "real-sim": (.9861, .9908, .9907, (.9908, .0003), (.9915, .0002), (.9934, .0064)),
    "covtype": (.8047, .8228, .8189, (.8238, .0008), (.8239, .0007), (.8249, .0006)),
    "url": (.9963, .9967, .9956, (.9940, .0003), (.9961, .0001), (.9984, .0015)),
}

# Table 6: CPU seconds under an 8000-pair budget
TABLE6_COLUMNS = ("Random", "Soft-Close", "Soft-Correct", "Hard-Close", "Hard-Correct",
                  "WSVM", "ERankSVM", "CRR")
TABLE6 = {
    "letter": (0.808, 1.53, 19.602, 192.671, 42.553, 0.29, 0.72, 0.15),
    "protein": (3.136, 2.943, 4.29, 12.128, 8.315, 0.85, 4.9, 0.99),
    "news20": (58.594, 56.506, 66.394, 184.233, 128.056, 20.1, 10.64, 4.55),
    "rcv1": (5.872, 6.318, 21.789, 114.028, 35.258, 1.83, 2.54, 0.77),
    "a9a": (0.374, 0.504, 1.065, 30.384, 19.537, 0.28, 4.25, 0.31),
    "bank": (1.957, 2.301, 4.644, 20.8064, 13.8512, 0.142, 5.624, 0.3),
    "ijcnn1": (0.957, 1.508, 4.031, 107.002, 79.32, 0.69, 2.75, 0.28),
    "shuttle": (0.146, 0.288, 3.02, 26.307, 17.577, 0.18, 0.98, 0.36),
    "mnist": (1.61, 2.851, 56.604, 205.135, 50.174, 4.92, 22.38, 2.75),
    "connect": (2.734, 3.229, 5.493, 117.047, 121.359, 2.5, 15.42, 0.78),
    "acoustic": (0.488, 0.624, 1.03, 33.39, 41.167, 1.82, 11.57, 1.93),
    "real-sim": (4.025, 4.35, 11.648, 318.702, 139.042, 3.15, 7.58, 1.78),
    "covtype": (1.47, 1.801, 2.739, 800.539, 5739.97, 6.41, 29.54, 3.3),
    "url": (31.026, 31.011, 163.022, 122045.33, 285394.18, 116.61, 594.82, 58.1),
}

# Table 7: best gamma (95% significance) in {uniform, 0.1, ..., 1.0}; "-thres" = CRC-threshold
TABLE7 = {
    "letter": ("uniform,uniform-thres", "0.9,0.9-thres"),
    "protein": ("1", "0.4-thres"),
    "news20": ("uniform,1,uniform-thres", "uniform,1,uniform-thres"),
    "rcv1": ("uniform,1,uniform-thres", "uniform,1,uniform-thres"),
    "a9a": ("uniform, uniform-thres", "0.6-thres"),
    "bank": ("1", "uniform,1,uniform-thres"),
    "ijcnn1": ("1, uniform-thres", "0.8,0.9,1,uniform-thres,0.9-thres"),
    "shuttle": ("0.1-thres,0.2-thres", "uniform-thres"),
    "mnist": ("0.1", "0.6"),
    "connect": ("uniform,1,uniform-thres", "uniform,1,uniform-thres"),
    "acoustic": ("1", "uniform,1,uniform-thres"),
    "real-sim": ("uniform,1,uniform-thres", "uniform,uniform-thres"),
    "covtype": ("uniform,1", "uniform,0.9,1,uniform-thres,0.9-thres"),
    "url": ("uniform,1,uniform-thres", "0.8"),
}

# Table 5: right-tail t-test p-values of Soft-Correct > other (the data sets we run)
TABLE5_COLUMNS = ("WSVM", "ERankSVM", "CRR", "Random", "Soft-Close")
TABLE5 = {
    "letter": (6.0872e-02, 5.3288e-01, 5.0330e-01, 5.9297e-01, 5.9163e-01),
    "a9a": (7.5885e-01, 1.0000e+00, 1.6240e-03, 8.8260e-02, 9.8648e-01),
    "bank": (4.8739e-14, 1.8479e-10, 7.7538e-13, 3.6276e-07, 1.2411e-05),
    "shuttle": (0.0, 0.0, 0.0, 1.8632e-11, 2.5577e-12),
}
