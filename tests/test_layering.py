"""Arrows point one way: every module of src/birank imports only from its own layer or lower.

Layers, lowest first (docs/architecture.md):

    _kernels  <  leaves (metrics, pairs, datasets, _validation, _progress, exceptions)
              <  solvers  <  base (the estimator mixins)
              <  estimators (batch, online, active_learning, distributed)
              <  the package root, the registry and model files
              <  experiments  <  cli

A module may import any module of a lower layer and any module of its own
layer; an import of a higher layer is a violation. Imports inside functions
(lazy imports) count too. A module that is in no layer fails the test: every
new module must be placed.
"""

import ast
from pathlib import Path

import pytest

import birank

SRC = Path(birank.__file__).parent

#: first dotted component under ``birank`` -> layer rank (a module's own name for
#: top-level modules, the package name for subpackages)
LAYERS = {
    "_kernels": 0,
    "metrics": 1, "pairs": 1, "datasets": 1, "_validation": 1, "_progress": 1,
    "exceptions": 1, "_memory": 1, "model_selection": 1,
    "solvers": 2,
    "base": 3, "_threshold_tail": 3,
    "batch": 4, "online": 4, "active_learning": 4, "distributed": 4,
    "_linalg": 1, "_dots": 1, "_lexsort": 1, "_parallel": 1, "_calibration": 1, "_extras": 1,
    "_typing": 1, "_chunked_sort": 1,
    "__init__": 5, "_registry": 5, "model_io": 5,
    "experiments": 6,
    "cli": 7, "__main__": 7,
}
LAYER_NAMES = {0: "_kernels", 1: "leaf", 2: "solvers", 3: "base", 4: "estimators",
               5: "package root / registry / model files", 6: "experiments", 7: "cli"}


def module_name(path, root):
    """``birank.x.y`` for ``root/x/y.py`` (a package is named by its ``__init__``'s folder)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["birank", *parts])


def _is_package(name, root):
    return (root.joinpath(*name.split(".")[1:]) / "__init__.py").exists()


def _exists(name, root):
    rel = name.split(".")[1:]
    if not rel:
        return True
    return root.joinpath(*rel).with_suffix(".py").exists() or _is_package(name, root)


def imports_of(path, root):
    """The birank modules ``path`` imports (absolute and relative, at any depth of the file)."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "birank")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.split(".")[0] == "birank":
                target = node.module
            else:
                continue
            for alias in node.names:  # ``from .. import solvers``: the submodule itself
                sub = f"{target}.{alias.name}"
                out.add(sub if _exists(sub, root) else target)
    return out


def layer_of(name):
    """Rank of ``birank.<first>...``; None for a module in no layer."""
    parts = name.split(".")
    return LAYERS.get(parts[1] if len(parts) > 1 else "__init__")


def violations(graph):
    """``(importer, imported, why)`` for every wrong-way or unplaced edge of ``graph``."""
    bad = []
    for mod, targets in sorted(graph.items()):
        r = layer_of(mod)
        if r is None:
            bad.append((mod, None, "module is in no layer: add it to LAYERS"))
            continue
        for t in sorted(targets):
            rt = layer_of(t)
            if rt is None:
                bad.append((mod, t, "imported module is in no layer"))
            elif rt > r:
                bad.append((mod, t, f"{LAYER_NAMES[r]} imports {LAYER_NAMES[rt]}"))
    return bad


def package_graph(root):
    return {module_name(p, root): imports_of(p, root) for p in sorted(root.rglob("*.py"))}


def test_every_module_imports_only_its_layer_or_lower():
    graph = package_graph(SRC)
    assert len(graph) > 40  # the whole package was read
    bad = violations(graph)
    assert not bad, "wrong-way imports:\n" + "\n".join(f"  {a} -> {b}: {why}"
                                                        for a, b, why in bad)


def test_the_known_former_cycles_are_gone():
    graph = package_graph(SRC)
    assert "birank.base" not in graph["birank.metrics"]
    assert not any(t.startswith("birank.cli") for t in graph["birank.experiments.shen_lin"])


# ------------------------------------------------- the checker itself must catch
def test_violations_on_a_synthetic_graph():
    ok = {"birank._kernels.a": set(), "birank.metrics": {"birank._kernels.a"},
          "birank.solvers.x": {"birank.metrics", "birank._kernels.a", "birank.solvers.y"},
          "birank.batch.e": {"birank.solvers.x", "birank.base", "birank.online.f"},
          "birank.experiments.p": {"birank.batch.e", "birank._registry", "birank.exceptions"},
          "birank.cli": {"birank.experiments.p"}}
    assert violations(ok) == []
    for importer, imported in [("birank.metrics", "birank.base"),
                               ("birank._kernels.a", "birank.solvers.x"),
                               ("birank.solvers.x", "birank.batch.e"),
                               ("birank.solvers.x", "birank.base"),
                               ("birank.batch.e", "birank.experiments.p"),
                               ("birank.experiments.p", "birank.cli"),
                               ("birank.pairs", "birank"),
                               ("birank.datasets", "birank.model_io")]:
        graph = {k: set(v) for k, v in ok.items()}
        graph.setdefault(importer, set()).add(imported)
        bad = violations(graph)
        assert [(a, b) for a, b, _ in bad] == [(importer, imported)]
    assert violations({"birank.newthing": set()})[0][2].startswith("module is in no layer")


def test_imports_are_parsed_from_source(tmp_path):
    """Relative, absolute, lazy and ``from .. import submodule`` imports are all seen."""
    root = tmp_path / "birank"
    for rel, text in {
        "__init__.py": "from .batch.e import E\n",
        "metrics.py": "def f():\n    from .base import g  # lazy, wrong way\n",
        "base.py": "from .metrics import f\n",
        "exceptions.py": "",
        "solvers/__init__.py": "",
        "solvers/x.py": "from .. import metrics\nimport birank.batch.e\n",
        "batch/__init__.py": "",
        "batch/e.py": "from ..solvers import x\nfrom . import e\n",
        "experiments/__init__.py": "",
        "experiments/p.py": "from ..cli import UserError\nfrom ..exceptions import UserError\n",
        "cli/__init__.py": "from ..exceptions import UserError\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    graph = package_graph(root)
    assert graph["birank.solvers.x"] == {"birank.metrics", "birank.batch.e"}
    assert graph["birank.batch.e"] == {"birank.solvers.x", "birank.batch.e"}
    assert graph["birank.cli"] == {"birank.exceptions"}
    found = {(a, b) for a, b, _ in violations(graph)}
    assert found == {("birank.metrics", "birank.base"),
                     ("birank.solvers.x", "birank.batch.e"),
                     ("birank.experiments.p", "birank.cli")}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_every_layer_entry_names_something_real(name):
    assert (SRC / name).exists() or (SRC / f"{name}.py").exists()
