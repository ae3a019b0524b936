"""Output helpers shared by the reproductions: JSON, markdown tables, PNG figures."""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import FloatArray, StrPath

__all__ = ["write_json", "markdown_table", "mean_std", "format_mean_std", "new_figure",
           "save_figure", "run_metadata", "write_text", "check_plotting"]


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    return obj


def _atomic_write(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return path


def write_json(path: StrPath, obj: object) -> Path:
    """Write ``obj`` (numpy values allowed) as indented JSON, atomically.

    Dict keys become strings, numpy arrays lists, numpy scalars Python numbers and
    non-finite floats ``null``; the folder is created.

    Parameters
    ----------
    path : str or os.PathLike
        The file (replaced as a whole: written beside it, then renamed).
    obj : object
        What to write.

    Returns
    -------
    path : pathlib.Path

    Examples
    --------
    >>> import json, os, tempfile
    >>> import numpy as np
    >>> from birank.experiments._report import write_json
    >>> path = write_json(os.path.join(tempfile.mkdtemp(), "r.json"),
    ...                   {"auc": np.float64(0.9), 1: [np.nan]})
    >>> json.loads(path.read_text())
    {'auc': 0.9, '1': [None]}
    """
    return _atomic_write(path, json.dumps(_jsonable(obj), indent=2, sort_keys=False) + "\n")


def write_text(path: StrPath, text: str) -> Path:
    """Write text atomically (markdown reports); the folder is created.

    Parameters
    ----------
    path : str or os.PathLike
        The file (replaced as a whole: written beside it, then renamed).
    text : str

    Returns
    -------
    path : pathlib.Path

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.experiments._report import write_text
    >>> write_text(os.path.join(tempfile.mkdtemp(), "sub", "r.md"), "# Results\\n").read_text()
    '# Results\\n'
    """
    return _atomic_write(path, text)


def markdown_table(headers: Sequence[object], rows: Iterable[Sequence[object]], *,
                   align: Sequence[str] | None = None) -> str:
    """A GitHub markdown table; cells are converted with ``str``.

    Parameters
    ----------
    headers : sequence
        The column titles.
    rows : iterable of sequences
        The rows, one cell per column.
    align : sequence of {"l", "r", "c"}, default=None
        Alignment of each column; None: the first left, the others right.

    Returns
    -------
    table : str
        The lines of the table, each ended by a newline.

    Examples
    --------
    >>> from birank.experiments._report import markdown_table
    >>> print(markdown_table(["data", "AUC"], [["heart", 0.91]]), end="")
    | data | AUC |
    | :--- | ---: |
    | heart | 0.91 |
    """
    align = align or ["l"] + ["r"] * (len(headers) - 1)
    sep = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(map(str, headers)) + " |",
             "| " + " | ".join(sep[a] for a in align) + " |"]
    lines += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def mean_std(values: ArrayLike) -> tuple[float, float]:
    """Mean and sample-free (ddof=0) standard deviation of a list, NaN for empty.

    Parameters
    ----------
    values : array-like of float

    Returns
    -------
    mean, std : float

    Examples
    --------
    >>> from birank.experiments._report import mean_std
    >>> mean_std([1.0, 3.0]), mean_std([])
    ((2.0, 1.0), (nan, nan))
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return float("nan"), float("nan")
    return float(v.mean()), float(v.std())


def format_mean_std(values: Sequence[float] | FloatArray, *, digits: int = 4) -> str:
    """``mean ± std`` of ``values`` for a table cell (the mean alone for one value).

    Parameters
    ----------
    values : sequence of float
    digits : int, default=4
        Digits after the decimal point.

    Returns
    -------
    cell : str
        ``"n/a"`` for no values.

    Examples
    --------
    >>> from birank.experiments._report import format_mean_std
    >>> format_mean_std([0.9, 0.8]), format_mean_std([0.9], digits=2), format_mean_std([])
    ('0.8500 ± 0.0500', '0.90', 'n/a')
    """
    m, s = mean_std(values)
    if np.isnan(m):
        return "n/a"
    return f"{m:.{digits}f} ± {s:.{digits}f}" if len(values) > 1 else f"{m:.{digits}f}"


def check_plotting(purpose: str) -> None:
    """Refuse, before any work, a run that will draw when matplotlib is not installed.

    Raises a :class:`~birank.exceptions.UserError` naming the extra to install (the
    command line: one line, exit 2), instead of an ImportError once the run is done.

    Parameters
    ----------
    purpose : str
        What draws, for the message (e.g. ``"birank demo's figure"``).

    Raises
    ------
    birank.exceptions.UserError
        matplotlib cannot be imported.

    Examples
    --------
    >>> from birank.experiments._report import check_plotting
    >>> check_plotting("the report's figure")  # (matplotlib is installed: nothing happens)
    """
    from .._extras import require
    from ..exceptions import UserError

    try:
        require("matplotlib", purpose)
    except ImportError as exc:
        raise UserError(f"{exc} Nothing was run.") from None


def new_figure(n_panels: int = 1, *, ncols: int | None = None, size: float = 3.2,
               ) -> tuple[Any, Any]:
    """A matplotlib figure on the Agg backend with ``n_panels`` axes (flattened).

    Parameters
    ----------
    n_panels : int, default=1
        Number of axes; the grid's unused cells are hidden.
    ncols : int, default=None
        Columns of the grid; None: ``min(n_panels, 3)``.
    size : float, default=3.2
        Height of a panel in inches (its width is 1.25 times that).

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : ndarray of matplotlib.axes.Axes of shape (n_panels,)

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.experiments._report import new_figure, save_figure
    >>> fig, axes = new_figure(2)
    >>> _ = axes[0].plot([0, 1], [0, 1])
    >>> save_figure(fig, os.path.join(tempfile.mkdtemp(), "fig.png")).name
    'fig.png'
    """
    from .._extras import require

    matplotlib = require("matplotlib", "Drawing figures")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    ncols = ncols or min(n_panels, 3)
    nrows = int(np.ceil(n_panels / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols * 1.25, size * nrows),
                             squeeze=False)
    axes = axes.ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


#: set by ``birank reproduce --quick``: every figure saved is stamped as a quick run
QUICK_MARK = None
#: set by `birank reproduce` while a run writes into its staging folder: the files are
#: moved (and renamed for --quick) afterwards, and the command then says where they went
STAGED = False


def say_written(paths):
    """``wrote ...`` on standard output for a run called directly; nothing when
    `birank reproduce` stages the run (its paths would name a temporary folder)."""
    if not STAGED:
        print(f"wrote {', '.join(str(p) for p in paths)}")


def save_figure(fig: Any, path: StrPath) -> Path:
    """Save as PNG (creating the folder) and close the figure.

    A run of ``birank reproduce --quick`` stamps the figure as a quick run.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        From :func:`new_figure`.
    path : str or os.PathLike
        The PNG file.

    Returns
    -------
    path : pathlib.Path

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.experiments._report import new_figure, save_figure
    >>> fig, axes = new_figure()
    >>> save_figure(fig, os.path.join(tempfile.mkdtemp(), "fig.png")).suffix
    '.png'
    """
    from .._extras import require

    plt = require("matplotlib.pyplot", "Saving figures")

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    if QUICK_MARK:
        fig.text(0.995, 0.005, QUICK_MARK, ha="right", va="bottom", fontsize=9,
                 color="crimson", weight="bold")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def run_metadata() -> dict[str, Any]:
    """Where and when a result was produced (stored beside the numbers).

    Returns
    -------
    metadata : dict
        The versions of birank, Python, numpy, scipy, scikit-learn and numba, the
        machine, its number of CPUs and the date.

    Examples
    --------
    >>> from birank.experiments._report import run_metadata
    >>> sorted(run_metadata())[:3]
    ['birank', 'cpus', 'date']
    """
    import numba
    import scipy
    import sklearn

    from .. import __version__

    return {
        "birank": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "numba": numba.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def missing_data_error(missing, advice):
    """The one refusal of a reproduction whose data sets are missing, before any work:
    ``missing`` is ``[(name, how to get it)]``, ``advice`` what to pass instead."""
    from ..exceptions import UserError

    return UserError("data not found for " + "; ".join(f"{n} ({how})" for n, how in missing)
                     + ". " + advice)
