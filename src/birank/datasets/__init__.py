"""Data in: LIBSVM/SVMlight files, LIBSVM downloads, bundled sets, generators.

- :func:`load_svmlight` / :func:`dump_svmlight`: LIBSVM/SVMlight text (plain, gz, bz2,
  xz), ``qid:`` or LightGBM ``.query`` groups, errors that name file and line;
  :func:`iter_svmlight_chunks` streams a file in chunks of rows (bounded memory).
- :func:`fetch_libsvm` / :func:`download_libsvm`: LIBSVM datasets in a local cache
  (``$BIRANK_DATA`` or ``~/.cache/birank``), checksummed, written atomically.
- ``load_<name>()``: small real datasets shipped in the package (see :data:`BUNDLED`).
- Generators: :func:`make_linear_ranking` (lin-jan-lin), :func:`make_sparse_bipartite`
  (large sparse data with a planted ranker), :func:`make_gaussian_mixture`
  (gultekin-paisley) and its Bayes-optimal scorer.
"""

from ._bundled import (
    BUNDLED,
    load_a9a,
    load_bundled,
    load_diabetes,
    load_german_numer,
    load_heart,
    load_housing,
    load_ionosphere,
    load_tfranking_toy,
    load_w1a,
)
from ._fetch import LIBSVM_DATASETS, NOT_ON_LIBSVM, download_libsvm, fetch_libsvm, get_data_home
from ._gaussian_mixture import gaussian_mixture_bayes_scores, make_gaussian_mixture
from ._generators import make_linear_ranking, make_sparse_bipartite
from ._svmlight import dump_svmlight, iter_svmlight_chunks, load_svmlight, read_query_file

__all__ = [
    "BUNDLED",
    "LIBSVM_DATASETS",
    "NOT_ON_LIBSVM",
    "download_libsvm",
    "dump_svmlight",
    "fetch_libsvm",
    "gaussian_mixture_bayes_scores",
    "get_data_home",
    "iter_svmlight_chunks",
    "load_a9a",
    "load_bundled",
    "load_diabetes",
    "load_german_numer",
    "load_heart",
    "load_housing",
    "load_ionosphere",
    "load_svmlight",
    "load_tfranking_toy",
    "load_w1a",
    "make_gaussian_mixture",
    "make_linear_ranking",
    "make_sparse_bipartite",
    "read_query_file",
]
