"""Data in: LIBSVM/SVMlight files, LIBSVM downloads, bundled sets, generators."""

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
from ._svmlight import dump_svmlight, load_svmlight, read_query_file

__all__ = [
    "BUNDLED",
    "dump_svmlight",
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
    "read_query_file",
]

from ._generators import make_linear_ranking, make_sparse_bipartite  # noqa: E402

__all__ += ["make_linear_ranking", "make_sparse_bipartite"]

from ._fetch import (  # noqa: E402
    LIBSVM_DATASETS,
    NOT_ON_LIBSVM,
    download_libsvm,
    fetch_libsvm,
    get_data_home,
)

__all__ += ["LIBSVM_DATASETS", "NOT_ON_LIBSVM", "download_libsvm", "fetch_libsvm",
            "get_data_home"]

from ._gaussian_mixture import gaussian_mixture_bayes_scores, make_gaussian_mixture  # noqa: E402

__all__ += ["make_gaussian_mixture", "gaussian_mixture_bayes_scores"]
