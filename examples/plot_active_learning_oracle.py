"""
Active learning to rank with a simulated oracle
===============================================

Labels cost money. :class:`~birank.ActiveRankLearner` (Donmez & Carbonell
2009) chooses, per query, the unlabeled documents whose labels would change
the ranker most, asks for their labels, retrains, and repeats. Here the
oracle is simulated (it holds the true labels and counts the reads), and the
LossMin strategy is compared with random choice.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from birank import ActiveRankLearner

rng = np.random.default_rng(0)


def make_queries(n_queries, per_query=60, n_features=8):
    """Binary relevance, about 15 % relevant, from a planted linear ranker."""
    w = np.linspace(1.0, -0.5, n_features)
    X = rng.normal(size=(n_queries * per_query, n_features))
    utility = X @ w + rng.normal(scale=1.0, size=X.shape[0])
    y = (utility > np.quantile(utility, 0.85)).astype(float)
    return X, y, np.repeat(np.arange(n_queries), per_query)


X, y, qid = make_queries(40)
X_test, y_test, qid_test = make_queries(20)

# %%
# Each round labels 2 documents per query, starting from 1 relevant and
# 3 non-relevant labeled documents per query.
curves = {}
for strategy in ("lossmin", "random"):
    learner = ActiveRankLearner(strategy=strategy, per_query=2, random_state=0)
    result = learner.simulate(X, y, qid, X_test, y_test, qid_test, n_rounds=8,
                              n_initial_relevant=1, n_initial_nonrelevant=3)
    curves[strategy] = result
    print(f"{strategy:8s} labels read: {result['oracle_reads']:4d}   "
          f"MAP {result['map'][0]:.3f} -> {result['map'][-1]:.3f}   "
          f"AUC {result['auc'][0]:.3f} -> {result['auc'][-1]:.3f}")

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3.2))
for strategy, res in curves.items():
    ax1.plot(res["n_labeled"], res["map"], "o-", label=strategy)
    ax2.plot(res["n_labeled"], res["auc"], "o-", label=strategy)
ax1.set(xlabel="labeled documents", ylabel="test MAP")
ax2.set(xlabel="labeled documents", ylabel="test AUC")
ax1.legend()
fig.tight_layout()
