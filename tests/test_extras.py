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
