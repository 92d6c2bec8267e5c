# The quick start: `make demo` (the main job) and `make test` (the whole suite).
# Both bootstrap .venv on first use.

VENV := .venv
STAMP := $(VENV)/.sparkls-installed

.PHONY: demo test test-vscode bench clean

$(STAMP): pyproject.toml scripts/bootstrap.sh
	bash scripts/bootstrap.sh
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/sparkls demo

test: $(STAMP)
	$(VENV)/bin/python -m pytest
	$(MAKE) test-vscode

# The VS Code extension (client-vscode/): npm ci when the lock file is newer than the
# install, then the strict type check, node --test and the .vsix.
test-vscode:
	@node -e 'process.exit(parseInt(process.versions.node) >= 20 ? 0 : 1)' 2>/dev/null && command -v npm >/dev/null || \
		{ echo "make test-vscode: client-vscode/ needs Node.js 20+ and npm (e.g. apt-get install nodejs npm)" >&2; exit 1; }
	cd client-vscode && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund; } && npm test

bench: $(STAMP)
	$(VENV)/bin/python bench/edit_loop.py

clean:
	rm -rf $(VENV) .pytest_cache
