"""Many log-ins at once through a real server: wrong ones are told so, none fails on the server.

Hashing a password takes tens of milliseconds; it happens before the write lock is taken, and
writers queue in order, so a crowd of log-ins never meets "database is locked".
"""

import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.servers import run_studyhall, server_env, serving

OPENER = urllib.request.build_opener(
    type("NoRedirect", (urllib.request.HTTPRedirectHandler,), {"redirect_request": lambda *a: None})
)


@pytest.fixture
def server(db_url: str, tmp_path):  # type: ignore[no-untyped-def]
    env = server_env(db_url, trusted_proxies="*", login_limit_per_address="1000")
    run_studyhall(["migrate"], env)
    with serving(env, tmp_path / "server.log") as url:
        yield url


def _log_in(url: str, n: int) -> int:
    form = urllib.parse.urlencode({"username": f"nobody-{n}", "password": "wrong password"})
    request = urllib.request.Request(
        f"{url}/login", data=form.encode(), headers={"X-Forwarded-For": f"192.0.2.{n % 250}"}
    )
    try:
        with OPENER.open(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_crowd_of_log_ins_gets_answers_not_server_errors(server):
    with ThreadPoolExecutor(max_workers=32) as pool:
        statuses = list(pool.map(lambda n: _log_in(server, n), range(200)))
    assert statuses.count(400) == len(statuses), sorted(set(statuses))
