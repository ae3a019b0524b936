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

demo: $(VENV)/.installed
	$(VENV)/bin/birank demo --output birank_demo

test: $(VENV)/.installed
	$(PY) -m pytest -q -n 2 --dist loadfile
	NUMBA_DISABLE_JIT=1 $(PY) -m pytest -q -m kernel -p no:randomly

.PHONY: install demo test
