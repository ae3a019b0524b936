"""RankSVM's Hessian product and loss + gradient against the memory-bandwidth limit.

Every exact method must read X at least twice per Newton step (the scores
``X v`` and the gradient ``X' u``). This prints, in one process and on the
same data, the time of RankSVM's Hessian-vector product
(``PairObjective.hess_vec``: ``X v``, the pair sweep, ``X' h``) and of its
loss + gradient (``fun_grad``: ``X w``, the sort, the sweep, ``X' g``) as a
ratio of the two bare sparse products ``X v`` + ``X' u`` (scipy, float64 CSR;
timed alternately with the RankSVM calls, medians of CPU time). Targets:
binary labels <= 1.3 (Hv) and <= 1.8 (loss + gradient), real-valued labels
<= 2.0 and <= 3.0.

Data: ``make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20)``; real-valued labels
``y + 0.5 U(0, 1)`` (all distinct). w is a point near the optimum's scale
(one Newton step from 0 is not needed: the sweep's cost does not depend on
how many pairs are active beyond the pointer walks, which this w exercises).

Usage::

    python benchmarks/bench_limit.py [--rows 1e5 1e6] [--repeat 7] [--parts] [--floor] [--bounds]
                                     [--heads]

``--parts`` also prints each part (sort, sweep, Hessian sweep) as a ratio. (One
group of two labels sorts only the upper rows' thresholds, inside the sweep
(:mod:`birank._kernels.threshold_sweep`): there "sort+sweep" and "sweep" time
the same call.)

``--floor`` (real-valued labels) also prints what the running sums alone cost,
as ratios of the bare products: the many-label loss sweep makes, per row and
per level of digits (one level of up to 17 bits, else levels of up to 10), one
insertion and one prefix query in each of its two passes, on Fenwick trees;
the Hessian product makes the same on its prefix sums (one column). A loop
doing only those, on random digits in structures of the sweeps' sizes and with
no other memory traffic, is a lower bound of each design. (Its Fenwick walks run
their full length, the fastest alone; inside the sweep, between the pointer
walk's exits, stopping them early is faster: ``--heads``.)

``--bounds`` (real-valued labels) also prints both sweeps with a regular
interleave of insertions and queries, as ratios of the bare products: exactly one
insertion before each query, so that the walks' data-dependent exits (a
mispredicted branch each) cost nothing. The Hessian replay reads a copy of the
level cache whose pointers are t and t + 1. The sort + loss sweep runs at margin
theta = 0 on a second objective (the sweep's work per row is the same, and the
first objective's active set is not touched). Each is a bound on what any way
of scheduling the walks could save.

``--heads`` (real-valued labels) also times both passes of the loss sweep's first
level of digits (all of it with one level) with its Fenwick walks running a given
number of steps unconditionally before they stop where they end
(``pair_sweep._fen_head``): every walk's full length (the layout before stop 42),
8, none, and the default, as ratios of the bare products, checking that every
head gives the same loss bits.
"""

from __future__ import annotations

import argparse

import numpy as np

from _timing import CPU, medians  # (benchmarks/_timing.py)


def _floors(n, nlab, n_levels):
    """Two callables doing only the running sums of the many-label sweeps on n rows
    (``n_levels``: the objective's level cache): the loss sweep's Fenwick walks, the
    Hessian replay's prefix sums (one column)."""
    from numba import njit

    from birank._kernels.pair_sweep import (_acc_add, _acc_below, _acc_empty, _bit_length,
                                            _digit_bits, _fen_add, _fen_below)

    levels, bits = _digit_bits(nlab, n_levels)
    digits = np.random.default_rng(3).integers(0, 1 << bits, size=(levels, n))

    @njit  # (a closure: not cached; compiled before the timing)
    def sums(digits, bits, fenwick):
        radix = 1 << bits
        acc = _acc_empty(bits + 1)  # aligned, and room for a Fenwick tree of 2^bits digits
        # every walk at its full length: alone, with no pointer walk between them, the
        # walks are cheapest so (the sweep stops them early, --heads)
        head = _bit_length(radix)
        tot = 0.0
        for level in range(digits.shape[0]):
            d = digits[level]
            for p in range(2):  # the two passes
                acc[:] = 0.0
                for t in range(d.shape[0]):
                    q = d[d.shape[0] - 1 - t]
                    if fenwick:
                        _fen_add(acc, radix, head, d[t], 1.0)
                        tot += _fen_below(acc, head, q)
                    else:
                        _acc_add(acc, bits, d[t], 1.0)
                        tot += _acc_below(acc, bits, q)
        return tot

    sums(digits, bits, True)
    sums(digits, bits, False)
    return (lambda: sums(digits, bits, True)), (lambda: sums(digits, bits, False)), levels, bits


def _head_passes(obj, s):
    """Callables timing the loss sweep's two passes over the first level's nodes of
    digits with each head (unconditional steps of the Fenwick walks), and the heads."""
    from numba import njit

    from birank._kernels.losses import SQUARED_HINGE
    from birank._kernels.pair_sweep import (FEN_HEAD_STEPS, LV_LABEL, _bit_length, _digit_bits,
                                            _fen_head, _fen_rows, _loss_node, _node_end)

    levels, bits = _digit_bits(int(obj.nlab.max()), len(obj.levels))
    shift = bits * (levels - 1)
    cs = np.ascontiguousarray(s[obj.order])
    cl = np.ascontiguousarray(obj.levels[0, LV_LABEL])
    ptrs = np.empty_like(cl)
    acc = np.empty((_fen_rows(1 << bits), 3))

    @njit  # (a closure: not cached; compiled before the timing)
    def passes(cs, cl, shift, bits, ptrs, acc, head):
        m = cs.shape[0]
        cg = np.zeros(m)
        cd = np.zeros(m)
        loss = 0.0
        p = 0
        while p < m:
            q = _node_end(cl, p, m, shift + bits)
            if q - p > 1:
                loss += _loss_node(p, q, cs, cs, cl, shift, bits, True, 1.0, SQUARED_HINGE, cg,
                                   cd, ptrs, ptrs, 0, acc, head)
            p = q
        return loss, cg, cd

    heads = {"full": _bit_length(1 << bits), str(FEN_HEAD_STEPS): min(FEN_HEAD_STEPS, bits + 1),
             "none": 0, "default": _fen_head(bits)}
    results = [passes(cs, cl, shift, bits, ptrs, acc, h) for h in heads.values()]
    for loss, cg, cd in results[1:]:  # the same bits whatever the head
        assert np.float64(loss).tobytes() == np.float64(results[0][0]).tobytes()
        assert cg.tobytes() == results[0][1].tobytes() and cd.tobytes() == results[0][2].tobytes()
    return ([lambda h=h: passes(cs, cl, shift, bits, ptrs, acc, h) for h in heads.values()],
            heads, bits)


def _regular_bounds(X, y, obj, w, us):
    """Two callables: the Hessian replay (of ``us = X v``) with one insertion before
    each query, and the sort + loss sweep at margin 0 (one insertion before each
    query with distinct scores)."""
    from birank._kernels.pair_sweep import LV_HI, LV_LO
    from birank.solvers.newton import PairObjective

    regular = obj.levels.copy()
    t = np.arange(regular.shape[2], dtype=regular.dtype)
    regular[:, LV_HI] = t  # pass "hi" inserts row t, then queries it
    regular[:, LV_LO] = t + 1  # pass "lo" likewise, upwards

    def hess_regular():
        kept, obj.levels = obj.levels, regular
        try:
            obj.hess_scores(us)
        finally:
            obj.levels = kept

    at_zero = PairObjective(X, y, C=1.0, theta=0.0)
    s = at_zero.scores(w)
    at_zero.loss_at_scores(s)
    hess_regular()
    return hess_regular, (lambda: at_zero.loss_at_scores(s))


def run(n, labels, repeat, parts, floor=False, bounds=False, heads=False):
    from birank.datasets import make_sparse_bipartite
    from birank.solvers.newton import PairObjective

    X, y, _ = make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20, random_state=0)
    X = X.tocsr()
    if labels == "real":
        y = y + 0.5 * np.random.default_rng(1).random(n)
    rng = np.random.default_rng(2)
    d = X.shape[1]
    # a w whose scores spread over several margins (many active and inactive pairs)
    w = rng.normal(size=d) / np.sqrt(20)
    v = rng.normal(size=d)
    u = rng.normal(size=n)
    obj = PairObjective(X, y, C=1.0)
    obj.fun_grad(w)  # compile + set the active set
    obj.hess_vec(v)

    def bare():
        X @ v
        X.T @ u

    def hv():
        obj.hess_vec(v)

    def lg():
        obj.fun_grad(w)

    fns = [bare, hv, lg]
    if floor and labels == "real":
        walks, prefix, levels, bits = _floors(n, int(obj.nlab.max()), len(obj.levels))
        fns += [walks, prefix]
    n_floor = len(fns)
    s = obj.scores(w)  # the scores the sweeps alone are timed on
    us = obj.scores(v)
    if bounds and labels == "real":
        fns += [lambda: obj.hess_scores(us), *_regular_bounds(X, y, obj, w, us),
                lambda: obj.loss_at_scores(s)]
    n_bounds = len(fns)
    if heads and labels == "real":
        head_fns, head_steps, head_bits = _head_passes(obj, s)
        fns += head_fns
    n_heads = len(fns)
    if parts:
        fns += [lambda: obj.loss_at_scores(s), lambda: obj.sweep_sorted(s),
                lambda: obj.hess_scores(us), lambda: X @ v, lambda: X.T @ u]
    t = medians(fns, repeat, clock=CPU)  # (single-threaded: CPU time)
    obj.fun_grad(w)  # leave the active set where hv was measured
    tb = t[0]
    line = (f"{n:>9,d} {labels:>6}  bare {tb * 1e3:7.1f} ms  Hv {t[1] * 1e3:7.1f} ms "
            f"= {t[1] / tb:5.2f}x  loss+grad {t[2] * 1e3:7.1f} ms = {t[2] / tb:5.2f}x")
    print(line, flush=True)
    if floor and labels == "real":
        print(f"           running sums alone ({levels} level{'s' if levels > 1 else ''} of "
              f"{bits} bits, 2 insertions and 2 queries a row each): loss sweep's Fenwick "
              f"walks {t[3] / tb:4.2f}x bare, "
              f"Hessian's prefix sums {t[4] / tb:4.2f}x bare", flush=True)
    if n_bounds > n_floor:
        h, h_reg, l_reg, lo = t[n_floor:n_bounds]
        print(f"           one insertion before each query (x bare): Hv sweep {h / tb:4.2f} -> "
              f"{h_reg / tb:4.2f} (Hv about {(t[1] - h + h_reg) / tb:4.2f}), sort + loss sweep "
              f"{lo / tb:4.2f} -> {l_reg / tb:4.2f} (loss+grad about "
              f"{(t[2] - lo + l_reg) / tb:4.2f})", flush=True)
    if n_heads > n_bounds:
        th = dict(zip(head_steps, t[n_bounds:n_heads]))
        print(f"           loss sweep's two passes over the first level ({head_bits}-bit digits) "
              f"by the walks' unconditional steps (x bare; / all steps): "
              + "  ".join(f"{k} ({head_steps[k]}) {th[k] / tb:4.2f} / {th[k] / th['full']:4.2f}"
                          for k in head_steps), flush=True)
    t = t[:3] + t[n_heads:]
    if parts:
        print(f"           parts: X v {t[6] / tb:4.2f}  X'u {t[7] / tb:4.2f}  "
              f"sort+sweep {t[3] / tb:4.2f}  sweep {t[4] / tb:4.2f}  "
              f"Hv sweep {t[5] / tb:4.2f}  (x bare)", flush=True)
    return t[1] / tb, t[2] / tb


TARGETS = {"binary": (1.3, 1.8), "real": (2.0, 3.0)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, nargs="+", default=[1e5, 1e6])
    ap.add_argument("--labels", nargs="+", default=["binary", "real"])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--parts", action="store_true")
    ap.add_argument("--floor", action="store_true")
    ap.add_argument("--heads", action="store_true")
    ap.add_argument("--bounds", action="store_true")
    args = ap.parse_args(argv)
    print("ratio = time / (X v + X' u), medians of alternating runs; targets "
          + ", ".join(f"{k} Hv <= {a} loss+grad <= {b}" for k, (a, b) in TARGETS.items()))
    for n in args.rows:
        for labels in args.labels:
            r_hv, r_lg = run(int(n), labels, args.repeat, args.parts, args.floor, args.bounds,
                             args.heads)
            a, b = TARGETS[labels]
            print(f"           target Hv <= {a}: {'met' if r_hv <= a else 'MISSED'}; "
                  f"loss+grad <= {b}: {'met' if r_lg <= b else 'MISSED'}", flush=True)


if __name__ == "__main__":
    main()
