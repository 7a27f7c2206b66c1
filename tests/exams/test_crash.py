"""A server killed mid-attempt (SIGKILL) loses no saved answer: every save is committed
before its answer is sent, and the attempt resumes on the next server."""

import signal
import subprocess
from pathlib import Path

import httpx2 as httpx

from tests.exams.conftest import EXAM
from tests.factories import PASSWORD
from tests.servers import (
    PROJECT_ROOT,
    free_port,
    run_studyhall,
    server_env,
    studyhall_command,
    wait_until_healthy,
)


def serve(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    with log.open("ab") as log_file:
        process = subprocess.Popen(
            [*studyhall_command(), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, process, log)
    except BaseException:  # a server that never came up must not outlive the test
        process.kill()
        process.wait(timeout=10)
        raise
    return process, url


def test_killing_the_server_mid_attempt_loses_no_saved_answer(db_url, make_user, tmp_path):
    env = server_env(db_url)
    run_studyhall(["seed"], env)
    make_user("ann")
    process, url = serve(env, tmp_path / "server.log")
    try:
        with httpx.Client(base_url=url, timeout=10) as client:
            login = client.post("/login", data={"username": "ann", "password": PASSWORD})
            assert login.status_code in (200, 303)
            attempt = client.post(f"/api/v1/exams/{EXAM}/attempts").json()
            saved = {}
            for position in (1, 2, 3):
                question = client.get(f"/api/v1/attempts/{attempt['id']}/questions/{position}")
                choice = question.json()["choices"][0]["id"]
                answer = client.put(
                    f"/api/v1/attempts/{attempt['id']}/questions/{position}/answer",
                    json={"choice_ids": [choice]},
                )
                assert answer.status_code == 200
                saved[position] = [choice]
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
            process, url = serve(env, tmp_path / "server.log")
            client.base_url = httpx.URL(url)
            again = client.post(f"/api/v1/exams/{EXAM}/attempts")
            assert again.status_code == 200 and again.json()["id"] == attempt["id"]
            for position, choices in saved.items():
                question = client.get(f"/api/v1/attempts/{attempt['id']}/questions/{position}")
                assert question.json()["selected_ids"] == choices
    finally:
        process.kill()
        process.wait(timeout=10)
