import numpy as np
import pytest
import scipy.sparse as sp


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def dense_and_csr(X):
    """Both layouts of X, for tests that run every case on dense and sparse input."""
    return [np.asarray(X), sp.csr_matrix(X)]


@pytest.fixture(params=["dense", "csr"])
def layout(request):
    """Parametrize a test over dense and CSR input: ``to_layout(X)`` converts."""
    if request.param == "dense":
        return lambda X: np.asarray(X.toarray() if sp.issparse(X) else X)
    return lambda X: sp.csr_matrix(X)
