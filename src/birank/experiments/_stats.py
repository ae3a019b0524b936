"""Paired comparisons over independent units, the one statistics helper of the reproductions.

A unit is what can be repeated independently: a data split (fold or query
split) or a seed. Rounds of an active-learning run, or runs that share a test
set, are *not* independent of each other; testing over them (as a t-test over
every split x round does) counts the same variation many times and makes
p-values far too small. So every test here takes one number per unit: average
the correlated values within a unit first (:func:`unit_means`), then compare
two methods on the matched per-unit numbers with

* a two-sided paired t-test (Student 1908; scipy's ``ttest_rel``),
* the exact two-sided Wilcoxon signed-rank test (scipy's ``wilcoxon``),
* a percentile bootstrap confidence interval of the mean difference,
  resampling units (Efron & Tibshirani 1993, ch. 13).

With few units (5 folds) the Wilcoxon test cannot go below p = 0.0625 and
the t-test leans on normality: the report states the number of units beside
every test so that a reader can weigh it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, overload

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from .._typing import FloatArray

__all__ = ["unit_means", "paired_comparison", "welch_greater", "format_comparison",
           "relation", "nanmean"]


@overload
def nanmean(values: ArrayLike, *, axis: None = None) -> float: ...


@overload
def nanmean(values: ArrayLike, *, axis: int) -> FloatArray: ...


def nanmean(values: ArrayLike, *, axis: int | None = None) -> float | FloatArray:
    """Mean ignoring NaN (a diverged run, an undefined metric); NaN, without a warning,
    where every value is NaN.

    Parameters
    ----------
    values : array-like of float
    axis : int, default=None
        The axis averaged over; None: all values.

    Returns
    -------
    mean : float (``axis=None``) or ndarray of float

    Examples
    --------
    >>> import numpy as np
    >>> from birank.experiments._stats import nanmean
    >>> nanmean([1.0, np.nan, 3.0]), nanmean([[1.0, np.nan], [3.0, np.nan]], axis=0).tolist()
    (2.0, [2.0, nan])
    """
    v = np.asarray(values, dtype=float)
    n = np.sum(~np.isnan(v), axis=axis)
    total = np.nansum(v, axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(n > 0, total / np.maximum(n, 1), np.nan)
    return float(out) if axis is None else out


def unit_means(values: ArrayLike, units: ArrayLike) -> tuple[NDArray[Any], FloatArray]:
    """One number per unit: the mean of the finite ``values`` that share a unit id.

    Parameters
    ----------
    values : array-like of float
        The values (flattened); NaN and infinite ones are left out.
    units : array-like
        The unit of each value (same length).

    Returns
    -------
    unit_ids : ndarray
        The distinct units, sorted.
    means : ndarray of float
        The mean of each unit; NaN for a unit with no finite value (dropped by
        :func:`paired_comparison`).

    Examples
    --------
    >>> import numpy as np
    >>> from birank.experiments._stats import unit_means
    >>> ids, means = unit_means([0.5, 0.7, 0.9, np.nan], ["fold2", "fold1", "fold1", "fold3"])
    >>> ids.tolist(), means.tolist()
    (['fold1', 'fold2', 'fold3'], [0.8, 0.5, nan])
    """
    values = np.asarray(values, dtype=float).ravel()
    units = np.asarray(units).ravel()
    if values.shape != units.shape:
        raise ValueError(f"values ({values.shape[0]}) and units ({units.shape[0]}) differ in "
                         "length.")
    ids, inverse = np.unique(units, return_inverse=True)
    ok = np.isfinite(values)
    total = np.bincount(inverse[ok], weights=values[ok], minlength=ids.shape[0])
    count = np.bincount(inverse[ok], minlength=ids.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return ids, means


def paired_comparison(a: ArrayLike, b: ArrayLike, *, n_boot: int = 10_000,
                      confidence: float = 0.95, random_state: int = 0) -> dict[str, Any]:
    """Compare method ``a`` with ``b`` on matched per-unit numbers (one per independent unit).

    Parameters
    ----------
    a, b : array-like of shape (n_units,)
        One number per unit, in the same unit order; pairs with a NaN are dropped.
    n_boot : int, default=10_000
        Bootstrap resamples of the units for the confidence interval.
    confidence : float, default=0.95
        Coverage of the percentile interval.
    random_state : int, default=0
        Seed of the bootstrap (the interval is reproducible).

    Returns
    -------
    result : dict
        ``n_units``, ``mean_diff`` (a - b), ``ci_low``, ``ci_high``, ``t_p``
        (paired t-test), ``wilcoxon_p`` (exact signed-rank test when possible),
        ``wins`` (units where a > b) and ``confidence``. Constant differences
        give p = 1 for a zero difference and p = 0 otherwise; fewer than two units
        give NaN p-values.

    Examples
    --------
    >>> from birank.experiments._stats import paired_comparison
    >>> r = paired_comparison([1.0, 2, 3, 4, 5], [0.0, 0, 0, 0, 0])
    >>> r["n_units"], round(r["t_p"], 4), r["wilcoxon_p"]
    (5, 0.0132, 0.0625)
    """
    from scipy import stats

    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"a ({a.shape[0]} units) and b ({b.shape[0]} units) are not matched.")
    ok = np.isfinite(a) & np.isfinite(b)
    d = a[ok] - b[ok]
    n = int(d.shape[0])
    out = {"n_units": n, "mean_diff": float(d.mean()) if n else float("nan"),
           "ci_low": float("nan"), "ci_high": float("nan"), "t_p": float("nan"),
           "wilcoxon_p": float("nan"), "wins": int(np.sum(d > 0)), "confidence": confidence}
    if n < 2:
        return out
    if np.all(d == d[0]):  # no variation: the difference is certain (or exactly zero)
        p = 1.0 if d[0] == 0 else 0.0
        out.update(ci_low=float(d[0]), ci_high=float(d[0]), t_p=p, wilcoxon_p=p)
        return out
    out["t_p"] = float(stats.ttest_rel(a[ok], b[ok]).pvalue)
    nz = d[d != 0]
    if nz.shape[0] >= 1:
        method = "exact" if nz.shape[0] <= 50 and np.unique(np.abs(nz)).shape[0] == \
            nz.shape[0] else "auto"
        out["wilcoxon_p"] = float(stats.wilcoxon(nz, method=method).pvalue)
    rng = np.random.default_rng(random_state)
    boot = d[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)
    tail = 100.0 * (1.0 - confidence) / 2.0
    out["ci_low"], out["ci_high"] = (float(v) for v in np.percentile(boot, [tail, 100 - tail]))
    return out


def welch_greater(a: ArrayLike, b: ArrayLike) -> float:
    """One-sided Welch t-test p-value of mean(a) > mean(b), for unmatched units.

    For two methods run on different numbers of independent units (e.g. 10 initial pools
    against 5), where no pairing exists. NaN with fewer than two units on a side; two
    constant samples give 0 when mean(a) > mean(b), else 1.

    Parameters
    ----------
    a, b : array-like of float
        One number per unit of each method (any lengths).

    Returns
    -------
    p : float

    Examples
    --------
    >>> from birank.experiments._stats import welch_greater
    >>> round(welch_greater([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]), 4)
    0.0371
    """
    import warnings

    from scipy import stats

    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    if np.std(a) == 0 and np.std(b) == 0:
        return 0.0 if a.mean() > b.mean() else 1.0
    with warnings.catch_warnings():  # nearly equal samples: scipy warns, p is still fine
        warnings.simplefilter("ignore", RuntimeWarning)
        p = stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue
    return 1.0 if np.isnan(p) else float(p)


def relation(result: Mapping[str, Any], *, alpha: float = 0.05) -> str:
    """``'>'``/``'<'`` when the paired t-test rejects at ``alpha`` (by the sign), else ``'~'``.

    Parameters
    ----------
    result : dict
        From :func:`paired_comparison`.
    alpha : float, default=0.05
        The level of the test.

    Returns
    -------
    relation : {'>', '<', '~'}

    Examples
    --------
    >>> from birank.experiments._stats import paired_comparison, relation
    >>> relation(paired_comparison([1.0, 2, 3, 4, 5], [0.0, 0, 0, 0, 0]))
    '>'
    >>> relation(paired_comparison([1.0, 2, 3, 4, 5], [0.0, 0, 0, 0, 0]), alpha=0.01)
    '~'
    """
    p = result["t_p"]
    if not np.isfinite(p) or p >= alpha:
        return "~"
    return ">" if result["mean_diff"] > 0 else "<"


def _p(p):
    return "n/a" if not np.isfinite(p) else (f"{p:.1e}" if p < 1e-3 else f"{p:.3f}")


def format_comparison(result: Mapping[str, Any], *, digits: int = 4) -> str:
    """``+0.0102 [+0.0031, +0.0170] (t p 0.012, W p 0.062)`` for a table cell.

    Parameters
    ----------
    result : dict
        From :func:`paired_comparison`.
    digits : int, default=4
        Digits after the decimal point of the difference and its interval.

    Returns
    -------
    cell : str
        The mean difference, its bootstrap interval and the two p-values (the
        difference and the number of units when there is no interval).

    Examples
    --------
    >>> from birank.experiments._stats import format_comparison, paired_comparison
    >>> format_comparison(paired_comparison([1.0, 2, 3, 4, 5], [0.0, 0, 0, 0, 0]), digits=2)
    '+3.00 [+1.80, +4.20] (t p 0.013, W p 0.062)'
    >>> format_comparison(paired_comparison([1.0], [0.0]))
    '+1.0000 (n = 1)'
    """
    f = f"{{:+.{digits}f}}"
    diff = f.format(result["mean_diff"])
    if not np.isfinite(result["ci_low"]):
        return f"{diff} (n = {result['n_units']})"
    return (f"{diff} [{f.format(result['ci_low'])}, {f.format(result['ci_high'])}] "
            f"(t p {_p(result['t_p'])}, W p {_p(result['wilcoxon_p'])})")
