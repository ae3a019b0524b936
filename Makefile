# The two README commands: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

install: $(VENV)/.installed

# the demo needs the core install and matplotlib only (not the development extras)
$(VENV)/.demo-installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[plot]"
	touch $@

# --force: birank_demo is the demo's own folder, rewritten on every run
demo: $(VENV)/.demo-installed
	-$(PY) -m birank._kernels
	$(VENV)/bin/birank demo --output birank_demo --force

# `python -m birank._kernels`: the kernels compiled ahead of time (src/birank/_kernels/ahead.py)
# are built by the install; after a kernel changed this rebuilds them in place (at once when
# up to date). The demo goes on without them (no C compiler: kernels compile on first use).
test: $(VENV)/.installed docs
	$(PY) -m birank._kernels
	$(PY) -m mypy  # the type checker ([tool.mypy] in pyproject.toml)
	$(PY) -m pytest -q -n 2 --dist loadfile
	NUMBA_DISABLE_JIT=1 $(PY) -m pytest -q -m kernel -p no:randomly -n 2

# The documentation site: docs/_build/html (warnings are errors, references checked).
$(VENV)/.docs-installed: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install -q -e ".[dev,docs]"
	touch $@

docs: $(VENV)/.docs-installed
	rm -rf docs/_build/html docs/_build/doctrees docs/api/generated docs/api/advanced.rst docs/auto_examples docs/generated
	MPLBACKEND=Agg $(VENV)/bin/sphinx-build -W --keep-going -n -q -b html -d docs/_build/doctrees docs docs/_build/html
	$(PY) docs/check_links.py docs/_build/html

# Opens the built site (make docs; make test builds it) in headless Chromium and
# screenshots three pages into docs/_build/screenshots.
docs-check: $(VENV)/.docs-installed
	$(PY) docs/screenshots.py docs/_build/html docs/_build/screenshots

.PHONY: install demo test docs docs-check
