# Two commands on a fresh machine: `make demo` and `make test`. Each creates or updates .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test unit lint messages language run clean install soak

# A .venv left half-made (no pip: venv failed midway) is made again.
$(STAMP): pyproject.toml
	$(BIN)/python -m pip --version >/dev/null 2>&1 || $(PYTHON) -m venv --clear $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install:  ## production: .venv with the bot's dependencies only (no test tools)
	$(BIN)/python -m pip --version >/dev/null 2>&1 || $(PYTHON) -m venv --clear $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .

demo: $(STAMP)  ## a full game through the real bot against the fake Bot API, on SQLite
	$(BIN)/python -m tests.e2e.demo

test: $(STAMP)  ## the whole suite; needs PostgreSQL on 127.0.0.1:5432 (see .ci/run)
	$(BIN)/python -m pytest

# The tests that need nothing running: no PostgreSQL, no subprocess, no browser (the markers
# are in pyproject.toml). "No tests collected" (exit 5) fails here too. Two worker processes
# (pytest-xdist; UNIT_WORKERS=0 runs them in this one): these tests share no file, port or
# database (tmp_path, port 0, a SQLite file each).
UNIT_WORKERS ?= 2
unit: $(STAMP)  ## the fast tests alone; needs nothing running
	$(BIN)/python -m pytest -n $(UNIT_WORKERS) -m "not postgres and not process and not browser"

soak: $(STAMP)  ## the crash-safety soak (bench/soak.py, some minutes; not part of make test)
	nice -n 10 $(BIN)/python -m bench.soak $(SOAK_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy

POT := telegram_app/locales/messages.pot
LOCALE_DIR := telegram_app/locales
EXTRACT := $(BIN)/pybabel extract --no-location --sort-output -k _ -k n_:1,2

# The template changes only when the strings do (not for a new creation date); every
# catalog is then brought up to it: new strings untranslated (no fuzzy guesses), removed ones
# kept as obsolete (#~) for a translator to reuse. tests/test_catalogs.py fails while a
# catalog has an untranslated or fuzzy entry.
messages: $(STAMP)  ## re-extract translatable strings and update every catalog
	$(EXTRACT) -o $(POT).new telegram_app
	if diff -q -I '^"POT-Creation-Date' $(POT).new $(POT) >/dev/null 2>&1; then \
		rm $(POT).new; echo "translatable strings unchanged"; \
	else \
		mv $(POT).new $(POT); \
	fi
	$(BIN)/pybabel update --no-fuzzy-matching -i $(POT) -d $(LOCALE_DIR) -D messages

# `make language CODE=pt` (or LANG=pt on the command line): a new, empty catalog for a
# language, from the current template. Then add the code to SUPPORTED in i18n.py (DEVELOPERS.md).
CODE ?= $(if $(filter command line,$(origin LANG)),$(LANG))
language: messages  ## a new language's catalog: make language CODE=xx
	@test -n "$(CODE)" || { echo "usage: make language CODE=xx (a language code)"; exit 2; }
	@test ! -e $(LOCALE_DIR)/$(CODE)/LC_MESSAGES/messages.po || \
		{ echo "$(LOCALE_DIR)/$(CODE) exists already: make messages updates it"; exit 2; }
	$(BIN)/pybabel init -i $(POT) -d $(LOCALE_DIR) -D messages -l $(CODE)
	@echo "now add \"$(CODE)\" to SUPPORTED and NATIVE_NAMES in telegram_app/i18n.py"

run: $(STAMP)  ## the bot itself: needs TELEGRAM_BOT_TOKEN
	$(BIN)/python -m telegram_app

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis
