"""No module writes another object's private state; distributed/ calls no private method.

``birank.distributed`` once fitted BBR/LCBR by writing ``_state``,
``_solver_used``, ``_rng`` and calling ``_solve``; it now goes through the public
hook ``fit_moments``. These AST checks keep it so:

* nowhere in ``src/birank``: ``obj._x = ...`` (or ``+=``, ``del obj._x``,
  ``setattr(obj, "_x", ...)``, ``delattr``) where ``obj`` is not ``self`` / ``cls``:
  an object's private state is set only by its own class's code;
* in ``distributed/``: no call ``obj._method(...)`` except on a module imported
  by name (private helpers of birank's own modules are fine, estimators' are not).
"""

import ast
from pathlib import Path

import birank

SRC = Path(birank.__file__).parent
OWN = {"self", "cls"}
#: records that are not objects with a class of their own: the CLI's argparse.Namespace
RECORDS = {"args"}


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _owner(node):
    return node.id if isinstance(node, ast.Name) else None


def private_writes(tree):
    """(line, text) of every write to a private attribute of an object other than self/cls."""
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            for sub in ast.walk(t):
                if (isinstance(sub, ast.Attribute) and _private(sub.attr)
                        and _owner(sub.value) not in OWN | RECORDS):
                    out.append((sub.lineno, ast.unparse(sub)))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr") and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
                and _private(node.args[1].value)
                and _owner(node.args[0]) not in OWN | RECORDS):
            out.append((node.lineno, ast.unparse(node)))
    return out


def private_calls(tree):
    """(line, text) of every call ``obj._m(...)``, obj neither self/cls nor an imported module."""
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules.update((a.asname or a.name).split(".")[0] for a in node.names)
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and _private(node.func.attr) and _owner(node.func.value) not in OWN | modules):
            out.append((node.lineno, ast.unparse(node.func)))
    return out


def _violations(check, paths):
    found = []
    for path in paths:
        for line, text in check(ast.parse(path.read_text(), filename=str(path))):
            found.append(f"{path.relative_to(SRC)}:{line}: {text}")
    return found


def test_no_module_writes_another_objects_private_state():
    assert _violations(private_writes, sorted(SRC.rglob("*.py"))) == []


def test_distributed_calls_no_private_method():
    assert _violations(private_calls, sorted((SRC / "distributed").rglob("*.py"))) == []


def test_the_checks_catch_what_they_forbid():
    """The two checks are not vacuous: the old distributed code is caught."""
    old = ast.parse("est._state = {}\nest._rng = rng\nsetattr(est, '_x', 1)\ndel est._y\n"
                    "est._solve(m)\nself._ok = 1\n_metrics._pair_counts(y)\n"
                    "from birank import metrics as _metrics\n")
    assert sorted(t for _, t in private_writes(old)) == [
        "est._rng", "est._state", "est._y", "setattr(est, '_x', 1)"]
    assert [t for _, t in private_calls(old)] == ["est._solve"]
