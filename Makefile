# haygate: `make run` (set up, index the samples, serve) and `make test` (set up, run the suite).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

# Python's bytecode caches are haygate's to keep (the venv's imports, pytest's rewritten test modules: seconds
# of every test run and server start), whatever the shell says.
unexport PYTHONDONTWRITEBYTECODE

# A tool the tests need that cannot be installed: a note where tests may skip, a failure with CI set.
FAIL_IN_CI := case "$${CI:-}" in ""|0|false) true ;; *) echo "CI is set: every test must run" >&2; exit 1 ;; esac

.PHONY: install browser conformance apps-host run serve-stdio test test-fast eval speed-reference lint bench docs docs-serve clean

# scripts/install.py: uv with pip's settings, much faster than pip (pip where uv fails).
$(STAMP): pyproject.toml scripts/install.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python scripts/install.py
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/haygate ingest --samples
	$(BIN)/haygate serve --http

serve-stdio: install
	$(BIN)/haygate serve

# The pages' browser tests drive Debian's Chromium (root with apt: installed here when missing). Elsewhere those
# tests skip and say why; with CI set, a Chromium that cannot be had fails here, and those tests fail too.
browser:
	@test -x /usr/bin/chromium || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; }; }; } || \
	  { echo "no /usr/bin/chromium: the browser tests will skip"; $(FAIL_IN_CI); }

# The official MCP conformance suite and the Node.js 22 it needs, from npm (pinned by tests/contract/'s lock
# file), for the contract test; where npm is missing or cannot install, that test skips and says why (with CI
# set, this fails, and so would the test).
CONFORMANCE := $(VENV)/mcp-conformance
conformance: $(CONFORMANCE)/.installed
$(CONFORMANCE)/.installed: tests/contract/package.json tests/contract/package-lock.json
	@mkdir -p $(CONFORMANCE) && cp tests/contract/package.json tests/contract/package-lock.json $(CONFORMANCE)/
	@if command -v npm >/dev/null && npm ci --prefix $(CONFORMANCE) --no-audit --no-fund --loglevel=error; \
	  then touch $@; else echo "could not install the MCP conformance suite: its test will skip"; $(FAIL_IN_CI); fi

# An MCP Apps host for the results view's browser test: ext-apps' AppBridge, the MCP TypeScript SDK and esbuild,
# from npm (pinned by tests/apps_host/'s lock file), bundled when the test starts; where npm is missing or cannot
# install, that test skips and says why (with CI set, this fails, and so would the test).
APPS_HOST := $(VENV)/apps-host
apps-host: $(APPS_HOST)/.installed
$(APPS_HOST)/.installed: tests/apps_host/package.json tests/apps_host/package-lock.json
	@mkdir -p $(APPS_HOST) && cp tests/apps_host/package.json tests/apps_host/package-lock.json $(APPS_HOST)/
	@if command -v npm >/dev/null && npm ci --prefix $(APPS_HOST) --no-audit --no-fund --loglevel=error; \
	  then touch $@; else echo "could not install the MCP Apps host: its test will skip"; $(FAIL_IN_CI); fi

# Three profiles, each with a time budget the suite enforces (tests/support/budgets.py): `test` (CI) at most 10 min
# counted from here, the install included, on one worker per core (pytest-xdist; a file's tests stay on one
# worker, so a module's server starts once); `test-fast` at most 60 s of pytest; `eval` the full-scale
# reproductions of the documented figures (about an hour, cold). Every budget is set for the reference speed
# and multiplied by the speed a probe measures at the start of each run (tests/support/speed.py).
test: export HAYGATE_TEST_STARTED := $(shell date +%s.%N)
test: install browser conformance apps-host
	$(BIN)/python -m pytest --profile full -n auto --dist loadfile

test-fast: install
	$(BIN)/python -m pytest --profile fast -n auto --dist loadfile

eval: install conformance apps-host
	HAYGATE_KEEP_VECTORS=0 $(BIN)/python -m pytest --profile eval

# Re-take the speed the budgets are set for (tests/support/speed-reference.json), on a quiet machine of CI's kind,
# after any change to the probe's work (a test says when).
speed-reference: install
	$(BIN)/python -m tests.support.speed --write

lint: install
	$(BIN)/ruff check haygate components server.py tests scripts evaluation docs
	$(BIN)/mypy

bench: install
	$(BIN)/python -m scripts.bench

# The documentation site (mkdocs.yml): built strictly (a broken link or anchor, or a page outside the nav,
# fails), its reference pages generated from the code. The notices about MkDocs' future are not ours to print.
DOCS_ENV := NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true
docs: install
	$(DOCS_ENV) $(BIN)/mkdocs build --strict

docs-serve: install
	$(DOCS_ENV) $(BIN)/mkdocs serve --strict --dev-addr 127.0.0.1:8001

clean:
	rm -rf $(VENV) data bench-out site
