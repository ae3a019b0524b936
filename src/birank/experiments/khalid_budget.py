"""CBR-diag with a feature budget on the high-dimensional sets: AUC against the budget.

khalid-ray-chitsaz section 5 names online feature selection (Wang, Zhao, Hoi &
Jin 2014) as future work; ``CBR(covariance='diag', feature_budget=B)`` truncates
the mean to its B largest coordinates after every row. Per high-dimensional set
this runs the main protocol's splits (:func:`birank.experiments.khalid._splits`:
same permutations, rows and test folds) for every budget, at the C that the
2-fold CV of the unbudgeted CBR-diag chose on the first run's training set (the
budget is not tuned: the question is what the budget costs at a fixed C).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from .._typing import Matrix

__all__ = ["BUDGETS", "run_budget_sweep", "budget_lines"]

#: feature budgets (None: no budget, the paper's CBR-diag)
BUDGETS = (10, 30, 100, 300, 1000, 3000, None)


def _label(b):
    return "all" if b is None else str(int(b))


def run_budget_sweep(data: Mapping[str, tuple[Matrix, NDArray[Any]]], cfg: Mapping[str, Any],
                     *, budgets: Sequence[int | None] = BUDGETS,
                     chosen_C: Mapping[str, float] | None = None,
                     report: Callable[[str, int], object] | None = None,
                     ) -> dict[str, dict[str, Any]]:
    """AUC and fit time of CBR-diag (FIFO) per budget.

    Parameters
    ----------
    data : dict name -> (X, y01)
        Each set's rows (CSR) and 0/1 labels.
    cfg : dict
        ``runs``, ``max_rows``, ``seed``, ``grid`` (khalid's protocol).
    budgets : sequence of int or None, default=BUDGETS
        The feature budgets B (None: no budget).
    chosen_C : dict name -> C, default=None
        C of the main run's CBR-diag; missing sets are cross-validated here.
    report : callable, default=None
        ``report(message, run)`` after each fit.

    Returns
    -------
    sweep : dict name -> dict
        Per set: ``C``, ``budgets`` (labels: ``"10"``, ..., ``"all"``), ``n_features``
        and per budget label the test AUC (``auc``), fit time in ms (``ms``) and
        non-zero coefficients (``nnz``) of each run; empty where the budget does not
        bind (B >= the number of features).

    Examples
    --------
    >>> from birank.datasets import make_sparse_bipartite
    >>> from birank.experiments.khalid_budget import run_budget_sweep
    >>> X, y01, _ = make_sparse_bipartite(400, n_features=500, nnz_per_row=20, random_state=0)
    >>> cfg = {"runs": 2, "max_rows": 400, "seed": 0, "grid": (0.5, 1.0, 2.0)}
    >>> sweep = run_budget_sweep({"toy": (X, y01)}, cfg, budgets=(10, 100, None),
    ...                          chosen_C={"toy": 1.0})
    >>> sweep["toy"]["budgets"], sweep["toy"]["nnz"]["10"]
    (['10', '100', 'all'], [10, 10])
    """
    from ..metrics import roc_auc
    from ..online import CBR
    from .khalid import BUFFER, ETA_CBR, _cbr, _splits, select_parameter

    out: dict[str, dict[str, Any]] = {}
    for name, (X, y01) in data.items():
        splits = _splits(X.shape[0], cfg["runs"], cfg["max_rows"], cfg["seed"])
        C = (chosen_C or {}).get(name)
        if C is None:
            tr = splits[0][0]
            C, _ = select_parameter(_cbr("fifo", "diag"), X[tr], y01[tr], cfg["grid"],
                                    random_state=cfg["seed"], name="C")
        rec: dict[str, Any] = {"C": float(C), "budgets": [_label(b) for b in budgets],
                               "n_features": int(X.shape[1]), "auc": {}, "ms": {}, "nnz": {}}
        for b in budgets:
            key = _label(b)
            rec["auc"][key], rec["ms"][key], rec["nnz"][key] = [], [], []
            if b is not None and b >= X.shape[1]:
                continue  # the budget does not bind: same model as "all"
            for r, (tr, te) in enumerate(splits):
                t0 = time.perf_counter()
                m = CBR(covariance="diag", buffer="fifo", buffer_size=BUFFER,
                        confidence=ETA_CBR, C=C, feature_budget=b,
                        random_state=cfg["seed"] + r).fit(X[tr], y01[tr])
                rec["ms"][key].append(1000.0 * (time.perf_counter() - t0))
                rec["auc"][key].append(float(roc_auc(y01[te], m.decision_function(X[te]))))
                rec["nnz"][key].append(int(np.count_nonzero(m.coef_)))
                if report is not None:
                    report(f"{name} budget {key}", r)
        out[name] = rec
    return out


def budget_lines(sweep: Mapping[str, Mapping[str, Any]], *,
                 figure_path: Path | None = None) -> list[str]:
    """Markdown lines of the budget table (and the figure, when a path is given).

    Parameters
    ----------
    sweep : dict
        From :func:`run_budget_sweep`.
    figure_path : pathlib.Path, default=None
        Where to draw the AUC against the budget (a PNG); None: no figure.

    Returns
    -------
    lines : list of str
        Markdown; empty for an empty sweep.

    Examples
    --------
    >>> from birank.experiments.khalid_budget import budget_lines
    >>> sweep = {"toy": {"C": 1.0, "budgets": ["10", "all"], "n_features": 500,
    ...                  "auc": {"10": [0.6, 0.62], "all": [0.7, 0.72]},
    ...                  "ms": {"10": [5.0, 7.0], "all": [3.0, 3.0]}}}
    >>> print(budget_lines(sweep)[4])
    | data | features | C | B = 10 | B = all |
    | :--- | ---: | ---: | ---: | ---: |
    | toy | 500 | 1 | 0.610 ± 0.010 | 0.710 ± 0.010 |
    <BLANKLINE>
    """
    if not sweep:
        return []
    from ._report import format_mean_std, markdown_table

    names = list(sweep)
    keys = sweep[names[0]]["budgets"]
    lines = ["## CBR-diag with a feature budget (the paper's future work)", "",
             "khalid-ray-chitsaz section 5: “investigate the use of online feature selection "
             "[Wang et al. 2014] within our proposed framework”. "
             "`CBR(covariance='diag', feature_budget=B)` keeps the B largest |mu_j| after "
             "every row (truncation, Wang et al.'s OFS); C is the unbudgeted CBR-diag's 2-fold "
             "CV choice on the first run's training set, the same for every budget (the "
             "budget is not tuned); the splits are the main protocol's (units: runs). "
             "Cells: test AUC "
             "mean ± std over runs; '—' where B is at least the number of features "
             "(the budget does not bind).", ""]
    rows = []
    for n in names:
        rec = sweep[n]
        rows.append([n, str(rec["n_features"]), f"{rec['C']:g}"]
                    + [format_mean_std(rec["auc"][k], digits=3) if rec["auc"][k] else "—"
                       for k in keys])
    lines.append(markdown_table(["data", "features", "C"] + [f"B = {k}" for k in keys], rows))
    rows = [[n] + [f"{np.median(sweep[n]['ms'][k]):.0f}" if sweep[n]["ms"][k] else "—"
                   for k in keys] for n in names]
    lines += ["", "Median fit time (ms) per budget:", "",
              markdown_table(["data"] + [f"B = {k}" for k in keys], rows)]
    if figure_path is not None:
        from ._report import new_figure, save_figure

        fig, axes = new_figure(1, size=3.6)
        ax = axes[0]
        for n in names:
            rec = sweep[n]
            xs = [int(k) if k != "all" else rec["n_features"] for k in keys if rec["auc"][k]]
            ys = [np.mean(rec["auc"][k]) for k in keys if rec["auc"][k]]
            ax.plot(xs, ys, "o-", label=n)
        ax.set_xscale("log")
        ax.set(xlabel="feature budget B (rightmost: all features)", ylabel="test AUC",
               title="CBR-diag: AUC vs feature budget")
        ax.legend(fontsize=7)
        save_figure(fig, figure_path)
        lines += ["", f"Figure: `{figure_path.name}`."]
    return lines + [""]
