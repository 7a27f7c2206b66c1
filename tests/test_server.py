"""`studyhall serve` as people meet it: the server's own answers, and answers that survive a crash."""

import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from app.db import Database
from app.progress.models import PracticeAnswer
from app.web.headers import SECURITY_HEADERS
from tests.factories import PASSWORD, choice_ids, count_rows, question_id
from tests.servers import server_env, server_process


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


@pytest.fixture
def served(seeded, make_user, db_url: str, tmp_path):  # type: ignore[no-untyped-def]
    """The seed content and one learner, served by `studyhall serve`."""
    make_user("learner")
    with server_process(server_env(db_url), tmp_path / "server.log") as (url, process):
        yield url, process


def _raw(url: str, request: bytes) -> bytes:
    host, port = urllib.parse.urlsplit(url).netloc.split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_the_servers_own_refusals_carry_the_security_headers(served):
    url, _ = served
    answer = _raw(url, b"GET / HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n")
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    assert head.startswith(b"http/1.1 400")
    for name, value in SECURITY_HEADERS:
        assert b"\r\n" + name + b": " + value.lower() in head
    with urllib.request.urlopen(f"{url}/healthz", timeout=10) as response:
        for name, value in SECURITY_HEADERS:
            assert response.headers.get_all(name.decode()) == [value.decode()]


def test_a_worker_runs_asyncios_loop_and_serves_pages_without_numpy(served, db):
    """uvloop served connections unevenly when saturated (see `SERVER_LOOP`); numpy (about
    20 MB a worker) is for linking content at import, not for serving it."""
    url, process = served
    for path in ["/", "/notes", f"/questions/{question_id(db, '1')}", "/search?q=engine"]:
        with urllib.request.urlopen(f"{url}{path}", timeout=10) as response:
            assert response.status == 200
    maps = Path(f"/proc/{process.pid}/maps").read_text()
    assert "/numpy/" not in maps
    assert "/uvloop/" not in maps


def test_every_acknowledged_answer_survives_a_kill(served, db_url):
    url, process = served
    db = Database(db_url)
    try:
        target = question_id(db, "1")
        right, _ = choice_ids(db, "1")
        acknowledged = _answer_until_killed(url, process, target, right)
        assert acknowledged > 0
        assert count_rows(db, PracticeAnswer) >= acknowledged
    finally:
        db.dispose()


def _answer_until_killed(
    url: str, process: subprocess.Popen[bytes], target: int, right: int
) -> int:
    """Post answers from a few learners' tabs; kill -9 the server midway; count the 303s."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect)
    login = urllib.parse.urlencode({"username": "learner", "password": PASSWORD}).encode()
    with pytest.raises(urllib.error.HTTPError) as logged_in:
        opener.open(f"{url}/login", data=login, timeout=30)
    assert logged_in.value.code == 303
    acknowledged, lock, stop = [0], threading.Lock(), threading.Event()
    form = urllib.parse.urlencode({"choice": right}).encode()

    def answer() -> None:
        while not stop.is_set():
            try:
                opener.open(f"{url}/questions/{target}", data=form, timeout=30)
            except urllib.error.HTTPError as exc:
                if exc.code == 303:
                    with lock:
                        acknowledged[0] += 1
            except OSError:
                return  # the server is gone

    tabs = [threading.Thread(target=answer) for _ in range(4)]
    for tab in tabs:
        tab.start()
    time.sleep(1.5)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    stop.set()
    for tab in tabs:
        tab.join(timeout=30)
    return acknowledged[0]
