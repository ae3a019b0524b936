"""Dot products of the package's own code stay on the calling thread.

OpenBLAS runs ``np.dot`` of two long float vectors on all its threads, and its
workers then spin on the other cores for a while, waiting for more work: one
such dot before a single-threaded kernel doubled the CPU time of the whole fit
(the online learners' below-chance check, through ``roc_auc`` with weights; the
pair count of a RankSVM fit with real-valued labels). Dot products go through
``birank._dots.dot`` (numpy's einsum, in the calling thread) or ``np.einsum``
in the kernels, which sit below it.
"""

import re
from pathlib import Path

import birank

SRC = Path(birank.__file__).parent
BLAS_DOT = re.compile(r"\bnp\.(dot|vdot|inner)\(")


def test_no_numpy_dot_in_the_package():
    hits = [f"{path.relative_to(SRC)}:{k}: {line.strip()}"
            for path in sorted(SRC.rglob("*.py"))
            for k, line in enumerate(path.read_text().splitlines(), 1)
            if BLAS_DOT.search(line.split("#", 1)[0])]
    assert not hits, "\n".join(hits)


def test_the_check_would_see_one():
    # the pattern finds the calls it is meant to forbid, and not einsum or comments
    assert BLAS_DOT.search("total = float(np.dot(a, b))")
    assert BLAS_DOT.search("x = np.inner(a, b)")
    assert not BLAS_DOT.search('x = float(np.einsum("i,i->", a, b))')
    assert not BLAS_DOT.search("x = dot(a, b)")
