"""matplotlib and pooch are optional: a clear ImportError names the extra to install."""

import subprocess
import sys

import pytest

from birank._extras import require


def test_missing_matplotlib_names_the_plot_extra(monkeypatch):
    from birank.experiments._report import new_figure

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(ImportError, match=r'pip install "birank\[plot\]"'):
        new_figure(1)


def test_missing_pooch_names_the_fetch_extra(monkeypatch, tmp_path):
    from birank.datasets._fetch import _fetch_file

    monkeypatch.setitem(sys.modules, "pooch", None)
    with pytest.raises(ImportError, match=r'pip install "birank\[fetch\]"'):
        _fetch_file("a9a", str(tmp_path), "https://example.invalid", True, False)


def test_cached_file_needs_no_pooch(monkeypatch, tmp_path):
    from birank.datasets._fetch import _fetch_file

    (tmp_path / "x.txt").write_text("1 1:1\n")
    monkeypatch.setitem(sys.modules, "pooch", None)
    assert _fetch_file("x.txt", str(tmp_path), "https://example.invalid", True, False,
                       known=None).endswith("x.txt")


def test_core_import_needs_neither():
    # a fresh interpreter in which matplotlib and pooch cannot be imported
    code = ("import sys; sys.modules['matplotlib'] = sys.modules['pooch'] = None\n"
            "import birank, birank.datasets, birank.experiments, birank.cli\n"
            "from birank.datasets import load_heart\n"
            "X, y = load_heart()\n"
            "print(birank.RankSVM().fit(X, y).predict(X[:3]).tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert set(eval(out.stdout)) <= {-1.0, 1.0}


def test_require_returns_the_module():
    assert require("json", "testing").dumps([1]) == "[1]"


@pytest.mark.parametrize("argv", [
    ["demo", "--scale", "0.01"],
    ["reproduce", "shen-lin", "--quick"],
    ["reproduce", "gultekin", "--quick"],
    ["reproduce", "donmez", "--quick"],
    ["reproduce", "khalid", "--quick"],
    ["reproduce", "lin-jan-lin", "--quick"],
])
def test_commands_that_draw_refuse_before_any_work_without_matplotlib(argv, monkeypatch,
                                                                      tmp_path, capsys):
    # they crashed after all the work ("internal error: ImportError", exit 1), the demo's
    # results already written (a rerun refused without --force)
    from birank.cli import main

    monkeypatch.setenv("BIRANK_DATA", str(tmp_path / "data"))
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "out"
    assert main([*argv, "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert 'pip install "birank[plot]"' in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1  # one line, before any progress
    assert not out.exists()


def test_a_run_that_draws_nothing_needs_no_matplotlib():
    from argparse import Namespace

    from birank.experiments import gultekin_paisley, lin_jan_lin

    assert not gultekin_paisley.draws_figures(Namespace(from_json="g.json"))
    assert gultekin_paisley.draws_figures(Namespace(from_json=None))
    parts = ["real", "fig1", "fig2", "fig3"]
    assert not lin_jan_lin.draws_figures(Namespace(skip=parts, merge=[]))
    assert lin_jan_lin.draws_figures(Namespace(skip=parts[1:], merge=[]))


def test_cli_reports_a_missing_extra_as_the_users_to_install(monkeypatch, capsys):
    # an optional package missing is a user error (exit 2, the extra named); any other
    # ImportError stays an internal error
    from birank.cli import _datasets, main

    def needs_pooch(args):
        require("pooch", "Downloading data sets")

    monkeypatch.setitem(sys.modules, "pooch", None)
    monkeypatch.setattr(_datasets, "_fetch", needs_pooch)
    assert main(["datasets", "fetch", "heart"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("birank datasets: error: ") and 'pip install "birank[fetch]"' in err

    def raw_import(args):
        import pooch  # noqa: F401

    monkeypatch.setattr(_datasets, "_fetch", raw_import)
    assert main(["datasets", "fetch", "heart"]) == 2
    assert 'pip install "birank[fetch]"' in capsys.readouterr().err

    def broken(args):
        raise ImportError("cannot import name 'nothing' from 'birank'")

    monkeypatch.setattr(_datasets, "_fetch", broken)
    assert main(["datasets", "fetch", "heart"]) == 1
    assert "internal error" in capsys.readouterr().err
