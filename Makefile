# Two commands: `make run` serves Studyhall with the seed content, `make test` runs every check.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

# Pinned installs, with hashes: requirements/runtime.txt for `make run`, requirements/test.txt
# (the same pins plus the test tools) for `make test`; `make lock` refreshes both.
LOCK_FLAGS := --quiet --generate-hashes --allow-unsafe --strip-extras --build-deps-for editable \
	--no-emit-index-url --no-emit-find-links --upgrade

.PHONY: run test install install-test lint e2e lock test-latest bench bench-library bench-progress bench-search bench-exam-day screenshots clean

$(BIN)/studyhall: pyproject.toml requirements/runtime.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes --no-deps -r requirements/runtime.txt
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	@touch $@

$(VENV)/.test-installed: requirements/test.txt $(BIN)/studyhall
	$(BIN)/pip install --quiet --require-hashes --no-deps -r requirements/test.txt
	@touch $@

install: $(BIN)/studyhall

install-test: $(VENV)/.test-installed

# The Dockerfile's CMD runs the same three commands.
run: install
	$(BIN)/studyhall migrate
	$(BIN)/studyhall seed --if-changed
	$(BIN)/studyhall serve --host $(HOST) --port $(PORT)

# Resolve the newest versions pyproject.toml allows and pin them (runtime pins within test's).
lock:
	$(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install --quiet pip-tools
	CUSTOM_COMPILE_COMMAND="make lock" .venv-lock/bin/pip-compile $(LOCK_FLAGS) --extra test \
		-o requirements/test.txt pyproject.toml
	CUSTOM_COMPILE_COMMAND="make lock" .venv-lock/bin/pip-compile $(LOCK_FLAGS) \
		-c requirements/test.txt -o requirements/runtime.txt pyproject.toml

# The whole suite on the newest releases pyproject.toml allows, without the lock: what a
# `make lock` would bring in, tried before it is committed.
test-latest:
	rm -rf .venv-latest
	$(PYTHON) -m venv .venv-latest
	.venv-latest/bin/pip install --quiet -e '.[test]'
	.venv-latest/bin/ruff check app tests bench migrations
	.venv-latest/bin/mypy
	.venv-latest/bin/pytest

lint: install-test
	$(BIN)/hadolint Dockerfile
	$(BIN)/ruff check app tests bench migrations
	$(BIN)/ruff format --check app tests bench migrations
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

test: lint
	$(BIN)/pytest

e2e: install-test
	$(BIN)/pytest tests/e2e

bench: install-test
	$(BIN)/python bench/run.py

# Generates a 50,000-question library in a temporary folder and measures import and pages.
bench-library: install-test
	$(BIN)/python bench/library_run.py

# 1,000 learners and 1,000,000 answers: /progress and the logged-in home page against bare.
bench-progress: install-test
	$(BIN)/python bench/progress_run.py

# Generates 50,000 questions and 5,000 note sections and loads /search and /api/v1/search.
bench-search: install-test
	$(BIN)/python bench/search_run.py

# SQLite's full-text statements in one thread and in two, its memory counted and not.
# 500 learners sit the TensorRT exam at once (Locust, headless), then the database is checked:
# on SQLite with one worker, then on PostgreSQL (127.0.0.1:5432, a database of its own) with two.
bench-exam-day: install-test
	$(BIN)/python bench/exam_day.py
	$(BIN)/python bench/exam_day.py --database postgresql --workers 2

clean:
	rm -rf $(VENV) .venv-lock .venv-latest var .pytest_cache .mypy_cache .ruff_cache

screenshots: install-test
	STUDYHALL_SCREENSHOTS=1 $(BIN)/pytest tests/e2e/test_practice_journey.py -k "with_javascript"
	STUDYHALL_SCREENSHOTS=1 $(BIN)/pytest tests/e2e/test_progress.py -k "realistic_history"
