# The quick start: `make demo` (the main job) and `make test` (the whole suite).
# Both bootstrap .venv on first use; `make test` first makes sure of Node.js 20+ for
# client-vscode/ (scripts/node.py), so a missing or old Node fails in seconds, not
# after the Python suite.

PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.sparkls-installed
# The Node.js that scripts/node.py fetched, when the system's is older than 20 or
# missing; when this folder does not exist the system's node and npm are used.
export PATH := $(CURDIR)/.tools/node/bin:$(PATH)

.PHONY: demo test node test-vscode test-vscode-e2e vscode-tools bench bench-context clean

$(STAMP): pyproject.toml scripts/bootstrap.sh
	bash scripts/bootstrap.sh
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/sparkls demo

test: node $(STAMP)
	$(VENV)/bin/python -m pytest
	$(MAKE) test-vscode-e2e

# Node.js 20+ and npm: the system's, else fetched from the npm registry into .tools/node.
node:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found; install Python 3.11 or newer" >&2; exit 1; }
	@$(PYTHON) scripts/node.py

# The VS Code extension (client-vscode/): npm ci when the lock file is newer than the
# install, then the strict type check, node --test and the .vsix.
test-vscode: node
	cd client-vscode && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund; } && npm test

# The extension in a real VS Code (code-server) in headless Chromium, from the .vsix
# test-vscode built (tests/vscode/). Needs Chromium (Debian: chromium libkrb5-dev);
# scripts/vscode_tools.py fetches Node 24, code-server and playwright-core once into
# ~/.cache/sparkls-dev/vscode-e2e/. A failed step leaves its screenshot, the Spark
# output channel and code-server's log in test-results/vscode/<test>/.
# The servers VS Code starts write their longest event-loop callbacks to a folder of
# their own; its summary (tests/looplag.py) is printed after the tests, as pytest's is.
test-vscode-e2e: test-vscode $(STAMP)
	@tools="$$($(VENV)/bin/python scripts/vscode_tools.py)" || exit 1; lag="$$(mktemp -d)"; \
	SPARKLS_LOOP_LAG_DIR="$$lag" SPARKLS_VSCODE_TOOLS="$$tools" "$(CURDIR)/.tools/node/bin/node" --test \
		--test-concurrency=1 --test-timeout=600000 --test-reporter=spec tests/vscode/*.test.mjs; status=$$?; \
	$(VENV)/bin/python tests/looplag.py "$$lag" tests/vscode; rm -rf "$$lag"; exit $$status

# Only fetch (or check) what test-vscode-e2e needs, and print where it is.
vscode-tools: $(STAMP)
	$(VENV)/bin/python scripts/vscode_tools.py

bench: $(STAMP)
	$(VENV)/bin/python bench/edit_loop.py

# Context recall by kind in Python, TypeScript/JavaScript and Go, with jedi, the
# TypeScript LanguageService and gopls as oracles (bench/context_recall.py). Not in
# make test: it downloads pinned packages into bench/.cache/ and needs Debian's
# golang-go, gopls and golang-*-dev sources (apt-get install; see bench/README.md).
bench-context: node $(STAMP)
	$(VENV)/bin/python -c "import jedi" 2>/dev/null || $(VENV)/bin/pip install --quiet jedi
	$(VENV)/bin/python bench/context_recall.py

clean:
	rm -rf $(VENV) .tools .pytest_cache
