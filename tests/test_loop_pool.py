"""On PostgreSQL, units of work run on the event loop through the async driver's pool."""

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.db import Database
from app.web.cache import ContentCache
from app.web.dependencies import UnitOfWork
from tests.conftest import PG_URL
from tests.factories import run_async

pytestmark = pytest.mark.skipif(not PG_URL, reason="the loop's pool is PostgreSQL's")


def _users(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(User)) or 0


def test_the_application_opens_the_loop_pool_at_start_up_and_closes_it_at_shutdown(app):
    assert app.state.db.loop_sessions is None
    with TestClient(app):
        assert app.state.db.loop_sessions is not None
    assert app.state.db.loop_sessions is None and app.state.db.loop_engine is None


def test_a_unit_of_work_runs_on_the_event_loop_and_commits(db_url: str) -> None:
    async def scenario() -> tuple[list[int], int, int]:
        db = Database(db_url)
        await db.open_loop_pool()
        try:
            assert db.loop_sessions is not None
            work = UnitOfWork(db.read_sessions, ContentCache(db, 0), loop_sessions=db.loop_sessions)
            threads: list[int] = []

            def add(session: Session) -> int:
                threads.append(threading.get_ident())
                session.add(User(username="loop-ann", password_hash="x", role="learner"))
                session.flush()
                return _users(session)

            inside = await work.run(add)
            with db.session_scope() as session:  # another connection sees it: committed
                after = _users(session)
            return [*threads, threading.get_ident()], inside, after
        finally:
            await db.close_loop_pool()
            db.dispose()

    threads, inside, after = run_async(scenario())
    assert threads[0] == threads[1]  # the work ran on the loop's own thread
    assert inside == after == 1


def test_a_unit_of_work_that_fails_on_the_loop_keeps_nothing(db_url: str) -> None:
    async def scenario() -> int:
        db = Database(db_url)
        await db.open_loop_pool()
        try:
            assert db.loop_sessions is not None
            work = UnitOfWork(db.read_sessions, ContentCache(db, 0), loop_sessions=db.loop_sessions)

            def add_then_fail(session: Session) -> Any:
                session.add(User(username="loop-bob", password_hash="x", role="learner"))
                session.flush()
                session.execute(text("SELECT 1 / 0"))

            with pytest.raises(Exception, match="division by zero"):
                await work.run(add_then_fail)
            with db.session_scope() as session:
                return _users(session)
        finally:
            await db.close_loop_pool()
            db.dispose()

    assert run_async(scenario()) == 0
