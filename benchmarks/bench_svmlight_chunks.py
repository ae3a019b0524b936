"""Cost of interruptible LIBSVM parsing: chunks of CHUNK_BYTES vs one pass.

Parses the same in-memory text (generated, sparse, like a9a/news20 rows) with
the default chunk size and as a single chunk (the uninterruptible parse the
reader did before chunking), in the same process, median of ``--repeats``; prints the ratio.

    PYTHONPATH=src python benchmarks/bench_svmlight_chunks.py [--mb 64] [--quick]
"""

import argparse
import statistics
import time

import numpy as np

from birank.datasets import _svmlight


def make_text(target_bytes, seed=0):
    rng = np.random.default_rng(seed)
    lines, size = [], 0
    while size < target_bytes:
        n = 5000
        idx = np.cumsum(rng.integers(1, 40, size=(n, 12)), axis=1)
        val = rng.random((n, 12))
        block = "\n".join(f"{i % 2 * 2 - 1} " + " ".join(f"{j}:{v:.4f}" for j, v in zip(r, w))
                          for i, (r, w) in enumerate(zip(idx, val))) + "\n"
        lines.append(block)
        size += len(block)
    return "".join(lines).encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=64.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="8 MB, 3 repeats")
    args = parser.parse_args()
    mb = 8.0 if args.quick else args.mb
    data = make_text(int(mb * (1 << 20)))
    _svmlight.load_svmlight_bytes(data[:1 << 20], name="warm-up")
    times = {"one chunk (the unchunked reader)": [], f"chunks of {_svmlight.CHUNK_BYTES >> 20} MiB": []}
    for _ in range(args.repeats):
        for name, size in zip(times, (len(data), None)):
            t0 = time.perf_counter()
            X, y, _ = _svmlight.load_svmlight_bytes(data, name="bench", chunk_bytes=size)
            times[name].append(time.perf_counter() - t0)
    print(f"{len(data) / (1 << 20):.1f} MiB, {X.shape[0]} rows, nnz {X.nnz}; median of "
          f"{args.repeats}")
    meds = {k: statistics.median(v) for k, v in times.items()}
    for name, med in meds.items():
        print(f"  {name:<32} {med:7.3f} s  ({len(data) / (1 << 20) / med:6.1f} MiB/s)")
    one, chunked = meds.values()
    print(f"  chunked / one chunk: {chunked / one:.3f}")


if __name__ == "__main__":
    main()
