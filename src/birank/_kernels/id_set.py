"""A set of non-negative int64 ids as an open-addressing hash table (linear probing, ``-1`` = empty).

Used where a kernel tests membership once per draw (the chosen pool of active
sampling): O(1) expected per test, against the ~13 unpredictable branches of a
binary search over 8000 sorted ids. Keep a table at most half full
(:func:`new_table`); the Python owner grows it.
"""

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def slot(table, x):
    """Slot holding ``x``, or the empty slot where it would go."""
    mask = table.shape[0] - 1
    # multiplicative hash of the folded id; only the low bits are kept, and they
    # are the same whether the product wraps around (compiled) or not (plain Python)
    v = int(x)  # a Python int without the JIT: no numpy overflow warning
    h = ((v ^ (v >> 31)) * 0x9E3779B1) & mask
    while table[h] != -1 and table[h] != x:
        h = (h + 1) & mask
    return h


@njit(cache=True)
def new_table(capacity):
    """An empty set for up to ``capacity`` ids: a power of two >= 2 * capacity slots."""
    size = 16
    while size < 2 * capacity:
        size *= 2
    table = np.empty(size, dtype=np.int64)  # (np.full: one more numba overload to compile)
    for i in range(size):
        table[i] = -1
    return table


@njit(cache=True)
def table_insert(table, ids):
    """Insert ``ids >= 0`` (the caller keeps the table at most half full)."""
    for k in range(ids.shape[0]):
        table[slot(table, ids[k])] = ids[k]


@njit(cache=True)
def table_contains(table, ids):
    """Membership of each id (a negative id is never a member: -1 marks empty slots)."""
    out = np.empty(ids.shape[0], dtype=np.bool_)
    for k in range(ids.shape[0]):
        out[k] = ids[k] >= 0 and table[slot(table, ids[k])] == ids[k]
    return out


@njit(cache=True)
def take_new(draw, chosen, taken, out, n_out):
    """Append to ``out[n_out:]`` the ids of ``draw``, in order, in neither table.

    Each id taken goes into ``taken`` (sized for all of ``out``, so at most half
    full); stops when ``out`` is full. Returns the new count. The same ids, in
    the same order, as keeping the first occurrences of ``out[:n_out]`` followed
    by the draws not in ``chosen``.
    """
    size = out.shape[0]
    for k in range(draw.shape[0]):
        if n_out == size:
            break
        x = draw[k]
        if chosen[slot(chosen, x)] == x:
            continue
        h = slot(taken, x)
        if taken[h] == x:
            continue
        taken[h] = x
        out[n_out] = x
        n_out += 1
    return n_out
