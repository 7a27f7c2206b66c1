"""Real servers for tests that need real HTTP: `studyhall serve` as a subprocess on a free port."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT = 60.0  # a loaded CI machine may take a while to import and migrate
COMMAND_TIMEOUT = 120.0


def studyhall_command() -> list[str]:
    """The `studyhall` script of the running interpreter's environment."""
    script = Path(sys.executable).parent / "studyhall"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from app.cli import main; main()"]


def server_env(database_url: str, **settings: str) -> dict[str, str]:
    # A developer's own STUDYHALL_* settings must not leak into the test server.
    env = {key: value for key, value in os.environ.items() if not key.startswith("STUDYHALL_")}
    env.update(
        STUDYHALL_DATABASE_URL=database_url,
        STUDYHALL_SEED_DIR=str(PROJECT_ROOT / "tests" / "seed"),  # the tests' own corpus
        STUDYHALL_LOG_LEVEL="warning",
    )
    env.update({f"STUDYHALL_{name.upper()}": value for name, value in settings.items()})
    return env


def run_studyhall(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(
        [*studyhall_command(), *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(
            f"`studyhall {' '.join(args)}` exited with {done.returncode}:\n"
            f"{done.stdout}\n{done.stderr}",
            pytrace=False,
        )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(
                f"the server exited with {process.returncode} while starting:\n{log.read_text()}",
                pytrace=False,
            )
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass  # not listening yet, or the database not ready (503)
        time.sleep(0.1)
    pytest.fail(
        f"the server did not answer {url}/healthz with 200 within {STARTUP_TIMEOUT:.0f} s:\n"
        f"{log.read_text()}",
        pytrace=False,
    )


@contextmanager
def serving(env: dict[str, str], log: Path) -> Iterator[str]:
    """Serve with `studyhall serve` on a free port while the block runs; yield its URL."""
    with server_process(env, log) as (url, _):
        yield url


@contextmanager
def server_process(
    env: dict[str, str], log: Path, workers: int = 1
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Like serving, but yield the process too (a test may kill it)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    where = ["--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [*studyhall_command(), "serve", *where],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until_healthy(url, process, log)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
