"""Account rules under concurrency and in edge cases, without HTTP."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from app.accounts import service
from app.accounts.errors import InvalidCredentials, InvalidInput, RateLimited
from app.accounts.service import Policy
from tests.factories import PASSWORD


def test_parallel_guesses_from_one_address_cannot_pass_the_account_limit(db, make_user):
    make_user("ann")
    policy = Policy(per_account=3, per_address=100)

    def guess(n: int) -> str:
        with db.session_scope(write=True) as session:
            try:
                service.log_in(session, "ann", f"wrong guess {n}", "10.0.0.1", policy)
            except InvalidCredentials:
                session.commit()  # as the log-in page does: the failure is counted
                return "checked"
            except RateLimited:
                return "limited"
        return "ok"

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(guess, range(8)))
    assert outcomes.count("checked") == 3 and outcomes.count("limited") == 5


def test_a_name_taken_between_check_and_insert_gets_the_taken_message(db, make_user, monkeypatch):
    make_user("ann")
    monkeypatch.setattr(service, "_find_user", lambda session, name: None)
    with pytest.raises(InvalidInput, match="taken"), db.session_scope(write=True) as session:
        service.create_user(session, "ann", PASSWORD)


def test_database_errors_do_not_carry_values(db, make_user):
    make_user("ann")
    with pytest.raises(IntegrityError) as caught, db.session_scope(write=True) as session:
        session.execute(
            text(
                "INSERT INTO user_account (username, password_hash, role, created_at) "
                "VALUES (:u, :h, 'learner', CURRENT_TIMESTAMP)"
            ),
            {"u": "ann", "h": "$argon2id$secret-hash-value"},
        )
    assert "secret-hash-value" not in str(caught.value)


def test_two_admins_demoting_each_other_at_once_leave_one_admin(db, make_user):
    from sqlalchemy import func, select

    from app.accounts.models import User

    make_user("boss1", role="admin")
    make_user("boss2", role="admin")

    def demote(target: str) -> str:
        try:
            with db.session_scope(write=True) as session:
                service.set_role(session, None, target, "learner")
        except InvalidInput:
            return "refused"
        return "done"

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = sorted(pool.map(demote, ["boss1", "boss2"]))
    assert outcomes == ["done", "refused"]
    with db.session_scope() as session:
        assert session.scalar(select(func.count()).where(User.role == "admin")) == 1


def _attempt(db, password: str, address: str, policy: Policy) -> str:  # type: ignore[no-untyped-def]
    with db.session_scope(write=True) as session:
        try:
            service.log_in(session, "ann", password, address, policy)
        except InvalidCredentials:
            session.commit()
            return "wrong"
        except RateLimited as exc:
            return f"wait {exc.headers['retry-after']}"
    return "in"


def _age_failures(db, seconds: int) -> None:  # type: ignore[no-untyped-def]
    """Move every counted failure `seconds` into the past."""
    from datetime import timedelta

    from sqlalchemy import select

    from app.accounts.models import RateLimitEvent

    with db.session_scope(write=True) as session:
        for event in session.scalars(select(RateLimitEvent)):
            event.created_at -= timedelta(seconds=seconds)


def test_strangers_failing_from_many_addresses_never_hold_up_the_owner(db, make_user):
    make_user("ann")
    policy = Policy(per_account=2, per_address=100)
    for n in range(12):  # past the per-account count many times over, from elsewhere
        assert _attempt(db, "wrong password", f"203.0.113.{n}", policy) == "wrong"
        assert _attempt(db, "wrong password", f"203.0.113.{n}", policy) == "wrong"
        assert _attempt(db, "wrong password", f"203.0.113.{n}", policy).startswith("wait")
        assert _attempt(db, PASSWORD, "198.51.100.7", policy) == "in"


def test_one_address_guessing_one_account_waits_out_the_window(db, make_user):
    make_user("ann")
    policy = Policy(per_account=3, per_address=100)
    for _ in range(3):
        assert _attempt(db, "wrong password", "203.0.113.9", policy) == "wrong"
        _age_failures(db, 120)  # minutes pass: the count in the window is what holds
    assert _attempt(db, PASSWORD, "203.0.113.9", policy).startswith("wait")
    assert _attempt(db, PASSWORD, "198.51.100.7", policy) == "in"
