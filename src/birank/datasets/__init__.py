"""Data in: LIBSVM/SVMlight files, LIBSVM downloads, bundled sets, generators."""
