"""lin-jan-lin reproduction pieces: data loading / scaling, artificial data, CLI wiring."""

import numpy as np
import pytest

from birank.experiments import lin_jan_lin
from birank.experiments.lin_jan_lin import load_real, make_artificial


def test_load_real_scales_to_minus_one_one_and_names_missing_files(tmp_path):
    (tmp_path / "mpg").mkdir()
    (tmp_path / "mpg" / "mpg.libsvm").write_text("18 1:8 2:307\n15 1:4 2:350\n30 1:6 2:100\n")
    X, y, src = load_real("mpg", tmp_path)
    assert src.endswith("mpg.libsvm")
    np.testing.assert_allclose(X.min(axis=0), -1.0)
    np.testing.assert_allclose(X.max(axis=0), 1.0)
    np.testing.assert_array_equal(y, [18, 15, 30])
    with pytest.raises(FileNotFoundError, match="--download"):
        load_real("mg", tmp_path)


def test_artificial_data_follows_section_3b():
    rng = np.random.default_rng(0)
    (Xtr, ytr), (Xva, yva), (Xte, yte) = make_artificial(0.0, rng)
    assert (Xtr.shape, Xva.shape, Xte.shape) == ((200, 10), (150, 10), (200, 10))
    assert np.all(np.abs(Xtr) <= 1.0)
    # noiseless: one linear ranker orders every set exactly
    w = np.linalg.lstsq(Xtr, ytr, rcond=None)[0]
    np.testing.assert_allclose(Xte @ w, yte, atol=1e-8)


def test_cli_knows_the_reproduction_and_the_model():
    from birank._registry import make_model
    from birank.cli._reproduce import EXPERIMENTS

    assert EXPERIMENTS["lin-jan-lin"][0] == lin_jan_lin.__name__
    model = make_model("pruned", n_random=0)
    assert type(model).__name__ == "PrunedRankSVM" and model.n_random == 0
