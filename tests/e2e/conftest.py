"""Fixtures for the browser tests: a seeded Studyhall server and Debian's Chromium.

The server runs as a real subprocess (`studyhall migrate`, `seed`, `serve`) against a fresh
database: an SQLite file by default, or a database of its own on the PostgreSQL server named
by STUDYHALL_TEST_DATABASE_URL. Without /usr/bin/chromium every test here is skipped, unless
STUDYHALL_REQUIRE_E2E=1 (CI), where the missing browser is an error.
"""

import os
import secrets
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.e2e.support import Account, new_password, unique_username
from tests.factories import SHIPPED_SEED_DIR
from tests.servers import run_studyhall, server_env, serving, studyhall_command

PROJECT_ROOT = Path(__file__).resolve().parents[2]
E2E_DIR = Path(__file__).resolve().parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SCREENSHOT_DIR = PROJECT_ROOT / "docs" / "screenshots"


# --- collection: mark, skip or fail -------------------------------------------------------


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # This hook sees every collected test, not only this folder's.
    for item in items:
        if item.path.resolve().is_relative_to(E2E_DIR):
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (or, when required, fail) before any fixture tries to launch a missing browser."""
    if item.get_closest_marker("e2e") is None or CHROMIUM.is_file():
        return
    reason = (
        f"Chromium not installed at {CHROMIUM}; install it with "
        "`apt-get install --no-install-recommends chromium` to run the browser tests"
    )
    if os.environ.get("STUDYHALL_REQUIRE_E2E") == "1":
        pytest.fail(f"{reason} (STUDYHALL_REQUIRE_E2E=1 requires them)", pytrace=False)
    pytest.skip(reason)


# --- the browser ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Launch the system Chromium (no downloaded browser), headless: there is no display."""
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": CHROMIUM_ARGS,
        "headless": True,
    }


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    """Let `page.goto("/")` reach the test server."""
    return live_server


@pytest.fixture
def no_js_page(new_context: Callable[..., Any]) -> Page:
    """A page in a context with JavaScript turned off (and the same base URL)."""
    return new_context(java_script_enabled=False).new_page()


@pytest.fixture
def console_errors(page: Page) -> list[str]:
    """Console errors and uncaught exceptions of `page`; CSP violations are reported here too."""
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    return errors


@pytest.fixture
def screenshot() -> Callable[[Page, str], None]:
    """Save a full-page PNG to docs/screenshots/ when STUDYHALL_SCREENSHOTS=1, else nothing.

    The files are committed for the README, so ordinary runs must not rewrite them.
    """
    enabled = os.environ.get("STUDYHALL_SCREENSHOTS") == "1"

    def take(page: Page, name: str) -> None:
        if enabled:
            SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=SCREENSHOT_DIR / f"{name}.png", full_page=True)

    return take


# --- the server -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database that exists only for this run."""
    pg_url = os.environ.get("STUDYHALL_TEST_DATABASE_URL")
    if not pg_url:
        yield f"sqlite:///{tmp_path_factory.mktemp('e2e-db') / 'studyhall.db'}"
        return

    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = make_url(pg_url)
    name = f"studyhall_e2e_{secrets.token_hex(6)}"
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def shipped_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A server with the content `make run` serves: every shipped question and the mock exams."""
    env = server_env(
        f"sqlite:///{tmp_path_factory.mktemp('shipped-db') / 'studyhall.db'}",
        seed_dir=str(SHIPPED_SEED_DIR),
    )
    run_studyhall(["migrate"], env)
    run_studyhall(["seed"], env)
    with serving(env, tmp_path_factory.mktemp("shipped-server") / "server.log") as url:
        yield {**env, "url": url}


@pytest.fixture
def create_account(live_server: str, database_url: str) -> Callable[..., Account]:
    """Make an account with the command line, against the running server's database."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("STUDYHALL_")}
    env["STUDYHALL_DATABASE_URL"] = database_url

    def create(prefix: str, role: str = "learner", length: int = 24) -> Account:
        account = Account(unique_username(prefix, length), new_password())
        done = subprocess.run(
            [*studyhall_command(), "users", "create", account.username, "--role", role]
            + ["--password-stdin"],
            input=f"{account.password}\n",
            cwd=PROJECT_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(
                f"`studyhall users create {account.username}` exited with "
                f"{done.returncode}:\n{done.stdout}\n{done.stderr}",
                pytrace=False,
            )
        return account

    return create


@pytest.fixture(scope="session")
def live_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Migrate and seed the database, serve it with uvicorn, and yield the server's URL."""
    env = server_env(database_url)
    run_studyhall(["migrate"], env)
    run_studyhall(["seed"], env)
    with serving(env, tmp_path_factory.mktemp("e2e-server") / "server.log") as url:
        yield url
