"""lin-jan-lin reproduction pieces: data loading / scaling, artificial data, CLI wiring."""

import numpy as np
import pytest

from birank.experiments import lin_jan_lin
from birank.experiments.lin_jan_lin import load_real, make_artificial


def test_load_real_scales_to_minus_one_one_and_names_missing_files(tmp_path):
    (tmp_path / "mpg").mkdir()
    (tmp_path / "mpg" / "mpg.libsvm").write_text("18 1:8 2:307\n15 1:4 2:350\n30 1:6 2:100\n")
    X, y, src = load_real("mpg", data_home=tmp_path)
    assert src.endswith("mpg.libsvm")
    np.testing.assert_allclose(X.min(axis=0), -1.0)
    np.testing.assert_allclose(X.max(axis=0), 1.0)
    np.testing.assert_array_equal(y, [18, 15, 30])
    with pytest.raises(FileNotFoundError, match="--download"):
        load_real("mg", data_home=tmp_path)


def test_artificial_data_follows_section_3b():
    rng = np.random.default_rng(0)
    (Xtr, ytr), (Xva, yva), (Xte, yte) = make_artificial(0.0, random_state=rng)
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
    return parser.parse_args(["--data-home", str(tmp_path), "--output", str(tmp_path / "out"),
                              "--datasets", "mpg", "--no-progress", *argv])


def test_skip_real_rbf_runs_linear_only_with_its_loss_and_merges_rbf(tmp_path, monkeypatch):
    import json

    rng = np.random.default_rng(0)
    (tmp_path / "mpg").mkdir()
    (tmp_path / "mpg" / "mpg.libsvm").write_text("".join(
        f"{rng.integers(10, 40)} 1:{rng.normal():.3f} 2:{rng.normal():.3f}\n"
        for _ in range(40)))
    calls = []

    def fake(method, Cs, kernel, gamma, splits, refit, test, seed, loss="hinge"):
        calls.append((method, kernel, loss))
        # --quick: 2 folds partitioning the training half, refit on all of it
        assert len(splits) == 2
        assert sum(len(val[1]) for _, val in splits) == len(refit[1])
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


def test_cv_folds_partition_the_rows_and_each_fold_validates_once():
    rows = np.arange(10, 33)  # 23 rows: folds of 5 and 4
    splits = lin_jan_lin.cv_folds(rows, 5, np.random.default_rng(3))
    assert len(splits) == 5
    vals = np.concatenate([val for _, val in splits])
    np.testing.assert_array_equal(np.sort(vals), rows)
    assert sorted(len(val) for _, val in splits) == [4, 4, 5, 5, 5]
    for fit, val in splits:
        np.testing.assert_array_equal(np.sort(np.concatenate([fit, val])), rows)
        assert not np.intersect1d(fit, val).size
    again = lin_jan_lin.cv_folds(rows, 5, np.random.default_rng(3))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again))


def test_select_and_test_averages_validation_accuracy_over_the_splits(monkeypatch):
    # validation accuracy of C on split i is table[C][i]; C = 2 wins on the mean only
    table = {1.0: [0.9, 0.1], 2.0: [0.6, 0.6], 4.0: [0.0, 0.95]}
    seen = []

    def fake_fit_eval(method, C, kernel, gamma, train, test, seed, loss="hinge"):
        if test == "TEST":
            seen.append((C, train))
            return 0.5, 7
        return table[C][test], 1

    monkeypatch.setattr(lin_jan_lin, "_fit_eval", fake_fit_eval)
    out = lin_jan_lin._select_and_test("pruned", [1.0, 2.0, 4.0], "linear", 1.0,
                                       [("f0", 0), ("f1", 1)], "REFIT", "TEST", 0)
    assert out == {"acc": 0.5, "C": 2.0, "size": 7}
    assert seen == [(2.0, "REFIT")]


def test_pairs_needed_finds_the_smallest_multiple_within_the_tolerance():
    cells = {"total": {"acc": [0.90, 0.90], "size": [1000, 1000]},
             "pruned": {"acc": [0.87, 0.88], "size": [25, 25]},     # -2.5 points, 2.5%
             "pruned2": {"acc": [0.885, 0.885], "size": [50, 50]},  # -1.5 points
             "pruned3": {"acc": [0.895, 0.893], "size": [75, 75]},  # -0.6 points, 7.5%
             "pruned4": {"acc": [0.90, 0.90], "size": [100, 100]}}  # 0, 10%: not under
    rows, smallest = lin_jan_lin.pairs_needed(cells, (1, 2, 3, 4))
    assert smallest == 3
    np.testing.assert_allclose([r["gap"] for r in rows], [-2.5, -1.5, -0.6, 0.0], atol=1e-9)
    np.testing.assert_allclose([r["share"] for r in rows], [0.025, 0.05, 0.075, 0.10])
    # a multiple missing from an older result is skipped; none within 1 point -> None
    del cells["pruned3"], cells["pruned4"]
    rows, smallest = lin_jan_lin.pairs_needed(cells, (1, 2, 3, 4))
    assert [r["k"] for r in rows] == [1, 2] and smallest is None
    # within the tolerance but at 10% of the pairs or more does not count
    cells["pruned2"]["size"] = [100, 100]
    cells["pruned2"]["acc"] = [0.90, 0.90]
    assert lin_jan_lin.pairs_needed(cells, (1, 2))[1] is None


def test_replication_gaps_are_block_means_minus_the_paper():
    acc = np.r_[np.full(20, 0.70), np.full(20, 0.74), [0.5] * 5]  # incomplete block dropped
    np.testing.assert_allclose(lin_jan_lin.replication_gaps(acc, 72.0), [-2.0, 2.0])


def test_budget_columns_are_closest_ks_plus_random_ks():
    assert [lin_jan_lin._budget_method(k) for k in (1, 1.5, 2, 3.0)] == [
        "pruned", "pruned1.5", "pruned2", "pruned3"]
    for method, k in (("pruned", 1), ("pruned1.5", 1.5), ("pruned4", 4)):
        est = lin_jan_lin._model(method, 1.0, "linear", 1.0, 101, 0)
        assert est.n_closest == est.n_random == round(k * 101)
    est = lin_jan_lin._model("total", 1.0, "rbf", 0.5, 101, 0)
    assert est.n_closest == "all" and est.kernel == "rbf" and est.gamma == 0.5


def test_report_cuts_long_runs_into_20_round_replications():
    from birank.experiments import lin_jan_lin_published as pub

    cfg = {"noises": [1.0], "art_rounds": 40, "art_loss": "squared_hinge"}
    paper = {**pub.TABLE1_2[1.0], **pub.TABLE3[1.0]}
    cells = {}
    for m in lin_jan_lin.ART_METHODS:
        p = paper[m][0] / 100
        # run 1 on the paper's mean, run 2 two points above it
        cells[m] = {"acc": [p] * 20 + [p + 0.02] * 20, "C": [1.0] * 40, "size": [5] * 40}
    md = lin_jan_lin._report({"artificial": {"1.0": cells}}, cfg)
    assert "40 rounds where the paper has 20" in md
    assert "2 independent runs of the paper's 20-round protocol" in md
    import re

    assert re.search(r"\| 1 \| closest \| [+-]0\.00 \| \+2\.00 \| 1 / 2 \|", md)
    assert "every cell of Tables I-III within 1 point: 1 of 2" in md
    cfg["art_rounds"] = 20
    md = lin_jan_lin._report({"artificial": {"1.0": {
        m: {k: v[:20] for k, v in c.items()} for m, c in cells.items()}}}, cfg)
    assert "independent runs" not in md and "where the paper has 20" not in md


def test_real_folds_below_two_is_a_clear_error(tmp_path):
    from birank.exceptions import UserError

    with pytest.raises(UserError, match="--real-folds must be >= 2"):
        lin_jan_lin.run(_args(tmp_path, "--real-folds", "1"))
