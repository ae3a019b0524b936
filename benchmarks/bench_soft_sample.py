"""ActiveRankSVM's soft sampling against the loop it replaced, on the rounds of a real fit.

``ActiveRankSVM`` (soft strategies) scores the rows of drawn candidates in
``_kernels.soft_sample.soft_sample``. Its loop reads the rows in place, one loop per
layout (``sparse_rows.split_rows``), and the fit passes a CSR X of 0/1 values without
them (``kernel_rows(X, indicator=True)``, checked once per fit), so those values are not
read. Before, it scored each candidate through the layout-dispatched
``sparse_rows.row_dot_w`` on the values as stored. The reference below is that loop, line
for line.

The script fits ``ActiveRankSVM(budget=8000, random_state=0)`` once, records the
arguments of every sampling round, then replays all the rounds, alternating and
``--repeat`` times, with:

* ``before``: the reference loop on the rows as the fit passed them before (the values
  read);
* ``loops``: the kernel on the same rows;
* ``now``: the kernel on the rows as the fit passes them now (0/1 values not read, when
  every stored value is 1).

It prints the median CPU time of all the rounds for each, the ratios to ``before``, and
whether every round gave the same accepted ids, probabilities and counts (it must: the
scores are the same sums in the same order). ``--layout dense`` replays on the dense
array instead (no values are skipped there). Data: a9a (bundled, or ``--a9a PATH``) and,
with ``--w8a PATH``, w8a too.

Usage::

    python benchmarks/bench_soft_sample.py [--a9a PATH/a9a] [--w8a PATH/w8a]
                                           [--layout csr|dense] [--repeat 7]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from birank._kernels.id_set import new_table, slot
from birank._kernels.soft_sample import _BLOCK, _rand_below, _rows_of, accept_p
from birank._kernels.sparse_rows import rng_init, rng_uniform, row_dot_w


@njit(inline="always")
def _score_before(X, w, intercept, r):
    if r < 0:
        return 0.0
    return row_dot_w(X, w, r) + intercept


@njit  # (compiled in the first, untimed replay)
def soft_sample_before(X, w, intercept, pos, neg, y01, n_pair, lo, hi, gamma, code, chosen,
                       need, max_draws, seed):
    """``soft_sample`` as it was: each candidate scored through ``row_dot_w``."""
    state = rng_init(seed)
    ids = np.empty(need, dtype=np.int64)
    ps = np.empty(need)
    accepted = new_table(need)
    cand = np.empty(_BLOCK, dtype=np.int64)
    marg = np.empty(_BLOCK)
    n = hi - lo
    got = 0
    n_rej = 0
    n_drawn = 0
    attempts = 0
    while got < need:
        k = 0
        while k < _BLOCK and attempts < max_draws:
            attempts += 1
            item = lo + _rand_below(state, n)
            if chosen[slot(chosen, item)] != item:
                cand[k] = item
                k += 1
        if k == 0:
            return ids[:got], ps[:got], n_rej, n_drawn, True
        for t in range(k):
            a, b = _rows_of(cand[t], pos, neg, y01, n_pair)
            marg[t] = _score_before(X, w, intercept, a) - _score_before(X, w, intercept, b)
        for t in range(k):
            item = cand[t]
            h = slot(accepted, item)
            if accepted[h] == item:
                continue
            n_drawn += 1
            p = accept_p(marg[t], code)
            big_gamma = gamma if item < n_pair else 1.0 - gamma
            if rng_uniform(state) < big_gamma * p:
                accepted[h] = item
                ids[got] = item
                ps[got] = p
                got += 1
                if got == need:
                    break
            else:
                n_rej += 1
    return ids, ps, n_rej, n_drawn, False


def _record_rounds(X, y):
    """The arguments of every soft-sampling round of one ActiveRankSVM fit (the rows
    argument first, as the fit passed it)."""
    import birank.batch._active_sampling as sampling
    from birank import ActiveRankSVM

    rounds = []
    kernel = sampling.soft_sample

    def record(*args):
        rounds.append(tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        return kernel(*args)

    sampling.soft_sample = record
    try:
        ActiveRankSVM(budget=8000, random_state=0).fit(X, y)
    finally:
        sampling.soft_sample = kernel
    return rounds


def _replay(fn, rows, rounds):
    return [fn(rows, *r[1:]) for r in rounds]


def _same(a, b):
    return all(np.asarray(u).tobytes() == np.asarray(v).tobytes()
               for ra, rb in zip(a, b) for u, v in zip(ra, rb))


def run(name, X, y, repeat):
    import scipy.sparse as sp

    from birank._kernels.soft_sample import soft_sample
    from birank._validation import as_csr_or_dense, kernel_rows

    X = as_csr_or_dense(X)
    rounds = _record_rounds(X, y)
    now = rounds[0][0]  # what the fit passes now
    values = kernel_rows(X)  # the same rows with their values, as the fit passed them before
    skipped = sp.issparse(X) and now[0] is None
    calls = {"before": (soft_sample_before, values), "loops": (soft_sample, values),
             "now": (soft_sample, now)}
    results = {k: _replay(fn, rows, rounds) for k, (fn, rows) in calls.items()}
    same = all(_same(results["before"], r) for r in results.values())
    times = {k: [] for k in calls}
    for _ in range(repeat):
        for k, (fn, rows) in calls.items():
            t0 = time.process_time()
            _replay(fn, rows, rounds)
            times[k].append(time.process_time() - t0)
    med = {k: float(np.median(v)) for k, v in times.items()}
    layout = "CSR" if sp.issparse(X) else "dense"
    print(f"{name} ({layout}, {len(rounds)} rounds, 0/1 values "
          f"{'not read' if skipped else 'read'} now): before {1e3 * med['before']:.1f} ms, "
          f"loops {1e3 * med['loops']:.1f} ms ({med['loops'] / med['before']:.2f}x), "
          f"now {1e3 * med['now']:.1f} ms ({med['now'] / med['before']:.2f}x); "
          f"same draws: {same}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a9a", default=None, help="path of the a9a file (default: bundled)")
    ap.add_argument("--w8a", default=None, help="path of the w8a file (skipped without)")
    ap.add_argument("--layout", choices=["csr", "dense"], default="csr")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)

    from birank.datasets import load_a9a, load_svmlight

    sets = [("a9a", *(load_svmlight(args.a9a) if args.a9a else load_a9a(subset="train")))]
    if args.w8a:
        sets.append(("w8a", *load_svmlight(args.w8a)))
    print(f"medians of {args.repeat} alternating replays (CPU time); ratio = x / before")
    for name, X, y in sets:
        if args.layout == "dense":
            X = X.toarray()
        run(name, X, y, args.repeat)


if __name__ == "__main__":
    main()
