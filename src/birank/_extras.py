"""Optional dependencies: imported when a function needs them, with the pip extra named.

The core install is numpy, scipy, scikit-learn and numba. Figures need
matplotlib (``pip install "birank[plot]"``), downloads need pooch
(``pip install "birank[fetch]"``); ``birank[all]`` installs both.
"""

from __future__ import annotations

import importlib

__all__ = ["EXTRAS", "require"]

#: top-level module -> the pip extra that installs it
EXTRAS = {"matplotlib": "plot", "pooch": "fetch", "requests": "fetch"}


def require(module, purpose):
    """Import ``module`` (e.g. ``"matplotlib.pyplot"``) or raise an ImportError naming the extra.

    Parameters
    ----------
    module : str
    purpose : str
        What needs it, for the message (e.g. ``"drawing figures"``).
    """
    top = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        extra = EXTRAS[top]
        raise ImportError(
            f"{purpose} needs the optional package {top!r}, which is not installed. "
            f'Install it with: pip install "birank[{extra}]" (or "birank[all]").') from exc
