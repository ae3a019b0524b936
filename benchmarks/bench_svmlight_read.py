"""Reading LIBSVM text: birank's reader against scikit-learn's ``load_svmlight_file``.

The same bytes, in memory (no disk in the timing), parsed alternately by
``birank.datasets.load_svmlight_bytes`` (its compiled one-pass reader,
``birank._kernels.svmlight_text``, with the line-by-line parser as the reference
for anything unusual) and by scikit-learn's parser (what birank used before, and
still falls back to), medians of ``--repeat`` wall times; the ratio is birank /
scikit-learn. Both results are checked equal (rows, columns, value bits, labels).

Texts: the bundled a9a; generated sparse rows (12 a row, 4 decimals; ``--mb``
MiB); the same rows with every value printed in full (``repr``: 17 significant
digits, as ``dump_svmlight`` writes them: the kernel's 128-bit path); and with ``--data-home`` w8a and MQ2008 S1 (``S1.txt``,
46 dense features, ``qid:`` and a comment a line).

``--file PATH`` instead times reading a file from disk, ``birank.datasets.load_svmlight``
(a plain file a block at a time) against scikit-learn's ``load_svmlight_file`` and
against ``load_svmlight`` reading the text whole (as before the block reader), and the
commands' reader (``birank train/predict/evaluate``) block by block against the same
with the text read whole, and ``load_svmlight(n_jobs=2)`` against one thread, each
run in a fresh Python process (alternating, ``--repeat`` times) so that its peak
memory (``ru_maxrss``) is its own: medians of wall time and of peak memory, and
their ratios.

Usage::

    python benchmarks/bench_svmlight_read.py [--mb 32] [--repeat 5] [--data-home PATH]
    python benchmarks/bench_svmlight_read.py --file PATH [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import lzma
import time
from importlib import resources

import numpy as np


def _sparse_text(target_bytes, full, seed=0):
    rng = np.random.default_rng(seed)
    blocks, size = [], 0
    fmt = repr if full else (lambda v: f"{v:.4f}")
    while size < target_bytes:
        idx = np.cumsum(rng.integers(1, 40, size=(5000, 12)), axis=1)
        val = rng.random((5000, 12))
        block = "".join(f"{i % 2 * 2 - 1} " + " ".join(f"{j}:{fmt(float(v))}"
                                                        for j, v in zip(r, w)) + "\n"
                        for i, (r, w) in enumerate(zip(idx, val)))
        blocks.append(block)
        size += len(block)
    return "".join(blocks).encode()


def _texts(args):
    from birank.datasets._locate import find_data_file

    bundled = resources.files("birank.datasets") / "data" / "a9a.xz"
    yield "a9a (bundled)", lzma.decompress(bundled.read_bytes())
    yield f"generated, 4 decimals ({args.mb:g} MiB)", _sparse_text(int(args.mb * 2**20), False)
    yield (f"generated, values in full ({args.mb:g} MiB)",
           _sparse_text(int(args.mb * 2**20), True))
    if args.data_home is not None:
        for name, parts in (("w8a", ("w8a/w8a",)),
                            ("MQ2008 S1", ("MQ2008/S1.txt",))):
            path = find_data_file(args.data_home, *parts)
            if path is None:
                print(f"{name}: not under {args.data_home}, skipped")
                continue
            with open(path, "rb") as fh:
                yield name, fh.read()


_ONE_FILE = """
import resource, sys, time
path, who = sys.argv[1], sys.argv[2]
if who == "sklearn":
    from sklearn.datasets import load_svmlight_file as load
elif who.startswith("cli"):  # the commands' reader (train, predict, evaluate)
    from birank.cli._common import read_data as load
    from birank.datasets import _formats
    if who == "cli-whole":  # the text read whole, then parsed (before the block reader)
        _formats.plain_libsvm_file = lambda *args: False
else:
    from functools import partial
    from birank.datasets import _svmlight, load_svmlight as load
    if who == "whole":  # the text read whole, then parsed (before the block reader)
        _svmlight._load_plain_file = lambda *args: None
    elif who == "threads":  # the pieces on two threads
        load = partial(load, n_jobs=2)
t0 = time.perf_counter()
X = load(path)[0]
print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, X.nnz)
"""


def _from_disk(path, repeat):
    """load_svmlight (a block at a time), load_svmlight with the text read whole, and
    scikit-learn's load_svmlight_file on one file, each in a fresh process."""
    import subprocess
    import sys

    runs = {"birank": [], "whole": [], "sklearn": [], "cli": [], "cli-whole": [],
            "threads": []}
    for _ in range(repeat):
        for who in runs:
            out = subprocess.run([sys.executable, "-c", _ONE_FILE, path, who], check=True,
                                 capture_output=True, text=True).stdout.split()
            runs[who].append((float(out[0]), int(out[1]) / 1024, int(out[2])))
    (tb, mb, nb), (tw, mw, nw), (ts, ms, ns), (tc, mc, nc), (tcw, mcw, ncw), (tt, mt, nt) = (
        np.median(np.array(runs[k]), axis=0) for k in runs)
    print(f"{path}: medians of {repeat} fresh processes each, alternating; load_svmlight "
          f"{tb:.2f} s, peak {mb:,.0f} MiB; scikit-learn {ts:.2f} s, peak {ms:,.0f} MiB: "
          f"ratio time {tb / ts:.3f}, peak memory {mb / ms:.3f}; same entries: {nb == ns}",
          flush=True)
    print(f"  the text read whole, then parsed (before the block reader): {tw:.2f} s, peak "
          f"{mw:,.0f} MiB; load_svmlight / that: time {tb / tw:.3f}, peak memory {mb / mw:.3f}; "
          f"same entries: {nb == nw}", flush=True)
    print(f"  the commands' reader (birank train/predict/evaluate): {tc:.2f} s, peak "
          f"{mc:,.0f} MiB; with the text read whole: {tcw:.2f} s, peak {mcw:,.0f} MiB; ratio time "
          f"{tc / tcw:.3f}, peak memory {mc / mcw:.3f}; same entries: {nc == ncw == nb}",
          flush=True)
    print(f"  load_svmlight(n_jobs=2), the pieces on two threads: {tt:.2f} s, peak {mt:,.0f} "
          f"MiB; ratio to one thread: time {tt / tb:.3f}, peak memory {mt / mb:.3f}; same "
          f"entries: {nt == nb}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=32.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data-home", default=None)
    ap.add_argument("--file", default=None, help="time reading this file from disk instead")
    args = ap.parse_args(argv)
    if args.file is not None:
        _from_disk(args.file, args.repeat)
        return
    from sklearn.datasets import load_svmlight_file

    from birank.datasets._svmlight import load_svmlight_bytes

    print(f"medians of {args.repeat} alternating runs, wall time; ratio = birank / scikit-learn")
    for name, data in _texts(args):
        qid = b"qid:" in data[:10000]

        def ours():
            return load_svmlight_bytes(data)

        def theirs():
            return load_svmlight_file(io.BytesIO(data), query_id=qid)

        a, b = ours(), theirs()  # warm (and the check: the same matrix, labels, groups)
        Xb = b[0].tocsr()
        Xb.resize(a[0].shape)
        same = ((a[0] != Xb).nnz == 0 and a[1].tobytes() == b[1].tobytes()
                and (not qid or (a[2] == b[2]).all()))
        times = {"birank": [], "sklearn": []}
        for _ in range(args.repeat):
            for key, fn in (("birank", ours), ("sklearn", theirs)):
                t0 = time.perf_counter()
                fn()
                times[key].append(time.perf_counter() - t0)
        tb, ts = (float(np.median(times[k])) for k in ("birank", "sklearn"))
        mib = len(data) / 2**20
        print(f"{name}: {mib:.1f} MiB, {a[0].shape[0]:,} rows; birank {tb:.3f} s "
              f"({mib / tb:.0f} MiB/s), scikit-learn {ts:.3f} s ({mib / ts:.0f} MiB/s): "
              f"ratio {tb / ts:.3f}; same result: {same}", flush=True)


if __name__ == "__main__":
    main()
