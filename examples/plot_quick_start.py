"""
Quick start
===========

Fit three bipartite rankers on the bundled a9a data set (32,561 rows, 123
sparse features, 193,829,520 positive-negative pairs) and compare their test
AUC. None of them enumerates the pairs.
"""

# %%
# Load the data: a CSR matrix and labels in {-1, +1}.
import time

import matplotlib.pyplot as plt

from birank import BBR, ActiveRankSVM, RankSVM
from birank.datasets import load_a9a
from birank.metrics import roc_auc

X, y = load_a9a(subset="train")
X_test, y_test = load_a9a(subset="test")
print(X.shape, X.nnz, "positives:", int((y == 1).sum()))

# %%
# Fit the exact all-pairs RankSVM, active sampling of 8000 pairs, and the
# pairwise squared loss solved from class moments. (The first fit of a model
# on a new install also compiles its numba kernels, once; they are cached on
# disk.)
models = {
    "RankSVM (exact)": RankSVM(C=1.0),
    "ActiveRankSVM (8000 pairs)": ActiveRankSVM(budget=8000, random_state=0),
    "BBR (moments)": BBR(radius=1.0),
}
aucs, seconds = {}, {}
for name, model in models.items():
    start = time.perf_counter()
    model.fit(X, y)
    seconds[name] = time.perf_counter() - start
    aucs[name] = roc_auc(y_test, model.decision_function(X_test))
    print(f"{name:28s} test AUC {aucs[name]:.4f}  fit {seconds[name]:.2f} s")

# %%
# ``predict`` returns class labels and ``score`` the AUC (binary labels).
model = models["RankSVM (exact)"]
print(model.predict(X_test[:5]), model.score(X_test, y_test))

# %%
# The test AUC of each model.
fig, ax = plt.subplots(figsize=(6, 2.6))
names = list(aucs)
ax.barh(names, [aucs[n] for n in names], color="#4c72b0")
ax.set_xlim(0.89, 0.905)
ax.set_xlabel("test AUC on a9a.t")
for i, n in enumerate(names):
    ax.text(aucs[n], i, f" {aucs[n]:.4f}", va="center")
fig.tight_layout()
