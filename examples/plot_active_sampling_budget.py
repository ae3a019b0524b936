"""
Active sampling of pairs: the budget and the learning curve
===========================================================

:class:`~birank.ActiveRankSVM` grows a set of chosen pairs (and, with
``pair_weight < 1``, pseudo-pairs) in rounds of ``batch_size``, each round
re-solving a weighted linear SVM warm-started from the last. The ``budget`` is
the number of pairs it may use, out of 193,829,520 on a9a. This example
draws the learning curve: test AUC and fit time against the budget, with the
exact all-pairs :class:`~birank.RankSVM` as the reference.
"""

# %%
import time

import matplotlib.pyplot as plt
import numpy as np

from birank import ActiveRankSVM, RankSVM
from birank.datasets import load_a9a
from birank.metrics import roc_auc

X, y = load_a9a(subset="train")
X_test, y_test = load_a9a(subset="test")

start = time.perf_counter()
exact = RankSVM(C=1.0).fit(X, y)
exact_s = time.perf_counter() - start
exact_auc = roc_auc(y_test, exact.decision_function(X_test))
print(f"exact RankSVM: AUC {exact_auc:.4f} in {exact_s:.2f} s")

# %%
# Budgets from 250 to 8000 pairs, two strategies: soft correctness (the
# default) and uniform random pairs.
budgets = [250, 1000, 4000, 8000]
curves = {}
for strategy in ("soft-correct", "random"):
    aucs, secs = [], []
    for budget in budgets:
        model = ActiveRankSVM(budget=budget, strategy=strategy, random_state=0)
        start = time.perf_counter()
        model.fit(X, y)
        secs.append(time.perf_counter() - start)
        aucs.append(roc_auc(y_test, model.decision_function(X_test)))
    curves[strategy] = (np.array(aucs), np.array(secs))
    print(strategy, " ".join(f"{b}:{a:.4f}" for b, a in zip(budgets, aucs)))

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3.2))
for strategy, (aucs, secs) in curves.items():
    ax1.semilogx(budgets, aucs, "o-", label=strategy)
    ax2.semilogx(budgets, secs, "o-", label=strategy)
ax1.axhline(exact_auc, color="k", ls="--", label="exact RankSVM")
ax2.axhline(exact_s, color="k", ls="--", label="exact RankSVM")
ax1.set(xlabel="budget (pairs)", ylabel="test AUC")
ax2.set(xlabel="budget (pairs)", ylabel="fit seconds")
ax1.legend(fontsize=8)
fig.tight_layout()
