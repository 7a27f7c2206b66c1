"""Dependencies shared by pages and the API: sessions, the unit of work, the content cache.

A request that writes gets one transaction, committed once before the response is sent:
sync routes take a `WriteSessionDep` (committed when the route returns, scope "function");
async routes on the hot path take a `UnitOfWork` and run their service call and its commit
in a single trip to the thread pool (on PostgreSQL, on the event loop). Services never commit.
"""

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Annotated, Any, TypeVar

from anyio.from_thread import run_sync as on_event_loop
from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.db import WriteQueue
from app.web.cache import ContentCache

T = TypeVar("T")


def get_session(request: Request) -> Iterator[Session]:
    """Yield a read session for the request."""
    with request.app.state.db.read_sessions() as session:
        yield session


def get_write_session(request: Request) -> Iterator[Session]:
    """Yield the request's one write session; commit it when the route returns.

    The dependency ends before the response is sent (scope "function"), so a failed commit
    becomes an error page, never a "saved" the database does not hold. On SQLite the
    session takes the write lock up front (BEGIN IMMEDIATE) at its first statement.
    """
    with request.app.state.db.write_sessions() as session:
        yield session
        session.commit()
        if session.info.pop("content_changed", False):
            on_event_loop(request.app.state.cache.clear)


class UnitOfWork:
    """One transaction for a request, run with its commit in a single thread-pool call.

    With a write queue (SQLite), the work joins the writer thread's next batch instead and
    shares its commit. With `loop_sessions` (PostgreSQL), the work runs on the event loop,
    its statements awaited through the async driver (SQLAlchemy's `run_sync`).
    """

    def __init__(
        self,
        sessions: Callable[[], AbstractContextManager[Session]],
        cache: ContentCache,
        write_queue: WriteQueue | None = None,
        *,
        on_loop: bool = False,
        loop_sessions: async_sessionmaker[AsyncSession] | None = None,
    ) -> None:
        self._sessions = sessions
        self._cache = cache
        self._write_queue = write_queue
        self._on_loop = on_loop
        self._loop_sessions = loop_sessions

    async def run(self, work: Callable[[Session], T]) -> T:
        """Run work(session) and commit, off the event loop; the result once it is durable.

        A brief read on SQLite runs on the event loop instead, and on PostgreSQL every unit
        runs there, awaiting the server (see `unit_of_work`).
        """
        if self._on_loop:
            result, info = self._read(work)
        elif self._loop_sessions is not None:
            result, info = await self._run_awaited(work, self._loop_sessions)
        elif self._write_queue is not None:
            result, info = await self._write_queue.run(work)
        else:
            result, info = await run_in_threadpool(self._run, work)
        if info.get("content_changed"):
            self._cache.clear()
        return result

    @staticmethod
    async def _run_awaited(
        work: Callable[[Session], T], sessions: async_sessionmaker[AsyncSession]
    ) -> tuple[T, dict[str, Any]]:
        """Run work(session) and commit on the event loop, awaiting each statement."""
        async with sessions() as session:
            result = await session.run_sync(work)
            await session.commit()
            return result, dict(session.info)

    def _run(self, work: Callable[[Session], T]) -> tuple[T, dict[str, Any]]:
        with self._sessions() as session:
            result = work(session)
            session.commit()
            return result, dict(session.info)

    def _read(self, work: Callable[[Session], T]) -> tuple[T, dict[str, Any]]:
        """Run a brief read: in autocommit, with nothing to commit."""
        with self._sessions() as session:
            return work(session), dict(session.info)


def unit_of_work(request: Request, *, write: bool = True, brief: bool = False) -> UnitOfWork:
    """Build the request's unit of work (a write one takes SQLite's write lock up front).

    `brief` marks a read found by key through an index and bounded by one learner's own
    rows (a tally, an attempt's marks, who a session belongs to, the learner's dashboard):
    on a SQLite file it runs on the event loop (`Database.brief_session`), where it costs
    less than a trip to a thread, and far less than threads taking turns on the GIL when
    several run at once. Anything that scans the library or other learners' rows, ranks, or
    may wait stays in the thread pool. On PostgreSQL, while the application runs, every unit
    of work runs on the event loop, awaiting the server (`Database.open_loop_pool`).
    """
    db = request.app.state.db
    if db.loop_sessions is not None:
        return UnitOfWork(db.read_sessions, request.app.state.cache, loop_sessions=db.loop_sessions)
    if write:
        return UnitOfWork(db.write_sessions, request.app.state.cache, db.write_queue)
    if brief and db.brief_sessions is not None:
        return UnitOfWork(db.brief_session, request.app.state.cache, on_loop=True)
    return UnitOfWork(db.read_sessions, request.app.state.cache)


async def get_cache(request: Request) -> ContentCache:
    return request.app.state.cache


SessionDep = Annotated[Session, Depends(get_session)]
WriteSessionDep = Annotated[Session, Depends(get_write_session, scope="function")]
CacheDep = Annotated[ContentCache, Depends(get_cache)]
