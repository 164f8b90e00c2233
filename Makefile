# Two commands on a fresh machine: `make demo` and `make test`. Each creates or updates .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint messages run clean install soak

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

soak: $(STAMP)  ## the crash-safety soak (bench/soak.py, some minutes; not part of make test)
	nice -n 10 $(BIN)/python -m bench.soak $(SOAK_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

POT := telegram_app/locales/messages.pot

# The catalogs change only when the strings do (not for a new creation date).
messages: $(STAMP)  ## re-extract translatable strings into the catalogs
	$(BIN)/pybabel extract --no-location --sort-output -k _ -k n_:1,2 \
		-o $(POT).new telegram_app
	if diff -q -I '^"POT-Creation-Date' $(POT).new $(POT) >/dev/null 2>&1; then \
		rm $(POT).new; echo "translatable strings unchanged"; \
	else \
		mv $(POT).new $(POT) && $(BIN)/pybabel update --no-fuzzy-matching -i $(POT) \
			-d telegram_app/locales -D messages; \
	fi

run: $(STAMP)  ## the bot itself: needs TELEGRAM_BOT_TOKEN
	$(BIN)/python -m telegram_app

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis
