"""Who is asking: a session looked up a moment ago is answered from memory, for a bounded time."""

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.factories import log_in


@pytest.fixture
def two_workers(settings: Settings, monkeypatch):  # type: ignore[no-untyped-def]
    now = [1000.0]
    monkeypatch.setattr("app.accounts.dependencies.time.monotonic", lambda: now[0])
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        yield one, two, now


def test_a_log_out_ends_the_session_in_every_worker_within_two_seconds(two_workers, make_user):
    one, two, now = two_workers
    make_user("ann")
    log_in(one, "ann")
    two.cookies = one.cookies
    assert two.get("/account", follow_redirects=False).status_code == 200
    cookie = dict(one.cookies)
    one.post("/logout")
    assert one.get("/account", follow_redirects=False).status_code == 303  # this worker: at once
    two.cookies.update(cookie)
    now[0] += 1.0
    assert two.get("/account", follow_redirects=False).status_code == 200  # remembered briefly
    now[0] += 1.1
    assert two.get("/account", follow_redirects=False).status_code == 303  # then refused


def test_a_password_change_ends_other_sessions_of_the_user_in_this_worker(two_workers, make_user):
    one, _, _ = two_workers
    make_user("ann")
    with TestClient(one.app) as laptop, TestClient(one.app) as phone:
        log_in(laptop, "ann")
        log_in(phone, "ann")
        assert phone.get("/account", follow_redirects=False).status_code == 200
        laptop.post(
            "/account/password",
            data={
                "current_password": "correct horse battery staple",
                "new_password": "another long passphrase here",
            },
        )
        assert phone.get("/account", follow_redirects=False).status_code == 303
