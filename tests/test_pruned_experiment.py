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


def _args(tmp_path, *argv):
    import argparse

    parser = argparse.ArgumentParser()
    lin_jan_lin.add_arguments(parser)
    return parser.parse_args(["--data-dir", str(tmp_path), "--output", str(tmp_path / "out"),
                              "--datasets", "mpg", "--no-progress", *argv])


def test_skip_real_rbf_runs_linear_only_with_its_loss_and_merges_rbf(tmp_path, monkeypatch):
    import json

    rng = np.random.default_rng(0)
    (tmp_path / "mpg").mkdir()
    (tmp_path / "mpg" / "mpg.libsvm").write_text("".join(
        f"{rng.integers(10, 40)} 1:{rng.normal():.3f} 2:{rng.normal():.3f}\n"
        for _ in range(40)))
    calls = []

    def fake(method, Cs, kernel, gamma, train, val, test, seed, refit=None, loss="hinge"):
        calls.append((method, kernel, loss))
        return {"acc": 0.5, "C": Cs[0], "size": 10}

    monkeypatch.setattr(lin_jan_lin, "_select_and_test", fake)
    old_rbf = {m: {"acc": [0.75, 0.25], "C": [2.0, 8.0], "size": [7, 9]}
               for m in lin_jan_lin.REAL_METHODS}
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"real": {"mpg": {"linear": {}, "rbf": old_rbf}},
                               "sources": {"mpg": "elsewhere"}}))
    args = _args(tmp_path, "--quick", "--skip", "artificial", "fig1", "fig3", "real-rbf",
                 "--merge", str(old))
    assert lin_jan_lin.run(args) == 0
    assert {k for _, k, _ in calls} == {"linear"}
    # RankSVM columns (total pairs too) squared hinge; SVR ignores the loss
    assert {(m, loss) for m, _, loss in calls} == {
        ("pruned", "squared_hinge"), ("pruned2", "squared_hinge"),
        ("total", "squared_hinge"), ("svr", "squared_hinge")}
    out = json.loads((tmp_path / "out" / "lin-jan-lin.json").read_text())
    assert out["real"]["mpg"]["rbf"] == old_rbf
    assert out["real"]["mpg"]["linear"]["pruned"]["acc"] == [0.5, 0.5]
    assert out["sources"]["mpg"].endswith("mpg.libsvm")
    assert out["config"]["real_loss"] == {"linear": "squared_hinge", "rbf": "hinge"}
    md = (tmp_path / "out" / "lin-jan-lin.md").read_text()
    assert "Table IV: linear kernel (RankSVM loss squared hinge)" in md
    assert "Table V: RBF kernel (RankSVM loss hinge)" in md


def test_skip_rejects_unknown_parts(tmp_path):
    from birank.exceptions import UserError

    with pytest.raises(UserError, match="real-rbf"):
        lin_jan_lin.run(_args(tmp_path, "--skip", "rbf"))
