# Two commands: `make run` serves Studyhall with the seed content, `make test` runs every check.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install install-test lint e2e bench bench-library bench-progress bench-search bench-sqlite-threads bench-exam-day screenshots clean

$(BIN)/studyhall: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	@touch $@

$(VENV)/.test-installed: pyproject.toml $(BIN)/studyhall
	$(BIN)/pip install --quiet -e '.[test]'
	@touch $@

install: $(BIN)/studyhall

install-test: $(VENV)/.test-installed

run: install
	$(BIN)/studyhall migrate
	$(BIN)/studyhall seed --if-empty
	$(BIN)/studyhall serve --host $(HOST) --port $(PORT)

lint: install-test
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
bench-sqlite-threads: install-test
	$(BIN)/python bench/sqlite_threads.py

# 500 learners sit the TensorRT exam at once (Locust, headless), then the database is checked:
# on SQLite with one worker, then on PostgreSQL (127.0.0.1:5432, a database of its own) with two.
bench-exam-day: install-test
	$(BIN)/python bench/exam_day.py
	$(BIN)/python bench/exam_day.py --database postgresql --workers 2

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache

screenshots: install-test
	STUDYHALL_SCREENSHOTS=1 $(BIN)/pytest tests/e2e/test_practice_journey.py -k "with_javascript"
	STUDYHALL_SCREENSHOTS=1 $(BIN)/pytest tests/e2e/test_progress.py -k "realistic_history"
