"""The architecture rules of docs/architecture.md, checked on the source: arrows point one way."""

import ast
import doctest
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

import pytest

import birank

SRC = Path(birank.__file__).parent


def _imports(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            names.add(("." * node.level) + mod)
    return names


@pytest.mark.parametrize("path", sorted((SRC / "_kernels").glob("*.py")), ids=lambda p: p.name)
def test_kernels_import_only_numpy_numba_and_stdlib(path):
    # llvmlite: numba's own code generator (ahead.py asks it for the host CPU)
    allowed_roots = {"numpy", "numba", "llvmlite", "."} | set(sys.stdlib_module_names)
    for name in _imports(path):
        root = name.split(".")[0] or "."
        assert root in allowed_roots, f"{path.name} imports {name}"


@pytest.mark.parametrize("path", sorted((SRC / "_kernels").glob("*.py")), ids=lambda p: p.name)
def test_kernels_are_cached_and_not_fastmath(path):
    text = path.read_text()
    for line in text.splitlines():
        if line.strip().startswith(("@njit", "@numba.njit", "@jit", "@numba.jit")):
            assert "cache=True" in line, f"{path.name}: {line.strip()} lacks cache=True"
            assert "fastmath=True" not in line, f"{path.name}: fastmath on {line.strip()}"


def _modules():
    out = []
    for info in pkgutil.walk_packages(birank.__path__, "birank."):
        if info.name.endswith("__main__"):  # (running it would start the CLI)
            continue
        out.append(info.name)
    return sorted(out)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name):
    """The one place docstring examples run: every module, cli/ included."""
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_public_estimators_have_examples():
    for name in birank.__all__:
        obj = getattr(birank, name)
        doc = obj.__doc__ or ""
        assert "Examples" in doc and ">>>" in doc, f"{name} has no runnable example"
        assert "Parameters" in doc, f"{name} docstring lacks a Parameters section"


_DOCUMENTED_MODULES = ("birank.metrics", "birank.pairs", "birank.model_selection",
                       "birank.model_io", "birank.datasets", "birank.distributed",
                       "birank.active_learning")


def _without_example(module):
    """The functions and classes of ``module.__all__`` whose docstring shows no example
    (constants such as ``LIBSVM_DATASETS`` are skipped)."""
    missing = []
    for name in module.__all__:
        obj = getattr(module, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        doc = obj.__doc__ or ""
        if not ("Examples" in doc and ">>>" in doc):
            missing.append(f"{module.__name__}.{name}")
    return missing


@pytest.mark.parametrize("module_name", _DOCUMENTED_MODULES)
def test_public_functions_and_classes_have_examples(module_name):
    """Every function and class a public module lists in ``__all__`` shows an example."""
    if module_name == "birank.distributed":
        pytest.importorskip("dask.array")  # (birank.distributed needs Dask)
    assert _without_example(importlib.import_module(module_name)) == [], "no runnable example"


def _experiment_modules():
    import birank.experiments

    names = [f"birank.experiments.{m.name}" for m in pkgutil.iter_modules(
        birank.experiments.__path__)]
    return [name for name in sorted(names) if hasattr(importlib.import_module(name), "__all__")]


@pytest.mark.parametrize("module_name", _experiment_modules())
def test_experiment_functions_and_classes_have_examples(module_name):
    """So do the reproductions' modules (``birank.experiments``): a quick helper's example
    runs (test_docstring_examples_run); the call of a long run (``run``) is shown with
    ``# doctest: +SKIP``."""
    assert _without_example(importlib.import_module(module_name)) == [], "no example"
