"""
Calibrated probabilities from a ranker
======================================

A ranker's scores order the rows; they are not probabilities. Binary
rankers give ``predict_proba``: a sigmoid fitted to their scores (Platt
scaling). This example checks the calibration on held-out data with a
reliability diagram. With a version of birank older than ``predict_proba``,
scikit-learn's ``CalibratedClassifierCV`` gives the same kind of estimate.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import CalibratedClassifierCV, calibration_curve
from sklearn.metrics import brier_score_loss

from birank import RankSVM
from birank.datasets import load_a9a

X, y = load_a9a("train")
X_test, y_test = load_a9a("test")

ranker = RankSVM(C=1.0).fit(X, y)
if hasattr(ranker, "predict_proba"):
    how = "RankSVM.predict_proba"
    proba = ranker.predict_proba(X_test)[:, 1]
else:  # pragma: no cover - birank without predict_proba
    how = "CalibratedClassifierCV(RankSVM, method='sigmoid')"
    calibrated = CalibratedClassifierCV(RankSVM(C=1.0), method="sigmoid", cv=3).fit(X, y)
    proba = calibrated.predict_proba(X_test)[:, 1]
print(how)

# %%
# The raw scores squashed by a plain logistic function, for comparison.
raw = 1.0 / (1.0 + np.exp(-ranker.decision_function(X_test)))
for name, p in (("calibrated", proba), ("plain sigmoid of scores", raw)):
    print(f"{name:24s} Brier score {brier_score_loss(y_test == 1, p):.4f}")

# %%
fig, ax = plt.subplots(figsize=(4.5, 4.2))
for name, p in (("calibrated", proba), ("sigmoid of raw scores", raw)):
    frac, mean = calibration_curve(y_test == 1, p, n_bins=10)
    ax.plot(mean, frac, "o-", label=name)
ax.plot([0, 1], [0, 1], "k--", lw=1, label="perfect")
ax.set(xlabel="predicted probability", ylabel="observed fraction of positives")
ax.legend()
fig.tight_layout()
