"""Functions take their data positionally and their settings by keyword only (scikit-learn's
rule): ``make_sparse_bipartite(n, 10_000, 20)`` is a TypeError, ``fetch_letor(name, 1, "test")``
too. Each entry lists the settings that must be keyword-only."""

import inspect

import numpy as np
import pytest

from birank import PrunedRankSVM
from birank import datasets
from birank.batch.pruned_ranksvm import select_pairs
from birank.datasets._svmlight import load_svmlight_bytes
from birank.pairs import sample_pair_ids

KEYWORD_ONLY = {
    sample_pair_ids: ("random_state", "chosen", "replace"),
    select_pairs: ("n_closest", "n_random", "groups", "random_state"),
    datasets.fetch_letor: ("fold", "subset", "data_home", "base_url"),
    datasets.letor_fold_parts: ("fold", "subset"),
    datasets.fetch_libsvm: ("data_home", "base_url", "subset"),
    datasets.download_libsvm: ("data_home", "base_url", "subset"),
    datasets.load_svmlight: ("n_features", "query_id", "query_file", "zero_based", "duplicates"),
    load_svmlight_bytes: ("name", "n_features", "zero_based", "duplicates", "progress",
                          "chunk_bytes", "line_offset"),
    datasets.iter_svmlight_chunks: ("chunk_size", "n_features", "zero_based", "duplicates"),
    datasets.read_query_file: ("n_rows",),
    datasets.make_linear_ranking: ("n_features", "noise", "random_state"),
    datasets.make_sparse_bipartite: ("n_features", "nnz_per_row", "pos_fraction",
                                     "random_state"),
    datasets.make_gaussian_mixture: ("n_features", "random_state"),
}


def _distributed():
    pytest.importorskip("dask.array")
    from birank.distributed import DaskEngine, DaskRowOperator, as_dask_rows, fit

    return {as_dask_rows: ("name",), DaskEngine.map_rows: ("dtype",),
            DaskRowOperator.grad_diag: ("with_mean",),
            fit: ("groups", "sample_weight", "max_samples", "engine")}


@pytest.mark.parametrize("func", list(KEYWORD_ONLY), ids=lambda f: f.__name__)
def test_settings_are_keyword_only(func):
    params = inspect.signature(func).parameters
    for name in KEYWORD_ONLY[func]:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, (func.__name__, name)


def test_distributed_settings_are_keyword_only():
    for func, names in _distributed().items():
        params = inspect.signature(func).parameters
        for name in names:
            assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, (func.__qualname__, name)


def test_positional_settings_are_a_type_error():
    with pytest.raises(TypeError):
        datasets.make_sparse_bipartite(100, 50, 5)
    with pytest.raises(TypeError):
        datasets.make_linear_ranking(100, 5)
    with pytest.raises(TypeError):
        sample_pair_ids(10, 3, np.random.default_rng(0))
    with pytest.raises(TypeError):
        datasets.letor_fold_parts("MQ2008", 1, "train")
    with pytest.raises(TypeError):
        load_svmlight_bytes(b"1 1:1\n", "name", 3)


def test_renamed_names():
    # sample_pair_ids draws from random_state as check_random_state reads it: a Generator
    # is used as is, an int seeds a fresh one
    a = sample_pair_ids(10**6, 5, random_state=np.random.default_rng(3))
    assert np.array_equal(a, sample_pair_ids(10**6, 5, random_state=3))
    assert "rng" not in inspect.signature(sample_pair_ids).parameters
    # PrunedRankSVM's pair duals are pair_dual_coef_ (alpha_ is the L2 strength elsewhere)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    model = PrunedRankSVM(n_random=5, random_state=0).fit(X, X @ [1.0, -1.0, 0.5])
    assert model.pair_dual_coef_.shape == model.pairs_[0].shape
    assert not hasattr(model, "alpha_")
