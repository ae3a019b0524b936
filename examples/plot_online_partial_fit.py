"""
Online learning with ``partial_fit`` and an AUC trace
=====================================================

Online rankers see the stream once, in chunks, with memory bounded by their
buffers. ``partial_fit`` over consecutive chunks gives the same model, bit for
bit, as ``fit`` over their concatenation; ``eval_set`` records the held-out AUC
every ``eval_every`` rows in ``auc_trace_``.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from birank import CBR, OAM, SPAM, OnlineUniExp
from birank.datasets import load_a9a
from birank.metrics import roc_auc

X, y = load_a9a(subset="train")
X_test, y_test = load_a9a(subset="test")
rng = np.random.default_rng(0)
order = rng.permutation(X.shape[0])        # a stream in random order
X, y = X[order], y[order]

# %%
# Feed the stream in chunks of 4000 rows, as a reader of a large file would
# (see :func:`birank.datasets.iter_svmlight_chunks`).
learners = {
    "CBR-diag": CBR(covariance="diag", C=1e-3),
    "OAM (seq)": OAM(C=1.0, random_state=0),
    "SPAM": SPAM(),
    "OnlineUniExp": OnlineUniExp(),
}
chunk = 4000
for name, model in learners.items():
    for start in range(0, X.shape[0], chunk):
        stop = start + chunk
        model.partial_fit(X[start:stop], y[start:stop], classes=[-1, 1],
                          eval_set=(X_test, y_test), eval_every=2000)
    print(f"{name:12s} final test AUC {roc_auc(y_test, model.decision_function(X_test)):.4f}")

# %%
# The same model from one ``fit`` call: identical coefficients.
again = CBR(covariance="diag", C=1e-3).fit(X, y)
print("partial_fit == fit:", np.array_equal(again.coef_, learners["CBR-diag"].coef_))

# %%
fig, ax = plt.subplots(figsize=(6, 3.4))
for name, model in learners.items():
    trace = np.asarray(model.auc_trace_)
    ax.plot(trace[:, 0], trace[:, 1], label=name)
ax.set(xlabel="rows seen", ylabel="test AUC", ylim=(0.75, 0.91))
ax.legend()
fig.tight_layout()
