"""Many log-ins at once through a real server: wrong ones are told so, none fails on the server.

Hashing a password takes tens of milliseconds; it happens before the write lock is taken, and
writers queue in order, so a crowd of log-ins never meets "database is locked". Checks
wait for their turn without holding a thread, so the pages go on meanwhile.
"""

import asyncio
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import pytest

from app.accounts import passwords, service
from app.accounts.dependencies import AddressTurns
from tests.factories import PASSWORD, run_async
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


def test_log_ins_waiting_for_their_hashing_turn_leave_the_thread_pool_to_pages(
    app, make_user, monkeypatch
):
    """More log-ins than the pool has threads wait for hashing; a page still gets a thread."""
    make_user("ann")
    gate = threading.Event()
    verify = passwords._verify

    def held(password_hash: str, password: str) -> bool:
        gate.wait(30)  # every check waits here until the page has answered
        return verify(password_hash, password)

    monkeypatch.setattr(passwords, "_verify", held)
    form = {"username": "ann", "password": PASSWORD}

    async def wave() -> tuple[int, list[int]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            logins = [asyncio.create_task(client.post("/login", data=form)) for _ in range(60)]
            await asyncio.sleep(0.5)
            try:  # /exams is a sync route: it needs a thread from the pool
                page = await asyncio.wait_for(client.get("/exams"), timeout=10)
            finally:
                gate.set()
            return page.status_code, [r.status_code for r in await asyncio.gather(*logins)]

    page, logins = run_async(wave())
    assert page == 200
    assert logins == [303] * 60


def test_log_ins_from_one_address_take_turns_and_leave_nothing_behind():
    """One address waits in line; another address goes ahead; no queue outlives its log-ins."""
    turns = AddressTurns()
    order: list[str] = []

    async def log_in(address: str, name: str, hold: float) -> None:
        async with turns.turn(address):
            order.append(f"{name} in")
            await asyncio.sleep(hold)
            order.append(f"{name} out")

    async def crowd() -> int:
        first = asyncio.create_task(log_in("192.0.2.1", "a", 0.05))
        await asyncio.sleep(0)
        second = asyncio.create_task(log_in("192.0.2.1", "b", 0))
        other = asyncio.create_task(log_in("198.51.100.7", "c", 0))
        await asyncio.gather(first, second, other)
        return len(turns)

    assert run_async(crowd()) == 0
    assert order.index("c out") < order.index("a out")  # another address did not wait
    assert order.index("a out") < order.index("b in")  # the same address did


def test_log_ins_from_one_address_reach_the_database_one_at_a_time(app, make_user, monkeypatch):
    """A class behind one address logs in at once: in this worker, one log-in at a time holds
    a connection (waiting on the address's lock), the others wait without one.

    On SQLite the write queue runs them one by one anyway; on PostgreSQL each would take a
    pooled connection of its own and wait on the advisory lock with it.
    """
    for n in range(12):
        make_user(f"learner{n}")
    inside, most = [0], [0]
    gate = threading.Lock()
    log_in_work = service.log_in_and_start

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        with gate:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            time.sleep(0.02)  # a log-in that takes a while to commit
            return log_in_work(*args, **kwargs)
        finally:
            with gate:
                inside[0] -= 1

    monkeypatch.setattr(service, "log_in_and_start", counted)

    async def wave() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            forms = [{"username": f"learner{n}", "password": PASSWORD} for n in range(12)]
            sent = [client.post("/login", data=form) for form in forms]
            return [response.status_code for response in await asyncio.gather(*sent)]

    assert run_async(wave()) == [303] * 12
    assert most[0] == 1
    assert len(app.state.address_turns) == 0
