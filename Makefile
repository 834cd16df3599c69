# Quick start: `make demo` and `make test` both build .venv from scratch when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: demo test test-quick test-gpu lint bench bench-defaults clean readme java browser docs docs-build

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

# The demo needs only the experiments (scikit-learn, tqdm) and plot (matplotlib) extras.
$(DEMO_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[experiments,plot]"
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/clustermetrics score examples/truth.txt examples/pred.txt
	$(BIN)/clustermetrics demo --report reports/demo

# The Spark tests need a Java runtime; a fresh Debian machine has none.
java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "java not found: installing openjdk-17-jre-headless for the Spark tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }

# The browser tests (tests/project/test_browser.py) drive a headless Chromium through its
# driver; Debian packages both, and the tests use them as they are (nothing is downloaded).
browser:
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
	  echo "chromium not found: installing chromium and chromium-driver for the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }

# The site built by docs-build is the one the browser tests open (CLUSTERMETRICS_DOCS_SITE):
# built once, just before.
test: $(STAMP) java browser
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(MAKE) docs-build
	CLUSTERMETRICS_DOCS_SITE=build/site $(BIN)/python -m pytest -q -n auto --dist loadgroup  # one worker per core; a group (xdist_group) on one

# The inner loop while editing: every test but those marked slow (@pytest.mark.slow, the
# dozen that take 8-40 s each: Spark start-ups, compiles, long generated searches)
test-quick: $(STAMP) browser
	$(BIN)/python -m pytest -q -n auto --dist loadgroup -m "not slow"

# On a machine with an NVIDIA GPU (CUDA 12): the GPU tests (tests/gpu, collected only with
# --gpu) and the GPU benchmark, in a venv of their own so that make test never installs a
# GPU library. Options for the benchmark: make test-gpu BENCH_GPU_ARGS="--n 1e7"
GPU_VENV := build/gpu-venv
GPU_PACKAGES := cupy-cuda12x torch torchmetrics pytest hypothesis array-api-strict
test-gpu:
	test -x $(GPU_VENV)/bin/python || $(PYTHON) -m venv $(GPU_VENV)
	$(GPU_VENV)/bin/python -m pip install --quiet -e . $(GPU_PACKAGES)
	$(GPU_VENV)/bin/python -m pytest -q -p no:cacheprovider --gpu tests/gpu tests/table/test_device_labels.py
	$(GPU_VENV)/bin/python benchmarks/bench_gpu.py $(BENCH_GPU_ARGS)

# The documentation site: built from docs/ (pages generated from the code by
# tools/docs_hooks.py) and served at http://127.0.0.1:8000 while you edit.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

# What make test runs: a strict build (a broken link, anchor or reference fails it).
docs-build: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir build/site

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .ruff_cache .hypothesis

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	$(BIN)/python benchmarks/bench_peers.py

# The install users make (numpy, scipy, numba; none of our extras), rebuilt from scratch
# each time so that nothing else leaks in, with scikit-learn beside it as the peer. Options
# for the script: make bench-defaults BENCH_ARGS="--quick --json build/defaults.json"
PLAIN_VENV := build/plain-venv
bench-defaults:
	rm -rf $(PLAIN_VENV) build/lib  # setuptools never prunes build/lib: a deleted module would ship
	$(PYTHON) -m venv $(PLAIN_VENV)
	$(PLAIN_VENV)/bin/pip install --quiet . scikit-learn
	$(PLAIN_VENV)/bin/python benchmarks/bench_defaults.py --check $(BENCH_ARGS)

readme: $(STAMP)
	$(BIN)/python tools/update_readme.py
