"""A dual CD kernel called once on its own, as the tests' reference run."""

from birank._kernels.dual_cd import CNT_IT, PG_GAP, start_passes


def one_call(run, args, seed, n_rows, max_iter, gap0=0.0):
    """``(n_iter, gap)`` of the kernel ``run`` (a ``*_run`` kernel) called once from a
    fresh :func:`start_passes` state up to ``max_iter`` (``args``: its arguments before
    the state; ``gap0``: the spread set before the first pass)."""
    rng, index, counts, pg = start_passes(seed, n_rows)
    pg[PG_GAP] = gap0
    run(*args, rng, index, counts, pg, max_iter)
    return counts[CNT_IT], pg[PG_GAP]
