"""
BBR on a Dask cluster
=====================

:func:`birank.distributed.fit` fits :class:`~birank.BBR` (the pairwise
squared loss over all positive-negative pairs, solved from class moments)
on a Dask array chunked by rows: each block's class moments are computed
where the block lives and merged by a tree. The result equals the in-memory
fit. Here the cluster is a ``LocalCluster`` in this process; on a real
cluster, pass its scheduler address to ``Client``.
"""

# %%
import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster

from birank import BBR
from birank import distributed as bd
from birank.datasets import make_gaussian_mixture
from birank.metrics import roc_auc

_, _, params = make_gaussian_mixture(10, n_features=20, n_components=2, random_state=0)
X_test, y_test, _ = make_gaussian_mixture(50_000, n_features=20, n_components=2,
                                          params=params, random_state=1)

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                       dashboard_address=None)
client = Client(cluster)

# %%
# Eight blocks of 25,000 rows, each generated on a worker (as data read from
# files by each worker would be); the fit runs on the workers.
block_rows = 25_000


@dask.delayed(nout=2)
def block(seed):
    Xb, yb, _ = make_gaussian_mixture(block_rows, n_features=20, n_components=2,
                                      params=params, random_state=seed)
    return Xb, yb


parts = [block(seed) for seed in range(10, 18)]
Xd = da.concatenate([da.from_delayed(p[0], (block_rows, 20), float) for p in parts])
yd = da.concatenate([da.from_delayed(p[1], (block_rows,), float) for p in parts])
model = bd.fit(BBR(radius=1.0), Xd, yd)
scores = bd.decision_function(model, Xd)            # lazy, block by block
print("train AUC on the cluster:", float(bd.roc_auc(yd, scores)))
print("test AUC:", roc_auc(y_test, model.decision_function(X_test)))

# %%
# The same model in memory, on the gathered rows.
X, y = Xd.compute(), yd.compute()
local = BBR(radius=1.0).fit(X, y)
print("max |coef difference| vs in-memory fit:", np.abs(model.coef_ - local.coef_).max())

# %%
# The two coefficient vectors, one against the other.
fig, ax = plt.subplots(figsize=(4, 4))
ax.plot(local.coef_, model.coef_, "o")
lim = np.abs(local.coef_).max() * 1.1
ax.plot([-lim, lim], [-lim, lim], "k--", lw=1)
ax.set(xlabel="in-memory BBR coef_", ylabel="Dask BBR coef_")
fig.tight_layout()

client.close()
cluster.close()
