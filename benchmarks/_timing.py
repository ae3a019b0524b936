"""The clocks of the benchmark scripts: every script times its calls through these.

A script compares birank with a reference run in the same process. :func:`rounds`
runs the callables in turn, round after round, so that the load of a shared
machine falls on each of them alike; the other helpers reduce those times to a
median (the usual figure) or a best (where a script reports the least time).
``clock`` is :data:`WALL` (``time.perf_counter``) or :data:`CPU`
(``time.process_time``: this process's CPU time, the steadier measure of
single-threaded code on a shared machine).
"""

import time

import numpy as np

WALL = time.perf_counter
CPU = time.process_time


def rounds(fns, repeat, *, clock=WALL):
    """``(times, outs)``: each callable's times over ``repeat`` rounds (one array per
    callable; the callables run in turn each round) and each one's last result."""
    times = [[] for _ in fns]
    outs = [None] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = clock()
            outs[k] = fn()
            times[k].append(clock() - t0)
    return [np.array(t) for t in times], outs


def medians(fns, repeat, *, clock=WALL):
    """The median time of each callable, run in turn (:func:`rounds`)."""
    return [float(np.median(t)) for t in rounds(fns, repeat, clock=clock)[0]]


def bests(fns, repeat, *, clock=WALL):
    """The least time of each callable, run in turn (:func:`rounds`)."""
    return [float(np.min(t)) for t in rounds(fns, repeat, clock=clock)[0]]


def median_time(fn, repeat, *, clock=WALL):
    """``(median time, last result)`` of ``repeat`` calls of ``fn``."""
    (t,), (out,) = rounds([fn], repeat, clock=clock)
    return float(np.median(t)), out


def best_time(fn, repeat, *, clock=WALL):
    """``(least time, last result)`` of ``repeat`` calls of ``fn``."""
    (t,), (out,) = rounds([fn], repeat, clock=clock)
    return float(np.min(t)), out


def wall_and_cpu(fn, repeat):
    """``(median wall seconds, median CPU seconds, last result)`` of ``repeat`` calls,
    both clocks read around each call."""
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        t0, c0 = WALL(), CPU()
        out = fn()
        walls.append(WALL() - t0)
        cpus.append(CPU() - c0)
    return float(np.median(walls)), float(np.median(cpus)), out
