"""``birank reproduce``: never overwrites without --force, quick runs under *-quick.* names,
missing data is a non-zero exit naming the set (the real entry point, as a subprocess)."""

import os
import subprocess
import sys

import pytest

BIRANK = [sys.executable, "-c", "import sys; from birank.cli import main; sys.exit(main())"]
SMALL = ["--datasets", "heart", "--hd-datasets", "--no-ablations"]


def _run(args, cwd, home):
    env = dict(os.environ, BIRANK_DATA=str(home))
    return subprocess.run(BIRANK + args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """A folder holding 'full' results, then a quick run in it."""
    folder = tmp_path_factory.mktemp("results")
    home = tmp_path_factory.mktemp("data-home")  # empty: heart comes from the bundled copy
    full = {"khalid.md": b"full report\n", "khalid.json": b"{}\n",
            "khalid-fig1.png": b"\x89PNG full figure"}
    for name, data in full.items():
        (folder / name).write_bytes(data)
    proc = _run(["reproduce", "khalid", "--quick", *SMALL, "--output", "."], folder, home)
    return folder, home, full, proc


def test_quick_run_leaves_full_results_byte_identical(quick_run):
    folder, _, full, proc = quick_run
    assert proc.returncode == 0, proc.stderr
    for name, data in full.items():
        assert (folder / name).read_bytes() == data
    assert (folder / "khalid-quick.md").is_file() and (folder / "khalid-quick-fig1.png").is_file()
    text = (folder / "khalid-quick.md").read_text()
    assert "quick run" in text.lower()
    # no machine paths in the report or the JSON
    for name in ("khalid-quick.md", "khalid-quick.json"):
        body = (folder / name).read_text()
        assert str(folder) not in body and "/tmp/" not in body and "birank-reproduce" not in body


def test_existing_results_are_not_overwritten_without_force(quick_run):
    folder, home, _, _ = quick_run
    before = (folder / "khalid-quick.md").read_bytes()
    proc = _run(["reproduce", "khalid", "--quick", *SMALL, "--output", "."], folder, home)
    assert proc.returncode != 0 and "--force" in proc.stderr
    assert (folder / "khalid-quick.md").read_bytes() == before
    # a full run would overwrite khalid.md: refused before any work
    proc = _run(["reproduce", "khalid", *SMALL, "--output", "."], folder, home)
    assert proc.returncode != 0 and "khalid.md exists" in proc.stderr


def test_missing_data_is_a_nonzero_exit_naming_each_set(tmp_path):
    proc = _run(["reproduce", "khalid", "--quick", "--datasets", "heart", "glass", "cod-rna",
                 "--hd-datasets", "--no-ablations", "--output", "out"], tmp_path, tmp_path)
    assert proc.returncode != 0
    assert "glass" in proc.stderr and "cod-rna" in proc.stderr
    assert "birank datasets fetch cod-rna" in proc.stderr
    assert not (tmp_path / "out").exists()
    proc = _run(["reproduce", "donmez", "--quick", "--datasets", "MQ2008", "--output", "out"],
                tmp_path, tmp_path)
    assert proc.returncode != 0 and "MQ2008" in proc.stderr
    # every paper refuses before any work: shen-lin used to run a9a first and stop at letter
    # (its partial results left in a temporary folder), lin-jan-lin to run its artificial part
    # and then refuse, its files already written
    proc = _run(["reproduce", "shen-lin", "--quick", "--datasets", "a9a", "letter", "--output",
                 "out"], tmp_path, tmp_path)
    assert proc.returncode != 0 and "letter" in proc.stderr and "a9a" not in proc.stderr
    assert "birank datasets fetch letter" in proc.stderr and "partial results" not in proc.stderr
    assert not (tmp_path / "out").exists()
    proc = _run(["reproduce", "lin-jan-lin", "--quick", "--datasets", "housing", "bodyfat",
                 "--output", "out"], tmp_path, tmp_path)
    assert proc.returncode != 0 and "bodyfat" in proc.stderr and "--download" in proc.stderr
    assert "housing" not in proc.stderr  # bundled with birank
    assert not (tmp_path / "out").exists()


def test_lin_jan_lin_uses_the_bundled_housing_when_the_data_folder_lacks_it(tmp_path):
    # housing ships with birank (raw values); the protocol scales every set to [-1, 1]
    from birank.experiments import lin_jan_lin

    X, y, src = lin_jan_lin.load_real("housing", data_home=tmp_path)
    assert X.shape == (506, 13) and "bundled" in src
    assert X.min() == -1.0 and X.max() == 1.0 and y.min() == 5.0 and y.max() == 50.0
    assert lin_jan_lin.missing_data(["housing", "bodyfat"], tmp_path) == [
        ("bodyfat", lin_jan_lin.missing_data(["bodyfat"], tmp_path)[0][1])]


def test_gultekin_uses_the_bundled_sets_when_the_data_folder_lacks_them(tmp_path):
    from birank.experiments import gultekin_paisley

    X, y, Xt, yt = gultekin_paisley._load_data(tmp_path, "german.numer")
    assert X.shape == (1000, 24) and Xt is None
    X, y, Xt, yt = gultekin_paisley._load_data(tmp_path, "a9a")
    assert X.shape[1] == Xt.shape[1] == 123 and Xt.shape[0] == 16281
    assert gultekin_paisley._load_data(tmp_path, "svmguide3") is None  # not bundled: missing


def test_quick_names_and_scrubbing():
    from birank.cli import _reproduce

    assert _reproduce._quick_name("shen-lin-fig5.png") == "shen-lin-fig5-quick.png"
    assert _reproduce._quick_name("donmez-quick.json") == "donmez-quick.json"
    assert _reproduce._scrub("data /x/y/z and /x/y", [("/x/y/", "DATA_HOME/"),
                                                      ("/x/y", "DATA_HOME")]) == \
        "data DATA_HOME/z and DATA_HOME"


def test_every_protocol_takes_a_libsvm_file(tmp_path):
    import numpy as np
    from sklearn.datasets import dump_svmlight_file

    from birank.experiments import gultekin_paisley, lin_jan_lin

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    path = tmp_path / "mine.svm"
    dump_svmlight_file(X, X[:, 0] * 3.0 + 5.0, str(path), zero_based=False)
    Xs, y, src = lin_jan_lin.load_real(str(path))
    assert Xs.shape == (40, 3) and src == "mine.svm" and np.abs(Xs).max() <= 1.0 + 1e-12
    dump_svmlight_file(X, np.where(X[:, 0] > 0, 1, -1), str(path), zero_based=False)
    Xg, yg, Xt, yt = gultekin_paisley._load_data(tmp_path, str(path))
    assert Xg.shape == (40, 3) and set(yg) == {-1.0, 1.0} and Xt is None


def test_shen_lin_uses_the_bundled_a9a(tmp_path):
    from birank.experiments import shen_lin

    info, splits = shen_lin.load_splits(shen_lin.SPECS["a9a"], data_home=tmp_path)
    assert info["positive"] == 7841 and splits[0][2].shape == (16281, 123)
    with pytest.raises(FileNotFoundError, match="birank datasets fetch w8a"):
        shen_lin.load_splits(shen_lin.SPECS["w8a"], data_home=tmp_path)


def test_missing_sets_are_found_at_any_depth_and_staged_runs_name_no_temp_folder(tmp_path,
                                                                                  capsys):
    """gultekin records its missing sets per section: `reproduce gultekin` exited 0 without
    --skip-missing; and the modules printed `wrote /tmp/birank-reproduce-.../...`, a
    staging folder that no longer exists when the command ends."""
    import json

    from birank.cli._reproduce import _missing_in
    from birank.experiments import _report

    doc = {"section_5_2": {"missing_datasets": ["svmguide3"], "datasets": {}},
           "missing": [["cod-rna", "how"]], "other": [{"missing": ["svmguide3"]}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    assert _missing_in(path) == ["svmguide3", "cod-rna"]
    _report.say_written([tmp_path / "a.md"])
    assert "a.md" in capsys.readouterr().out
    _report.STAGED = True
    try:
        _report.say_written([tmp_path / "a.md"])
    finally:
        _report.STAGED = False
    assert capsys.readouterr().out == ""


def test_gultekin_refuses_missing_data_before_any_work(tmp_path, capsys):
    """It ran its Gaussian part and section 5.2 on the sets it had, wrote its files, and
    exited 0 with svmguide3 missing; it now refuses first, as the other four do."""
    from birank.cli import main

    out = tmp_path / "out"
    assert main(["reproduce", "gultekin", "--quick", "-q", "--data-home", str(tmp_path),
                 "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "data not found for svmguide3" in err and "birank datasets fetch svmguide3" in err
    assert not out.exists() or not any(out.iterdir())


def test_data_dir_is_the_deprecated_name_of_data_home(tmp_path, capsys):
    """--data-dir (the name before 1.0) still gives the data folder, with one line on stderr
    saying it is deprecated; --data-home says nothing of it; both together are refused.
    (gultekin refuses an empty data folder before any work: a fast run of the option.)"""
    from birank.cli import main
    from birank.experiments import khalid

    out = tmp_path / "out"
    base = ["reproduce", "gultekin", "--quick", "-q", "--output", str(out)]
    assert main([*base, "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if "deprecated" in line]
    assert len(notes) == 1 and "--data-home" in notes[0] and "1.0" in notes[0], err
    assert f"(now {tmp_path})" in err  # the folder given is the one looked in
    assert main([*base, "--data-home", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"(now {tmp_path})" in err and "deprecated" not in err and "--data-dir" not in err
    assert main([*base, "--data-home", str(tmp_path), "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--data-dir and --data-home both given" in err and "deprecated" in err
    assert "(now" not in err  # refused before looking for data
    assert not out.exists()
    with pytest.raises(SystemExit):
        main(["reproduce", "gultekin", "--help"])
    help_text = capsys.readouterr().out
    assert "--data-home" in help_text and "--data-dir" not in help_text
    # khalid records its command line: under the current name
    assert khalid._command(["--data-dir", "/x", "--quick"]) == \
        "birank reproduce khalid --data-home DATA_HOME --quick"


def test_shen_lin_figures_of_a_small_budget(tmp_path):
    # --budget 500 (5 batches of 100): curves of 5 points; the y range skipped the first 5
    # and took the minimum of nothing ("zero-size array to reduction operation fmin")
    from birank.experiments import shen_lin

    def curve(aucs):
        return {"n_chosen": [100, 200, 300, 400, 500][:len(aucs)], "auc": aucs,
                "rejections": [0, 3, 5, 8, 9][:len(aucs)]}

    methods = {m: {"curves": [curve([0.80, 0.85, 0.86, 0.87, 0.88])], "auc": [0.88]}
               for m in ("Random", "Soft-Close", "Soft-Correct")}
    methods["Soft-Close"]["curves"].append(curve([0.81, 0.84, float("nan")]))
    methods["WSVM"] = {"auc": [0.95]}
    paths = shen_lin._plots({"a9a": {"info": {}, "methods": methods}}, {}, tmp_path,
                            {"batch_size": 100})
    assert [p.name for p in paths] == ["shen-lin-fig5.png", "shen-lin-fig6.png"]
    assert all(p.stat().st_size > 0 for p in paths)


def test_lin_jan_lin_draws_only_the_kernels_that_ran(tmp_path, monkeypatch):
    # --skip real-rbf: the RBF panel was drawn empty, with an empty legend and matplotlib's
    # "No artists with labels found to put in legend" warning
    import warnings

    from birank.experiments import lin_jan_lin

    panels = []
    new_figure = lin_jan_lin.new_figure

    def counting(n_panels=1, *args, **kwargs):
        panels.append(n_panels)
        return new_figure(n_panels, *args, **kwargs)

    monkeypatch.setattr(lin_jan_lin, "new_figure", counting)
    cell = {"total": {"acc": [0.8, 0.82], "size": [1000, 1000]},
            lin_jan_lin._budget_method(1): {"acc": [0.79, 0.8], "size": [40, 40]}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        paths = lin_jan_lin._plots({"real": {"housing": {"linear": cell}}},
                                   {"budget_multiples": [1]}, tmp_path)
    assert [p.name for p in paths] == ["lin-jan-lin-pairs.png"] and panels == [1]
    assert lin_jan_lin._plots({"real": {}}, {}, tmp_path) == []

