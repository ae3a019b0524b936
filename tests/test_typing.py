"""The public API is annotated: every parameter and every return of
every public function, class and method that birank defines, in the estimators of
``birank.__all__`` and in the public modules below. mypy (``make test``) then checks
the bodies; this test keeps a new public function from slipping in unannotated (mypy
does not check, nor complain about, a function with no annotations at all)."""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import birank

PUBLIC_MODULES = ["birank.metrics", "birank.datasets", "birank.model_io", "birank.pairs",
                  "birank.distributed", "birank.exceptions", "birank.active_learning",
                  "birank.base"]


def _own(fn):
    return getattr(fn, "__module__", "").startswith("birank")


def _unwrap(attr):
    """The function behind a class attribute (method, static/class method, property,
    scikit-learn's ``available_if`` descriptor); empty when it is not a function."""
    if isinstance(attr, (staticmethod, classmethod)):
        return [attr.__func__]
    if isinstance(attr, property):
        return [f for f in (attr.fget, attr.fset) if f is not None]
    if hasattr(attr, "fn") and inspect.isfunction(attr.fn):  # available_if
        return [attr.fn]
    if inspect.isfunction(attr):
        return [attr]
    return []


def _missing(fn, where):
    """Descriptions of the unannotated parameters / return of ``fn``."""
    out = []
    sig = inspect.signature(fn, eval_str=False)
    params = list(sig.parameters.values())
    for i, p in enumerate(params):
        if i == 0 and p.name in ("self", "cls"):
            continue
        if p.annotation is inspect.Parameter.empty:
            out.append(f"{where}: parameter {p.name!r}")
    if sig.return_annotation is inspect.Signature.empty:
        out.append(f"{where}: return")
    return out


def _class_items(cls):
    seen = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("birank"):
            continue
        for name, attr in vars(klass).items():
            if name in seen or (name.startswith("_") and name != "__init__"):
                continue
            seen.add(name)
            for fn in _unwrap(attr):
                if _own(fn):
                    yield f"{cls.__module__}.{cls.__qualname__}.{name}", fn


def _public_items():
    objects = [(f"birank.{name}", getattr(birank, name)) for name in birank.__all__]
    for modname in PUBLIC_MODULES:
        mod = importlib.import_module(modname)
        objects += [(f"{modname}.{name}", getattr(mod, name)) for name in mod.__all__]
    for where, obj in objects:
        if inspect.isclass(obj) and obj.__module__.startswith("birank"):
            yield from _class_items(obj)
        elif inspect.isfunction(obj) and _own(obj):
            yield where, obj


def test_public_api_is_annotated():
    items = list(_public_items())
    assert len(items) > 150  # the walk reaches every estimator method and module function
    missing = [m for where, fn in items for m in _missing(fn, where)]
    assert not missing, "unannotated public API:\n" + "\n".join(missing)


def _experiment_modules():
    import birank.experiments

    names = [f"birank.experiments.{m.name}" for m in pkgutil.iter_modules(
        birank.experiments.__path__)]
    return [name for name in sorted(names) if hasattr(importlib.import_module(name), "__all__")]


def test_experiment_functions_are_annotated():
    """The reproductions' helpers that their modules list in ``__all__`` (statistics, grid
    search, reports, data loaders, ``add_arguments`` / ``run``) are annotated too, so that
    mypy checks their bodies."""
    items = []
    for modname in _experiment_modules():
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isclass(obj) and obj.__module__.startswith("birank"):
                items += list(_class_items(obj))
            elif inspect.isfunction(obj) and _own(obj):
                items.append((f"{modname}.{name}", obj))
    assert len(items) > 40
    missing = [m for where, fn in items for m in _missing(fn, where)]
    assert not missing, "unannotated experiment functions:\n" + "\n".join(missing)


@pytest.mark.parametrize("fn", [lambda a, b: None, lambda a: 0])
def test_the_check_catches_a_missing_annotation(fn):
    assert _missing(fn, "f")


def test_type_checkers_see_every_lazy_estimator():
    """``birank/__init__.py`` imports the estimators on first use (PEP 562); its
    ``if TYPE_CHECKING:`` block must name each one, from the module ``_LAZY`` maps it
    to, or ``birank.RankSVM`` would be untyped (Any) to a type checker."""
    tree = ast.parse(Path(birank.__file__).read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and getattr(node.test, "id", None) == "TYPE_CHECKING")
    seen = {alias.name: "." + node.module for node in block.body
            if isinstance(node, ast.ImportFrom) and node.level == 1 for alias in node.names}
    assert seen == birank._LAZY
    # and __all__, a literal list that mypy reads (tests/type_checks/), names the same
    assert birank.__all__ == list(birank._LAZY)


def _expected_parts(constraints):
    """What an annotation must name for each constraint of ``_parameter_constraints``."""
    from birank._validation import Interval, Options

    parts = []
    for c in constraints:
        if c is None:
            parts.append("None")
        elif isinstance(c, Options):
            parts += [f'"{v}"' if isinstance(v, str) else repr(v) for v in c.values]
        elif isinstance(c, Interval):
            parts.append("int" if c.kind == "integer" else "float")
        elif c in ("boolean", "random_state"):
            parts.append({"boolean": "bool", "random_state": "RandomStateLike"}[c])
    return parts


def test_constructor_annotations_agree_with_the_parameter_constraints():
    """A value the estimator accepts is a value its annotation allows: each option
    string is in the ``Literal[...]``, an integer or real interval is ``int`` / ``float``,
    None is allowed where the constraints allow it (``float`` admits an int)."""
    from _public import public_estimator_classes

    bad = []
    for cls in public_estimator_classes():
        params = inspect.signature(cls.__init__).parameters
        for name, constraints in cls._parameter_constraints.items():
            ann = str(params[name].annotation)
            for part in _expected_parts(constraints):
                if part == "int" and "float" in ann:
                    continue
                if part == "None" and "RandomStateLike" in ann:
                    continue
                if part not in ann.replace("'", '"'):
                    bad.append(f"{cls.__name__}.{name}: {ann} lacks {part}")
    assert not bad, "\n".join(bad)


USER_CODE = '''
from birank import CBR, RankSVM
from birank.datasets import load_heart, load_svmlight

X, y = load_heart()
model = RankSVM(0.1, loss="hinge").fit(X, y)
reveal_type(model)
reveal_type(model.predict_proba(X))
reveal_type(CBR().partial_fit(X, y, classes=[-1, 1]))
reveal_type(load_svmlight("train.txt", query_id=True))
CBR(covariance="ful")
'''


def test_a_type_checker_sees_the_api_as_documented(tmp_path):
    """What a user's mypy run sees: ``fit`` / ``partial_fit`` return the estimator's own
    class (``Self``), ``predict_proba`` an array of floats, ``load_svmlight(query_id=True)``
    three values, and a misspelled option is an error naming the allowed ones."""
    from mypy import api

    path = tmp_path / "user.py"
    path.write_text(USER_CODE)
    root = Path(birank.__file__).parents[2]
    out, err, _ = api.run([str(path), "--config-file", str(root / "pyproject.toml"),
                           "--cache-dir", str(root / ".mypy_cache")])
    lines = out.splitlines()
    revealed = [ln.split("Revealed type is ")[1] for ln in lines if "Revealed type" in ln]
    assert revealed[0] == '"birank.batch.ranksvm.RankSVM"', out
    assert "float64" in revealed[1], out
    assert revealed[2] == '"birank.online.cbr.CBR"', out
    assert revealed[3].startswith('"tuple[') and revealed[3].count("ndarray") == 2, out
    errors = [ln for ln in lines if ": error:" in ln]
    assert len(errors) == 1 and "Literal['full', 'diag']" in errors[0], out
