# Two entry points for a fresh machine: `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install run test bench clean-venv

install: $(STAMP)

$(STAMP): requirements.txt
	@command -v $(PY) >/dev/null || PY=python3
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip check
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "Installing Debian's chromium for the browser tests"; \
	  (apt-get update -qq && apt-get install -y -qq chromium fonts-dejavu-core >/dev/null) || \
	  echo "WARNING: could not install chromium; browser tests will be skipped"; \
	fi
	touch $(STAMP)

run: install
	$(BIN)/streamlit run app.py --server.address 127.0.0.1

test: install
	$(BIN)/python -m pytest -q -p no:cacheprovider tests

bench: install
	$(BIN)/python benchmarks/ingest.py
	$(BIN)/python benchmarks/query_latency.py

clean-venv:
	rm -rf $(VENV)
