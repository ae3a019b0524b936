"""Sphinx configuration of the birank documentation site (``make docs``)."""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

import birank  # noqa: E402

project = "birank"
author = "birank developers"
copyright = "birank developers"
release = birank.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax served from the site itself: renders offline
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
    "birank_docs",  # generated pages: reproductions, benchmarks, notes toctree
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_templates", "**/_build", "results/scale/*.md",
                    "results/*.md", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "sg_execution_times.rst"]
templates_path = ["_templates"]

# -- autodoc / autosummary / numpydoc -------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": "BaseEstimator",
                           "show-inheritance": False}
autodoc_typehints = "signature"          # type hints shown in each signature
autodoc_typehints_format = "short"
autodoc_preserve_defaults = False
autodoc_member_order = "groupwise"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# Nitpicky mode checks every internal cross-reference; names of other
# libraries cannot be resolved offline (no intersphinx inventories), so they
# are accepted here by package prefix.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sklearn|dask|distributed|matplotlib|pandas|numba|joblib|"
               r"collections|typing|os|pathlib|io|array-like|ArrayLike|NDArray|"
               r"optional|default|callable|array|ndarray|sparse|float|int|str|bool|dict|"
               r"list|tuple|object|None|iterable|Iterator|Iterable|Sequence|Mapping|"
               r"Callable|Any|Literal|Path|PathLike|Generator|self|estimator).*"),
    (r"py:.*", r".*(matrix|array|of shape|like|instance|or |, ).*"),
    # internals that docstrings mention for the curious (not part of the API)
    (r"py:.*", r"birank\.(_\w+|\w+\._\w+|solvers|experiments|cli|batch|online\.\w+|"
               r"active_learning\.\w+|datasets\.\w+|distributed\.\w+)\b.*"),
    (r"py:.*", r"_?[A-Za-z_][A-Za-z0-9_]*"),  # bare names of private helpers
    (r"py:.*", r"(?!birank\.)_?[A-Za-z_]\w*\.\w+"),  # Class.method of internal classes
]


def _skip_member(app, what, name, obj, skip, options):
    # scikit-learn's metadata-routing helpers: documented in the query-group
    # guide, their docstrings point into scikit-learn's own glossary.
    if name.startswith("set_") and name.endswith("_request") or name == "get_metadata_routing":
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)

# -- MyST (existing markdown pages) ---------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
# a heading-level jump in a note is a style issue, not a broken page
suppress_warnings = ["config.cache", "myst.header"]

# -- gallery --------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "birank_docs.GalleryOrder",   # the order a new user reads them in
    "abort_on_example_error": True,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "backreferences_dir": "api/generated/backreferences",
    "doc_module": ("birank",),
    "plot_gallery": os.environ.get("BIRANK_DOCS_GALLERY", "True"),
}

# -- HTML -----------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"birank {release}"
html_static_path = []
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    # wide tables: the generated pages use the whole width
    "secondary_sidebar_items": {"**": ["page-toc"], **{
        f"generated/{page}": [] for page in ("shen-lin", "gultekin-paisley", "khalid",
                                             "lin-jan-lin", "donmez", "benchmarks")}},
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
html_context = {"default_mode": "light"}
