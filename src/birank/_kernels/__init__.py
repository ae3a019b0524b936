"""Numba kernels only: imports numpy and numba, never scikit-learn or estimators."""
