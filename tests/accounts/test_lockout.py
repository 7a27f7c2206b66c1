"""Log-in limits through the app, each client at an address of its own: strangers guessing an
account's password are refused, while its owner from another address always gets in."""

import logging
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient

from tests.factories import PASSWORD

OWNER_ADDRESS = "198.51.100.7"
WRONG = {"username": "ann", "password": "not ann's password"}
RIGHT = {"username": "ann", "password": PASSWORD}


@pytest.fixture
def at(app) -> Iterator:  # type: ignore[no-untyped-def]
    """at("203.0.113.1"): a client whose requests come from that address."""
    with ExitStack() as stack:

        def client(address: str) -> TestClient:
            return stack.enter_context(TestClient(app, client=(address, 40000)))

        yield client


def _log_in(client: TestClient, form: dict[str, str]) -> int:
    return client.post("/login", data=form, follow_redirects=False).status_code


def test_strangers_on_three_addresses_never_keep_the_owner_out(at, make_user, settings):
    make_user("ann")
    attackers = [at(f"203.0.113.{n}") for n in (1, 2, 3)]
    owner = at(OWNER_ADDRESS)
    rounds = settings.login_limit_per_account + 5  # past every limit
    answers: list[list[int]] = []
    for _ in range(rounds):
        answers.append([_log_in(attacker, WRONG) for attacker in attackers])
        assert _log_in(owner, RIGHT) == 303
        assert owner.post("/logout", follow_redirects=False).status_code == 303
    assert answers[0] == [400, 400, 400]
    assert answers[-1] == [429, 429, 429]
    refused = attackers[0].post("/login", data=RIGHT)  # even with the right password
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 800


def test_failures_on_one_account_from_several_addresses_raise_an_alarm(
    at, make_user, settings, caplog
):
    from app.web.metrics import LOGIN_ALARMS

    make_user("ann")
    caplog.set_level(logging.WARNING, logger="studyhall")
    before = LOGIN_ALARMS._value.get()
    # With the default limits four addresses are needed: each may fail five times on ann.
    assert settings.login_limit_per_address == 4 * settings.login_limit_per_account
    for n in range(4):
        attacker = at(f"203.0.113.{n}")
        for _ in range(settings.login_limit_per_account + 1):
            _log_in(attacker, WRONG)
    alarms = [r.getMessage() for r in caplog.records if "log-in alarm" in r.getMessage()]
    assert alarms == [
        "log-in alarm: 20 failed log-ins on account 'ann' from 4 addresses in the last 15 minutes"
    ]
    assert LOGIN_ALARMS._value.get() == before + 1
    assert _log_in(at(OWNER_ADDRESS), RIGHT) == 303


def test_a_classroom_behind_one_address_logs_in_despite_its_typos(at, make_user, settings):
    """Only failures count against an address: thirty learners behind one NAT address all get
    in, each after a typo, as long as the class fails fewer times than the address limit."""
    classroom = at("192.0.2.10")
    typos = settings.login_limit_per_address - 1
    for n in range(30):
        make_user(f"learner{n}")
        if n < typos:
            assert _log_in(classroom, {"username": f"learner{n}", "password": "typo"}) == 400
        assert _log_in(classroom, {"username": f"learner{n}", "password": PASSWORD}) == 303
        classroom.post("/logout")
