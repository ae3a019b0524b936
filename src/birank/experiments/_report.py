"""Output helpers shared by the reproductions: JSON, markdown tables, PNG figures."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

import numpy as np

__all__ = ["default_data_dir", "write_json", "markdown_table", "mean_std", "format_mean_std", "new_figure",
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


def write_json(path, obj):
    """Write ``obj`` (numpy values allowed) as indented JSON, atomically."""
    return _atomic_write(path, json.dumps(_jsonable(obj), indent=2, sort_keys=False) + "\n")


def write_text(path, text):
    """Write text atomically (markdown reports)."""
    return _atomic_write(path, text)


def markdown_table(headers, rows, align=None):
    """A GitHub markdown table; cells are converted with ``str``."""
    align = align or ["l"] + ["r"] * (len(headers) - 1)
    sep = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(map(str, headers)) + " |",
             "| " + " | ".join(sep[a] for a in align) + " |"]
    lines += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def mean_std(values):
    """Mean and sample-free (ddof=0) standard deviation of a list, NaN for empty."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return float("nan"), float("nan")
    return float(v.mean()), float(v.std())


def format_mean_std(values, digits=4):
    m, s = mean_std(values)
    if np.isnan(m):
        return "n/a"
    return f"{m:.{digits}f} ± {s:.{digits}f}" if len(values) > 1 else f"{m:.{digits}f}"


def check_plotting(purpose):
    """Refuse, before any work, a run that will draw when matplotlib is not installed.

    Raises a :class:`~birank.exceptions.UserError` naming the extra to install (the
    command line: one line, exit 2), instead of an ImportError once the run is done.
    ``purpose``: what draws, for the message (e.g. ``"birank demo's figure"``)."""
    from .._extras import require
    from ..exceptions import UserError

    try:
        require("matplotlib", purpose)
    except ImportError as exc:
        raise UserError(f"{exc} Nothing was run.") from None


def new_figure(n_panels=1, ncols=None, size=3.2):
    """A matplotlib figure on the Agg backend with ``n_panels`` axes (flattened)."""
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


def save_figure(fig, path):
    """Save as PNG (creating the folder) and close the figure."""
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


def run_metadata():
    """Where and when a result was produced (stored beside the numbers)."""
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


def default_data_dir():
    """The birank data folder ($BIRANK_DATA or ~/.cache/birank): ``--data-dir``'s default."""
    from ..datasets import get_data_home

    return get_data_home()


def missing_data_error(missing, advice):
    """The one refusal of a reproduction whose data sets are missing, before any work:
    ``missing`` is ``[(name, how to get it)]``, ``advice`` what to pass instead."""
    from ..exceptions import UserError

    return UserError("data not found for " + "; ".join(f"{n} ({how})" for n, how in missing)
                     + ". " + advice)
