# The quick start: `make demo` (the main job) and `make test` (the whole suite).
# Both bootstrap .venv on first use.

VENV := .venv
STAMP := $(VENV)/.sparkls-installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml scripts/bootstrap.sh
	bash scripts/bootstrap.sh
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/sparkls demo

test: $(STAMP)
	$(VENV)/bin/python -m pytest

bench: $(STAMP)
	$(VENV)/bin/python bench/edit_loop.py

clean:
	rm -rf $(VENV) .pytest_cache
