"""Functions take their data positionally and their settings by keyword only (scikit-learn's
rule, docs/conventions.md): ``make_sparse_bipartite(n, 10_000, 20)`` is a TypeError,
``fetch_letor(name, 1, "test")`` too, and a seed is called ``random_state``.

Checked over the whole public API, not a list of functions: the ``__all__`` of ``birank``
and of every module without a leading underscore in its name, the reproductions' helper
modules (``birank.experiments._report``, ``_grid``, ``_stats``: their ``__all__``, as
tests/test_typing.py reads them), and every public method of the classes these list
(inherited ones included). Not checked: ``birank.solvers`` (internal, docs/versioning.md:
the solvers' calling conventions may change in any release) and ``birank.cli`` (the
command line; ``main(argv)`` takes its arguments as data).

The rules (:func:`_violations`):

1. The first parameter may be positional: what a function works on, or the parameter
   of an estimator users set most often. After it, a parameter with a default is a
   setting, keyword-only, unless it is optional row data (``groups``, ``X_pool``) or one
   of scikit-learn's positions: ``fit(X, y, sample_weight)``, ``partial_fit(X, y,
   classes, sample_weight)``, ``score(X, y, sample_weight)``.
2. One name, one kind: a name that is keyword-only somewhere in the public API, or a
   constructor parameter of a public estimator, names a setting and is keyword-only
   everywhere; this catches required settings (``core_lcbr(X, y01, radius, n_pairs,
   ...)``) and, when it has a default, a setting in first place (``load_a9a(subset)``
   as ``fetch_letor(name, *, subset)``).
3. No ``seed`` or ``rng`` parameter: a seed or generator is ``random_state``.

:data:`ALLOWED` lists the few positional parameters the rules would refuse, each with
the reason it is data.
"""

import importlib
import inspect
import pkgutil

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import birank
from birank import PrunedRankSVM
from birank import datasets
from birank.datasets._svmlight import load_svmlight_bytes
from birank.pairs import sample_pair_ids

#: optional data that goes with the rows (query ids, the pool of active learning)
OPTIONAL_DATA = {"groups", "X_pool"}
#: scikit-learn's positional parameters of these methods
SKLEARN_POSITIONS = {"fit": ("X", "y", "sample_weight"),
                     "partial_fit": ("X", "y", "classes", "sample_weight"),
                     "score": ("X", "y", "sample_weight")}
SEED_NAMES = {"seed", "rng", "random_seed", "generator"}

#: (callable, parameter) -> why it stays positional although a rule flags it
ALLOWED = {
    # scikit-learn's get_data_home(data_home=None): the folder is what it resolves
    ("birank.datasets._fetch.get_data_home", "data_home"):
        "the input, as scikit-learn's get_data_home(data_home)",
    # same names, other concepts than the keyword-only ones elsewhere (rule 2):
    ("birank.datasets._gaussian_mixture.gaussian_mixture_bayes_scores", "params"):
        "the mixture whose Bayes scores are computed (make_gaussian_mixture's params= "
        "draws from one)",
    ("birank.pairs.sample_pair_ids", "size"): "how many pair ids to draw, numpy's size "
                                              "(new_figure's size= is a panel's height)",
    ("birank.model_selection.edge_side", "chosen"):
        "the value a search chose (sample_pair_ids's chosen= is a set of pairs); also "
        "birank.experiments._grid's",
    ("birank.experiments.donmez_extensions.run_variants", "args"):
        "the run's parsed command line (DaskEngine.map_buckets's args= are call arguments)",
    # a record of files: the test files are data as the training files are
    ("birank.experiments.shen_lin.DatasetSpec.__init__", "test"):
        "the test files, beside the training files",
}


def _public_modules():
    names = ["birank"]
    for info in pkgutil.walk_packages(birank.__path__, "birank."):
        parts = info.name.split(".")
        if info.name.endswith("__main__") or parts[1] in ("solvers", "cli"):
            continue
        private = any(p.startswith("_") for p in parts[1:])
        if private and not (parts[1] == "experiments" and len(parts) == 3):
            continue
        names.append(info.name)
    out = []
    for name in sorted(names):
        try:
            module = importlib.import_module(name)
        except ImportError:
            if name.startswith("birank.distributed"):  # (needs Dask: checked where present)
                continue
            raise
        if hasattr(module, "__all__"):
            out.append(module)
    return out


def _functions(obj):
    """The functions behind a class attribute (methods, static/class methods, scikit-learn's
    ``available_if``)."""
    if isinstance(obj, (staticmethod, classmethod)):
        return [obj.__func__]
    if hasattr(obj, "fn") and inspect.isfunction(obj.fn):
        return [obj.fn]
    return [obj] if inspect.isfunction(obj) else []


def _public_callables():
    """``{qualified name: function}`` of every public function and method."""
    seen = {}
    for module in _public_modules():
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and obj.__module__.startswith("birank"):
                for klass in obj.__mro__:
                    if not klass.__module__.startswith("birank"):
                        continue
                    for attr_name, attr in vars(klass).items():
                        if attr_name.startswith("_") and attr_name != "__init__":
                            continue
                        for fn in _functions(attr):
                            if fn.__module__.startswith("birank"):
                                seen.setdefault(fn, f"{klass.__module__}.{klass.__qualname__}"
                                                    f".{attr_name}")
            elif inspect.isfunction(obj) and obj.__module__.startswith("birank"):
                seen.setdefault(obj, f"{obj.__module__}.{obj.__qualname__}")
    return {where: fn for fn, where in seen.items()}


def _parameters(fn):
    params = list(inspect.signature(fn).parameters.values())
    return params[1:] if params and params[0].name in ("self", "cls") else params


def _setting_names(callables):
    """Names that are keyword-only somewhere, and the public estimators' parameters."""
    names = {p.name for fn in callables.values() for p in _parameters(fn)
             if p.kind is p.KEYWORD_ONLY}
    for name in birank.__all__:
        obj = getattr(birank, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            names |= set(inspect.signature(obj).parameters)
    # data: keyword-only only where scikit-learn's rule puts them after other data
    return names - OPTIONAL_DATA - {"sample_weight", "classes"}


def _violations(where, fn, setting_names):
    method = where.rsplit(".", 1)[-1]
    out = []
    for i, p in enumerate(_parameters(fn)):
        if p.name in SEED_NAMES:
            out.append(f"{where}: {p.name!r} is a seed: call it random_state")
        if p.kind is not p.POSITIONAL_OR_KEYWORD or (where, p.name) in ALLOWED:
            continue
        positions = SKLEARN_POSITIONS.get(method, ())
        if i < len(positions) and p.name == positions[i]:
            continue
        has_default = p.default is not p.empty
        if i == 0 and (not has_default or method == "__init__"):
            continue  # the first: what the function works on / an estimator's main one
        if i > 0 and has_default and p.name not in OPTIONAL_DATA:
            out.append(f"{where}: {p.name!r} has a default (a setting) but is positional")
        elif p.name in setting_names:
            out.append(f"{where}: {p.name!r} names a setting (keyword-only elsewhere) but "
                       f"is positional")
    return out


def test_public_settings_are_keyword_only():
    callables = _public_callables()
    assert len(callables) > 150  # the walk reaches the estimators, modules and experiments
    setting_names = _setting_names(callables)
    found = [v for where, fn in sorted(callables.items())
             for v in _violations(where, fn, setting_names)]
    assert not found, "positional settings in the public API:\n" + "\n".join(found)


def test_allowed_entries_exist():
    """Every allow-list entry still names a positional parameter (no stale entries)."""
    callables = _public_callables()
    for where, name in ALLOWED:
        params = {p.name: p for p in _parameters(callables[where])}
        assert params[name].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, (where, name)


def _bad_function(X, y, n_iter=10, *, verbose=False):
    return X


def _bad_required(X, y01, radius, seed):
    return X


def _good_function(X, y_true, groups=None, *, radius=1.0, random_state=None):
    return X


def test_the_check_catches_positional_settings():
    names = {"radius", "random_state"}
    assert _violations("m._bad_function", _bad_function, names) == [
        "m._bad_function: 'n_iter' has a default (a setting) but is positional"]
    found = _violations("m._bad_required", _bad_required, names)
    assert any("'radius' names a setting" in v for v in found)
    assert any("'seed' is a seed" in v for v in found)
    assert _violations("m._good_function", _good_function, names) == []


def test_positional_settings_are_a_type_error():
    from birank.active_learning.strategies import lossmin_multilevel_scores
    from birank.base import data_scaled, decision_cut, reset_fitted
    from birank.experiments import khalid
    from birank.experiments._report import markdown_table
    from birank.experiments.donmez_extensions import make_learner
    from birank.experiments.gultekin_paisley import core_lcbr, core_moment_bbr
    from birank.experiments.gultekin_theory import run_theory
    from birank.experiments.lin_jan_lin import make_artificial

    rng = np.random.default_rng(0)
    X, y01 = rng.normal(size=(20, 2)), np.repeat(np.array([0, 1], dtype=np.int8), 10)
    calls = [
        lambda: datasets.make_sparse_bipartite(100, 50, 5),
        lambda: datasets.make_linear_ranking(100, 5),
        lambda: sample_pair_ids(10, 3, np.random.default_rng(0)),
        lambda: datasets.letor_fold_parts("MQ2008", 1, "train"),
        lambda: load_svmlight_bytes(b"1 1:1\n", "name", 3),
        lambda: datasets.load_a9a("test"),
        lambda: markdown_table(["a", "b"], [[1, 2]], ["l", "r"]),
        lambda: make_artificial(0.1, 0),
        lambda: run_theory(2),
        lambda: khalid.select_parameter(lambda p, s: None, X, y01, [1.0, 2.0], 0),
        lambda: make_learner("lossmin", 2, 1.0, 0),
        lambda: core_lcbr(X, y01, 1.0, 50, 0),
        lambda: core_moment_bbr(X, y01, 1.0),
        lambda: lossmin_multilevel_scores(rng.normal(size=5), None, 3),
        lambda: decision_cut(rng.normal(size=20), y01, np.ones(20)),
        lambda: data_scaled("auto", X, 0.3),
        lambda: reset_fitted(object(), ()),
    ]
    for call in calls:
        with pytest.raises(TypeError):
            call()


def test_renamed_names():
    from birank.experiments.gultekin_paisley import core_lcbr
    from birank.experiments.lin_jan_lin import make_artificial

    # random_state is read as check_random_state reads it: a Generator is used as is,
    # an int seeds a fresh one (the same numbers as the Generator it names)
    a = sample_pair_ids(10**6, 5, random_state=np.random.default_rng(3))
    assert np.array_equal(a, sample_pair_ids(10**6, 5, random_state=3))
    assert "rng" not in inspect.signature(sample_pair_ids).parameters
    (X1, y1), _, _ = make_artificial(0.1, random_state=np.random.default_rng(4))
    (X2, y2), _, _ = make_artificial(0.1, random_state=4)
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2)
    y01 = (X1[:, 0] > 0).astype(np.int8)
    assert np.array_equal(core_lcbr(X1, y01, radius=1.0, n_pairs=50, random_state=5),
                          core_lcbr(X1, y01, radius=1.0, n_pairs=50,
                                    random_state=np.random.default_rng(5)))
    # PrunedRankSVM's pair duals are pair_dual_coef_ (alpha_ is the L2 strength elsewhere)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    model = PrunedRankSVM(n_random=5, random_state=0).fit(X, X @ [1.0, -1.0, 0.5])
    assert model.pair_dual_coef_.shape == model.pairs_[0].shape
    assert not hasattr(model, "alpha_")
