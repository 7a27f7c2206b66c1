"""The one way a request reaches the database: `await db.read(fn, ...)`, `await db.write(fn, ...)`.

`fn(session, *args, **kwargs)` is a service or query function; the runner opens the session,
runs it off the event loop and, for a write, commits before it answers, so an acknowledged
write is durable. Services never commit. The command line and background jobs, which have no
event loop to keep free, use `session_scope` instead.

- Reads run in the database's own threads, each statement of a read in one transaction (one
  snapshot), on a connection of the pool.
- On SQLite, writes go to one writer thread (`WriteQueue`): SQLite takes one writer at a time
  whatever the number of threads, so the writes waiting there share one BEGIN IMMEDIATE and
  one COMMIT (group commit), each in a SAVEPOINT of its own.
- On PostgreSQL, which writes in parallel, a write runs like a read, in a transaction of its
  own, and commits.
"""

import asyncio
import contextvars
import functools
import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy.orm import Session, sessionmaker

from app.db.engines import THREADS, make_engine

T = TypeVar("T")
P = ParamSpec("P")
Outcome = tuple[Any, bool]  # a job's result, and whether it changed the content


class Database:
    """The engine, its sessions, and the runner requests go through."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        # A read is one snapshot: SQLite's transactions are; PostgreSQL's need REPEATABLE READ
        # (a read-only transaction there never fails for it).
        reader = self.engine
        if self.engine.dialect.name == "postgresql":
            reader = self.engine.execution_options(isolation_level="REPEATABLE READ")
        self.sessions = sessionmaker(reader, expire_on_commit=False)
        # On SQLite a writer takes the write lock at BEGIN (see engines._on_begin).
        writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self.write_sessions = sessionmaker(writer, expire_on_commit=False)
        self.content_writes = 0  # commits of this process that changed the content
        self._threads: ThreadPoolExecutor | None = None  # made at the first read
        self.write_queue = (
            WriteQueue(self.write_sessions) if self.engine.dialect.name == "sqlite" else None
        )

    async def read(
        self, fn: Callable[Concatenate[Session, P], T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Run fn(session, *args, **kwargs) in one read transaction; return its result."""
        result, _ = await self._in_thread(lambda s: fn(s, *args, **kwargs), write=False)
        return result

    async def write(
        self, fn: Callable[Concatenate[Session, P], T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Run fn(session, *args, **kwargs) and commit; return its result once it is durable."""

        def work(session: Session) -> T:
            return fn(session, *args, **kwargs)

        if self.write_queue is not None:
            result, changed = await self.write_queue.run(work)
        else:
            result, changed = await self._in_thread(work, write=True)
        if changed:
            self.content_writes += 1
        return result

    async def _in_thread(self, work: Callable[[Session], Any], *, write: bool) -> Outcome:
        if self._threads is None:
            self._threads = ThreadPoolExecutor(THREADS, thread_name_prefix="studyhall-db")
        loop = asyncio.get_running_loop()
        run = functools.partial(self._run, work, write=write)
        return await loop.run_in_executor(self._threads, contextvars.copy_context().run, run)

    def _run(self, work: Callable[[Session], Any], *, write: bool) -> Outcome:
        with self.session_scope(write=write) as session:
            return work(session), bool(session.info.get("content_changed"))

    @contextmanager
    def session_scope(self, *, write: bool = False) -> Iterator[Session]:
        """Yield a session; commit when the block ends cleanly, roll back otherwise.

        For the command line, background jobs and tests; requests use `read` and `write`.
        """
        factory = self.write_sessions if write else self.sessions
        with factory() as session:
            try:
                yield session
                if write:
                    session.commit()
                    if session.info.get("content_changed"):
                        self.content_writes += 1
            except BaseException:
                session.rollback()
                raise

    def dispose(self) -> None:
        if self.write_queue is not None:
            self.write_queue.close()
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=True)
        self.engine.dispose()


@dataclass(eq=False)
class _Job:
    work: Callable[[Session], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Outcome]
    outcome: Outcome | BaseException | None = None


class WriteQueue:
    """SQLite's writes, committed in batches by one thread.

    A job's future is resolved only after the COMMIT that holds its rows. Each job runs once,
    in a SAVEPOINT of its own: a job that raises is rolled back alone, and its error goes to
    its own request.
    """

    MAX_BATCH = 64

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    async def run(self, work: Callable[[Session], Any]) -> Outcome:
        """Run work(session) in the next batch; its outcome once committed."""
        loop = asyncio.get_running_loop()
        job = _Job(work, loop, loop.create_future())
        self._ensure_started()
        self._jobs.put(job)
        return await job.future

    def close(self) -> None:
        """Finish the queued jobs and stop the writer thread."""
        with self._start:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._jobs.put(None)
            thread.join()

    def _ensure_started(self) -> None:
        with self._start:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="studyhall-writer", daemon=True
                )
                self._thread.start()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            batch = [job]
            while len(batch) < self.MAX_BATCH:
                try:
                    following = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if following is None:  # the end: it comes after this batch
                    self._jobs.put(None)
                    break
                batch.append(following)
            self._run_batch(batch)
            self._resolve(batch)

    def _run_batch(self, batch: list[_Job]) -> None:
        """Run the jobs in one transaction, each in a SAVEPOINT of its own; set their outcomes."""
        try:
            with self._sessions() as session:
                for job in batch:
                    session.info.clear()
                    try:
                        with session.begin_nested():
                            result = job.work(session)
                        job.outcome = (result, bool(session.info.get("content_changed")))
                    except Exception as exc:
                        job.outcome = exc
                session.commit()
        except Exception as exc:  # BEGIN or COMMIT failed: nothing in the batch was kept
            for job in batch:
                job.outcome = exc

    @staticmethod
    def _resolve(batch: list[_Job]) -> None:
        by_loop: dict[asyncio.AbstractEventLoop, list[_Job]] = {}
        for job in batch:
            by_loop.setdefault(job.loop, []).append(job)
        for loop, jobs in by_loop.items():
            try:
                loop.call_soon_threadsafe(_settle, jobs)
            except RuntimeError:  # the loop has closed: nobody waits for these any more
                pass


def _settle(jobs: list[_Job]) -> None:
    for job in jobs:
        if job.future.done():  # the request went away while it waited
            continue
        if isinstance(job.outcome, BaseException):
            job.future.set_exception(job.outcome)
        else:
            assert job.outcome is not None
            job.future.set_result(job.outcome)
