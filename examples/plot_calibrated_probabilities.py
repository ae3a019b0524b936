"""
Calibrated probabilities from a ranker
======================================

A ranker's scores order the rows; they are not probabilities. Binary
rankers give ``predict_proba``: a sigmoid fitted to their training scores
(Platt scaling). This example checks the calibration on held-out data with a
reliability diagram, beside scikit-learn's ``CalibratedClassifierCV`` (the
same sigmoid, fitted on held-out folds) and a plain logistic function of the
raw scores.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import CalibratedClassifierCV, calibration_curve
from sklearn.metrics import brier_score_loss

from birank import RankSVM
from birank.datasets import load_a9a

X, y = load_a9a(subset="train")
X_test, y_test = load_a9a(subset="test")

ranker = RankSVM(C=1.0).fit(X, y)
cross_fitted = CalibratedClassifierCV(RankSVM(C=1.0), method="sigmoid", cv=3).fit(X, y)
probabilities = {
    "RankSVM.predict_proba": ranker.predict_proba(X_test)[:, 1],
    "CalibratedClassifierCV": cross_fitted.predict_proba(X_test)[:, 1],
    # the raw scores squashed by a logistic function, for comparison
    "sigmoid of raw scores": 1.0 / (1.0 + np.exp(-ranker.decision_function(X_test))),
}
for name, p in probabilities.items():
    print(f"{name:24s} Brier score {brier_score_loss(y_test == 1, p):.4f}")

# %%
# The reliability diagram: a calibrated model's points lie on the diagonal.
fig, ax = plt.subplots(figsize=(4.5, 4.2))
for name, p in probabilities.items():
    frac, mean = calibration_curve(y_test == 1, p, n_bins=10)
    ax.plot(mean, frac, "o-", label=name)
ax.plot([0, 1], [0, 1], "k--", lw=1, label="perfect")
ax.set(xlabel="predicted probability", ylabel="observed fraction of positives")
ax.legend(fontsize=8)
fig.tight_layout()
