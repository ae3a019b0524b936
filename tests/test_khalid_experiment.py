"""The khalid-ray-chitsaz reproduction harness on small generated data (no shared data)."""

import argparse

import numpy as np
import pytest

from birank.experiments import khalid
from birank.experiments import khalid_published as pub


def test_binarize_largest_class_rule():
    y01, rule = khalid.binarize_largest_class(np.array([3, 1, 1, 2, 2, 1, 3]))
    np.testing.assert_array_equal(y01, [0, 1, 1, 0, 0, 1, 0])
    assert "class 1" in rule
    # ties go to the smallest label; two values keep the larger one positive
    assert khalid.binarize_largest_class(np.array([2, 1, 2, 1, 3]))[0].tolist() == [0, 1, 0, 1, 0]
    assert khalid.binarize_largest_class(np.array([-1, 1, 1]))[0].tolist() == [0, 1, 1]


def test_select_parameter_is_the_best_mean_of_two_folds():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y01 = (X[:, 0] + 0.3 * rng.normal(size=120) > 0).astype(np.int8)
    make, _, _ = khalid.BENCH_METHODS["OnlineUniExp"]
    grid = (2.0 ** -8, 2.0 ** -2, 2.0 ** 4)
    best, scores = khalid.select_parameter(make, X, y01, grid, random_state=3)
    assert best == max(grid, key=lambda p: (scores[p], -p))
    assert all(0.0 <= s <= 1.0 or s == -np.inf for s in scores.values())


def test_splits_cap_rows_and_rotate_the_test_fold():
    splits = khalid._splits(100, 6, 50, seed=0)
    for r, (train, test) in enumerate(splits):
        assert len(train) + len(test) == 50 and len(test) == 10
        assert not set(train) & set(test)
    # the test folds of runs 0..4 are the five folds of their own permutations
    assert len({tuple(sorted(s[1])) for s in splits}) == 6


def test_run_dataset_and_report(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 5))
    y01 = (X[:, 0] + 0.5 * rng.normal(size=80) > 0.3).astype(np.int8)
    methods = {m: khalid.BENCH_METHODS[m] for m in ("CBR_FIFO", "OnlineUniExp", "OPAUC")}
    cfg = {"runs": 2, "max_rows": 80, "seed": 0, "grid": (2.0 ** -4, 2.0 ** 0),
           "cv_every_run": False}
    res = khalid.run_dataset("toy", X, y01, methods, cfg)
    for m in methods:
        assert len(res[m]["auc"]) == 2 and len(res[m]["cv"]) == 1
        assert 0.5 < np.mean(res[m]["auc"]) <= 1.0
    info = {"toy": {"rows": 80, "features": 5, "positive_rate": float(y01.mean()),
                    "binary_rule": "1 vs 0", "scaling": "-", "note": ""}}
    cfg.update(stem="k", command="test", runs_bench=2, runs_hd=0, max_bench=80, max_hd=0,
               grid_exp=(-4, 0), grid_step=4, hd_grid_step=4)
    khalid.write_report(tmp_path, cfg, {"toy": res}, {}, info)
    text = (tmp_path / "k.md").read_text()
    assert "Table 3: AUC" in text and "Holds on" in text
    assert (tmp_path / "k-fig1.png").stat().st_size > 0


def test_cv_fits_are_silent_and_warnings_at_the_chosen_value_are_reported(tmp_path, recwarn):
    """The CV's grid spans values meant to fail: their warnings (thousands in a full run)
    are silenced, while a fit at the chosen value that warns is counted in the report."""
    import warnings

    from birank import OnlineUniExp

    class Noisy(OnlineUniExp):  # warns on every fit: the CV must swallow it, the run keep it
        def fit(self, X, y):
            warnings.warn("noisy: step capped", UserWarning)
            return super().fit(X, y)

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 4))
    y01 = (X[:, 0] > 0).astype(np.int8)
    methods = {"Noisy": (lambda p, seed: Noisy(eta0=p, random_state=seed), "eta0", True)}
    cfg = {"runs": 2, "max_rows": 60, "seed": 0, "grid": (2.0 ** -4, 2.0 ** 0),
           "cv_every_run": True}
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        res = khalid.run_dataset("toy", X, y01, methods, cfg)
    assert not [w for w in recwarn if "noisy" in str(w.message)]  # nothing reached the user
    assert res["Noisy"]["warnings"] == ["noisy: step capped"] * 2
    lines = khalid._warning_lines({"toy": res}, {})
    assert any("Noisy: 2 of 2 runs (toy 2/2)" in line and "noisy: step capped" in line
               for line in lines)
    res["Noisy"]["warnings"] = [None, None]
    assert "No fit at a chosen value warned" in khalid._warning_lines({"toy": res}, {})[1]


def test_published_tables_are_complete():
    for table, cols in ((pub.TABLE3, pub.BENCH_COLUMNS), (pub.TABLE4, pub.BENCH_COLUMNS),
                        (pub.TABLE5, pub.HD_COLUMNS), (pub.TABLE6, pub.HD_COLUMNS)):
        assert all(len(row) == len(cols) for row in table.values())
    assert pub.published(pub.TABLE3, "german.numer", "CBR_FIFO", pub.BENCH_COLUMNS) == \
        (0.780, 0.019)
    assert pub.published(pub.TABLE3, "segment", "SPAM", pub.BENCH_COLUMNS) is None


def test_cli_arguments_parse():
    parser = argparse.ArgumentParser()
    khalid.add_arguments(parser)
    args = parser.parse_args(["--quick", "--datasets", "glass", "--hd-datasets"])
    assert args.quick and args.datasets == ["glass"] and args.hd_datasets == []
    with pytest.raises(ValueError, match="unknown data set"):
        khalid.load_dataset("nope", data_home="/nonexistent")


def test_binarization_rules():
    y = np.array([3, 1, 1, 2, 2, 1, 4, 4])
    assert khalid.binarize(y, "class1")[0].tolist() == [0, 1, 1, 0, 0, 1, 0, 0]
    # halves: the first floor(k/2) sorted classes positive
    y01, desc = khalid.binarize(y, "halves")
    assert y01.tolist() == [0, 1, 1, 1, 1, 1, 0, 0] and "{1, 2}" in desc
    # class1 without a label 1 falls back to the smallest label
    assert khalid.binarize(np.array([-3, -2, 5]), "class1")[0].tolist() == [1, 0, 0]
    # a binary set is used as it is, whatever the rule
    assert khalid.binarize(np.array([-1, 1, 1]), "halves")[0].tolist() == [0, 1, 1]
    with pytest.raises(ValueError, match="unknown binarization rule"):
        khalid.binarize(y, "random")
    # every multi-class set of the paper has a rule with its reason
    for name in ("glass", "vehicle", "segment", "svmguide4"):
        rule, why = khalid.BINARY_RULE[name]
        assert rule in khalid.BINARY_RULES and why


def _write_libsvm(path, X, y):
    from sklearn.datasets import dump_svmlight_file

    dump_svmlight_file(X, y, str(path), zero_based=False)


def test_svmguide4_uses_train_and_test_parts_and_rule(tmp_path):
    rng = np.random.default_rng(0)
    folder = tmp_path / "svmguide4"
    folder.mkdir()
    _write_libsvm(folder / "svmguide4", rng.normal(size=(30, 10)), np.repeat([-3, -2, -1], 10))
    X, y01, info = khalid.load_dataset("svmguide4", data_home=tmp_path)
    assert X.shape[0] == 30 and info["rule"] == "largest"
    _write_libsvm(folder / "svmguide4.t", rng.normal(size=(12, 10)), np.repeat([1, 2, 3], 4))
    X, y01, info = khalid.load_dataset("svmguide4", data_home=tmp_path)
    assert X.shape == (42, 10) and "test" in info["note"]


def test_any_libsvm_file_runs_as_a_benchmark_set_with_the_rule_of_its_name(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "segment.scale"
    _write_libsvm(path, rng.normal(size=(28, 3)), np.repeat(np.arange(1, 8), 4))
    X, y01, info = khalid.load_dataset(str(path), data_home=tmp_path)
    assert info["rule"] == "halves" and y01.sum() == 12  # classes {1, 2, 3} of 7
    other = tmp_path / "mine.txt"
    _write_libsvm(other, rng.normal(size=(12, 3)), np.repeat([1, 2, 3, 4], 3))
    assert khalid.load_dataset(str(other), data_home=tmp_path)[2]["rule"] == khalid.DEFAULT_RULE[0]


def test_missing_sets_are_named_and_bundled_sets_are_found(tmp_path):
    missing = dict(khalid.missing_sets(["heart", "glass", "cod-rna", "magic04"], tmp_path))
    assert "heart" not in missing  # bundled with birank
    assert set(missing) == {"glass", "cod-rna", "magic04"}
    assert "birank datasets fetch cod-rna" in missing["cod-rna"]
    assert khalid.load_dataset("heart", data_home=tmp_path)[2]["source"] == "bundled with birank"
    assert pub.published(pub.TABLE3, "svmguide3", "CBR_FIFO", pub.BENCH_COLUMNS) == \
        (0.764, 0.036)


def test_a_set_where_cbr_only_ties_the_baselines_is_discussed():
    # heart: the paper has CBR_FIFO 0.909 against baselines 0.733-0.806; here every
    # baseline ties CBR, so "Where our results differ" must say so, with the runs and the
    # ablation that brings the baselines to the paper's level
    rng = np.random.default_rng(0)
    base = 0.905 + 0.01 * rng.normal(size=10)

    def res(shift):
        return {"auc": list(base + shift + 0.001 * rng.normal(size=10)), "ms": [1.0] * 10}
    bench = {"heart": {m: res(0.0) for m in ("CBR_FIFO", "CBR_RS") + khalid.PAPER_BASELINES}}
    abl = {"unscaled": {"heart": {"baselines_gap": 0.12}},
           "fixed": {"heart": {"baselines_gap": -0.009}}}
    text = "\n".join(khalid._differ_lines(bench, {}, {"heart": {"note": ""}}, abl,
                                          {"heart": 0.12}))
    assert "heart: CBR_FIFO level with the baselines" in text and "10 runs" in text
    assert "parameter 1 without CV -0.009" in text and "paper's level" in text
    # a clear CBR lead is not reported as a tie
    bench["heart"]["CBR_FIFO"] = res(0.05)
    text = "\n".join(khalid._differ_lines(bench, {}, {"heart": {"note": ""}}, abl,
                                          {"heart": 0.12}))
    assert "level with the baselines" not in text


def test_a_data_folder_given_with_a_tilde_is_the_home_folder(tmp_path, monkeypatch):
    """`--data-home ~/data` (a literal ~, as a quoted or scripted argument arrives): the
    set's own folder (spambase/spambase.tsv.gz) was looked for under a folder named "~"
    and the set reported missing, while the hint said where it was; "~" is the home folder
    everywhere, as for the LIBSVM files (find_data_file) and get_data_home."""
    import gzip

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # (no folder named "~" here)
    folder = tmp_path / "data" / "spambase"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    with gzip.open(folder / "spambase.tsv.gz", "wt") as fh:
        fh.write("a\tb\ttarget\n")
        fh.writelines(f"{a:.3f}\t{b:.3f}\t{i % 2}\n" for i, (a, b) in
                      enumerate(rng.normal(size=(20, 2))))
    assert khalid.missing_sets(["spambase"], "~/data") == []
    X, y01, info = khalid.load_dataset("spambase", data_home="~/data")
    whole = khalid.load_dataset("spambase", data_home=tmp_path / "data")
    assert info["source"] == whole[2]["source"] == "data folder: spambase/"
    np.testing.assert_array_equal(X, whole[0])
    np.testing.assert_array_equal(y01, whole[1])


def test_a_set_folder_without_its_file_is_missing_and_named_with_the_file(tmp_path):
    """A data folder's set folder without the file its loader reads (glass/ without
    glass.mat) made the run fail while loading, with the reader's bare error on that file:
    the set is now missing before any work, named with the file and the folder looked in
    and where the set comes from, as the other missing sets are; the LIBSVM layout in that
    folder (glass/glass.scale, as published) is read instead, when it is there."""
    for name, file, origin in (("spambase", "spambase.tsv.gz", "UCI Spambase"),
                               ("glass", "glass.mat", "birank datasets fetch glass")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "README").write_text("not the data")
        [(missing, where)] = khalid.missing_sets([name], tmp_path)
        assert missing == name
        assert f"no {folder / file}" in where and origin in where, where
        with pytest.raises(FileNotFoundError) as exc:
            khalid.load_dataset(name, data_home=tmp_path)
        assert where in str(exc.value)
    rng = np.random.default_rng(0)
    _write_libsvm(tmp_path / "glass" / "glass.scale", rng.normal(size=(12, 9)),
                  np.repeat([1, 2, 3, 5, 6, 7], 2))
    assert khalid.missing_sets(["glass"], tmp_path) == []
    X, y01, info = khalid.load_dataset("glass", data_home=tmp_path)
    assert X.shape == (12, 9) and y01.sum() == 2
    assert "glass.mat" not in info["note"]  # (the note is about LIBOL's copy)
