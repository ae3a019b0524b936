"""A memory estimate checked before a fit allocates dense vectors of ``n_features``.

A LIBSVM line ``1 2147483646:0.5`` makes a two-row file with two billion
features; every linear fit then holds a few dense float64 vectors that long
(coefficients, gradient, work vectors) and the process is OOM-killed without a
word. One estimate, before allocating, turns that into a clear error.
"""

from __future__ import annotations

import os

__all__ = ["DENSE_VECTORS", "available_memory", "check_feature_memory"]

#: dense float64 vectors of n_features a fit may hold at once (w, gradient, work vectors)
DENSE_VECTORS = 4


def available_memory():
    """Bytes of memory available (MemAvailable, else physical memory); None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_feature_memory(n_features, where="", hint=""):
    """Raise ``ValueError`` when :data:`DENSE_VECTORS` float64 vectors of ``n_features``
    exceed the available memory (cheap for every realistic width: no scan, no allocation).

    ``where`` prefixes the message (a file and line, an estimator name).
    """
    need = DENSE_VECTORS * 8 * int(n_features)
    if need < 1 << 28:  # under 256 MiB: never worth reading /proc
        return
    avail = available_memory()
    if avail is not None and need > avail:
        raise ValueError(
            f"{where}{n_features} features; they need about {need / 2**30:.1f} GiB of dense "
            f"vectors, more than the {avail / 2**30:.1f} GiB available{hint}; remap or hash "
            "the feature indices to a smaller range")
