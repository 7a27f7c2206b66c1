"""Database engine, sessions and SQLite tuning."""

import asyncio
import math
import queue
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import (
    DateTime,
    Engine,
    MetaData,
    TypeDecorator,
    create_engine,
    event,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.pool import SingletonThreadPool

from app import sqlite_library

T = TypeVar("T")

BUSY_TIMEOUT_S = 5.0  # how long a writer waits for SQLite's write lock before giving up
LOOK_AGAIN_S = 0.001  # how often a writer waiting for another process's write lock looks again
PER_THREAD_CONNECTIONS = 256  # at most, on an engine keeping one for each thread that asks
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """Return the current time, timezone-aware in UTC (what every timestamp column holds)."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend (SQLite hands back naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime; use datetime.now(UTC)")
        return value.astimezone(UTC) if value is not None else None

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class FifoLock:
    """A lock that threads get in the order they asked for it (threading.Lock has no order)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._waiters: deque[threading.Lock] = deque()
        self._held = False

    def acquire(self, timeout: float = -1) -> bool:
        """Wait for the lock (at most timeout seconds when given); tell whether it was got."""
        with self._mutex:
            if not self._held:
                self._held = True
                return True
            turn = threading.Lock()
            turn.acquire()
            self._waiters.append(turn)
        if turn.acquire(timeout=timeout):  # released by the holder, which hands the lock over
            return True
        with self._mutex:
            if turn in self._waiters:  # still queued: give up the place
                self._waiters.remove(turn)
                return False
        return True  # handed over just as the wait ran out: it is ours

    def try_acquire(self) -> bool:
        """Take the lock only if it is free and nobody waits for it; never wait."""
        with self._mutex:
            if self._held or self._waiters:
                return False
            self._held = True
            return True

    def release(self) -> None:
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().release()
            else:
                self._held = False


def ensure_power(dbapi_conn: Any) -> None:
    """Give SQLite a power() when it was built without its math functions (recall needs it)."""
    try:
        dbapi_conn.execute("SELECT power(2, 3)").close()
    except sqlite3.OperationalError:
        dbapi_conn.create_function("power", 2, _power, deterministic=True)


def _power(base: float | None, exponent: float | None) -> float | None:
    return None if base is None or exponent is None else math.pow(base, exponent)


def _tune_sqlite(
    engine: Engine, *, transactions: bool = True, writers: FifoLock | None = None
) -> None:
    """Apply the pragmas and take over BEGIN so writers can ask for BEGIN IMMEDIATE.

    Without `transactions` (an engine in autocommit) only the pragmas are applied.

    Writers of this process queue on an in-process lock (`writers`, shared by the engines
    of one `Database`), first come first served, before BEGIN IMMEDIATE: threads then wait
    their turn instead of sleeping and polling in SQLite's busy handler. Between processes
    (the command line, a second worker) the busy timeout remains the backstop.
    """
    writers = writers if writers is not None else FifoLock()

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        _apply_pragmas(dbapi_conn, busy_timeout_s=BUSY_TIMEOUT_S)

    if not transactions:
        return

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A deferred transaction that later writes fails at once when another writer holds
        # the lock; writers therefore take the lock up front.
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        if mode != "IMMEDIATE":
            conn.exec_driver_sql(f"BEGIN {mode}")
            return
        if not writers.acquire(timeout=BUSY_TIMEOUT_S):
            raise OperationalError(
                "BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database is locked")
            )
        conn.info["holds_write_lock"] = True
        try:
            _begin_immediate(conn.connection.driver_connection)
        except sqlite3.OperationalError as exc:
            _release(conn)
            raise OperationalError("BEGIN IMMEDIATE", {}, exc) from None
        except BaseException:
            _release(conn)
            raise

    def _release(conn: Any) -> None:
        if conn.info.pop("holds_write_lock", False):
            writers.release()

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_conn: Any, record: Any) -> None:
        # A connection goes back to the pool after its COMMIT or ROLLBACK has run.
        if record.info.pop("holds_write_lock", False):
            writers.release()


def _begin_immediate(dbapi_conn: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, looking again every millisecond until the busy timeout runs out.

    SQLite's own busy handler sleeps longer and longer between looks (100 ms at last), so
    another process writing step after step (an import) would take the lock back, time after
    time, before it looked again; looking every millisecond finds the pause it leaves between
    two steps.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    dbapi_conn.execute(f"PRAGMA busy_timeout = {max(1, int(LOOK_AGAIN_S * 1000))}")
    try:
        while True:
            try:
                dbapi_conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() >= deadline:
                    raise
            time.sleep(LOOK_AGAIN_S)
    finally:
        dbapi_conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")


def _apply_pragmas(dbapi_conn: Any, *, busy_timeout_s: float, checkpoints: bool = True) -> None:
    dbapi_conn.isolation_level = None  # BEGIN is emitted by the engine's "begin" hook
    cursor = dbapi_conn.cursor()
    for pragma in (
        "journal_mode=WAL",
        "foreign_keys=ON",
        f"busy_timeout={int(busy_timeout_s * 1000)}",
        "synchronous=NORMAL",
        *(() if checkpoints else ("wal_autocheckpoint=0",)),
    ):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()
    ensure_power(dbapi_conn)


def _tune_loop_writer(engine: Engine) -> None:
    """Tune the engine whose connection commits on the event loop.

    Its caller holds the process's write lock before BEGIN, so nothing here waits: no busy
    timeout (a lock held by another process sends the batch to the writer thread, which
    may wait) and no automatic checkpoint (its fsync would stall the loop; the write queue
    has checkpoints run in a thread instead).
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        _apply_pragmas(dbapi_conn, busy_timeout_s=0, checkpoints=False)

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def _is_busy(exc: BaseException) -> bool:
    """Tell whether an error is SQLite's "the write lock is held elsewhere"."""
    orig = getattr(exc, "orig", exc)
    code = getattr(orig, "sqlite_errorcode", None)
    return isinstance(orig, sqlite3.OperationalError) and (
        (code is not None and code & 0xFF == sqlite3.SQLITE_BUSY)
        or "database is locked" in str(orig)
    )


_CHECKPOINT = object()  # in the writer thread's queue: checkpoint the log now
_EMPTY = object()


@dataclass(eq=False)
class _Job:
    work: Callable[[Session], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[tuple[Any, dict[str, Any]]]
    outcome: tuple[Any, dict[str, Any]] | BaseException | None = field(default=None)


class WriteQueue:
    """Small writes committed in batches (group commit), on the event loop when it can.

    SQLite takes one writer at a time whatever the number of threads, so answers that queue
    here cost one BEGIN IMMEDIATE and one COMMIT per batch instead of one each, and threads
    no longer take turns on the write lock. A job's future is resolved only after the COMMIT
    that holds its rows, so an acknowledged write is durable. A job that raises is rolled
    back to its SAVEPOINT alone, and no job runs twice.

    With `loop_sessions`, the jobs that arrive while the event loop runs its callbacks are
    committed together by the loop itself, at the end of that turn, through a connection of
    its own: a local commit in WAL mode without fsync takes tens of microseconds, while a
    batch handed to a thread waits for the GIL at each statement once the loop is busy.
    The loop never waits for the write lock: when another writer holds it (a thread of
    this process, or another process), the batch goes to the writer thread, which waits
    its turn. The writer thread also checkpoints the loop's commits, holding the lock so
    that the checkpoint completes and the log starts again from its beginning; batches of
    that moment queue behind it, as they did behind SQLite's own automatic checkpoint.
    """

    MAX_BATCH = 64
    CHECKPOINT_EVERY = 256  # loop commits between two checkpoints (a few pages each)

    def __init__(
        self,
        sessions: sessionmaker[Session],
        *,
        loop_sessions: sessionmaker[Session] | None = None,
        writers: FifoLock | None = None,
        checkpoint: Callable[[], None] | None = None,
    ) -> None:
        self._sessions = sessions
        self._jobs: queue.SimpleQueue[_Job | object | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()
        self._loop_sessions = loop_sessions
        self._writers = writers if writers is not None else FifoLock()
        self._checkpoint = checkpoint
        self._pending: dict[asyncio.AbstractEventLoop, list[_Job]] = {}
        self._loop_commits = 0

    async def run(self, work: Callable[[Session], T]) -> tuple[T, dict[str, Any]]:
        """Run work(session) in the next batch; its result and session.info once committed."""
        loop = asyncio.get_running_loop()
        job = _Job(work, loop, loop.create_future())
        if self._loop_sessions is None:
            self._to_thread(job)
        else:
            pending = self._pending.setdefault(loop, [])
            pending.append(job)
            if len(pending) == 1:
                loop.call_soon(self._flush, loop)
        result, info = await job.future
        return result, info

    def _to_thread(self, job: _Job) -> None:
        self._ensure_started()
        self._jobs.put(job)

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        """Commit the jobs queued during this turn of the loop (called by the loop)."""
        jobs = self._pending.pop(loop, [])
        for start in range(0, len(jobs), self.MAX_BATCH):
            batch = jobs[start : start + self.MAX_BATCH]
            try:
                handed_over = self._commit_here(batch)
            except BaseException as exc:  # never leave a request waiting
                handed_over = []
                for job in batch:
                    job.outcome = exc
            for job in handed_over:
                self._to_thread(job)
            _settle([job for job in batch if job not in handed_over])
        if self._loop_commits >= self.CHECKPOINT_EVERY and self._checkpoint is not None:
            self._loop_commits = 0
            self._ensure_started()
            self._jobs.put(_CHECKPOINT)

    def _commit_here(self, batch: list[_Job]) -> list[_Job]:
        """Commit the batch on this thread without waiting; return the jobs left undone."""
        assert self._loop_sessions is not None
        if not self._writers.try_acquire():
            return batch
        try:
            left = self._run_batch(self._loop_sessions, batch, hand_back_when_busy=True)
        finally:
            self._writers.release()
        if len(left) < len(batch):
            self._loop_commits += 1
        return left

    def _checkpoint_held(self) -> None:
        """Checkpoint with the write lock held (skipped if it cannot be had in time)."""
        assert self._checkpoint is not None
        if not self._writers.acquire(timeout=BUSY_TIMEOUT_S):
            return
        try:
            self._checkpoint()
        except OperationalError:  # another process holds the database: the next one will do
            pass
        finally:
            self._writers.release()

    def close(self) -> None:
        """Finish the queued jobs and stop the writer thread."""
        with self._start:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._jobs.put(None)
            thread.join()

    def _ensure_started(self) -> None:
        if self._thread is None:
            with self._start:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._serve, name="studyhall-writer", daemon=True
                    )
                    self._thread.start()

    def _serve(self) -> None:
        carried: _Job | object | None = self._jobs.get()
        while carried is not None:
            if carried is _CHECKPOINT:
                self._checkpoint_held()
                carried = self._jobs.get()
                continue
            assert isinstance(carried, _Job)
            batch, carried = [carried], _EMPTY
            while len(batch) < self.MAX_BATCH:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if not isinstance(job, _Job):  # the end, or a checkpoint: after this batch
                    carried = job
                    break
                batch.append(job)
            self._run_batch(self._sessions, batch, hand_back_when_busy=False)
            self._resolve(batch)
            if carried is _EMPTY:
                carried = self._jobs.get()

    @staticmethod
    def _run_batch(
        sessions: sessionmaker[Session], batch: list[_Job], *, hand_back_when_busy: bool
    ) -> list[_Job]:
        """Run the jobs in one transaction, each in a SAVEPOINT of its own, and set their outcomes.

        A job that raises is rolled back to its SAVEPOINT alone; every job runs once. Returns
        the jobs left undone: those of a batch whose BEGIN found the write lock held
        elsewhere, when `hand_back_when_busy`; otherwise none.
        """
        begun = False
        try:
            with sessions() as session:
                session.connection()  # BEGIN IMMEDIATE now, so a lock wait fails the batch
                begun = True
                for job in batch:
                    session.info.clear()
                    try:
                        with session.begin_nested():
                            result = job.work(session)
                        job.outcome = (result, dict(session.info))
                    except Exception as exc:
                        job.outcome = exc
                session.commit()
        except Exception as exc:  # BEGIN or COMMIT failed: nothing in the batch was kept
            if hand_back_when_busy and not begun and _is_busy(exc):  # no job has run
                for job in batch:
                    job.outcome = None
                return batch
            for job in batch:
                job.outcome = exc
        return []

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


def make_engine(
    url: str,
    *,
    per_thread: bool = False,
    loop_writer: bool = False,
    writers: FifoLock | None = None,
) -> Engine:
    """Create the engine for a URL, creating the SQLite file's folder when needed.

    `per_thread` (SQLite) keeps one connection for each thread that asks, instead of a pool,
    in autocommit: each statement reads a snapshot of its own, with no BEGIN or COMMIT.
    `loop_writer` (SQLite) also keeps one connection per thread, for the write queue's
    commits on the event loop (see `_tune_loop_writer`). `writers` is the in-process write
    lock to share with other engines on the same file.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        sqlite_library.stop_counting_memory()  # before the process's first connection
        if parsed.database and parsed.database != ":memory:":
            from pathlib import Path

            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        options: dict[str, Any] = {}
        if per_thread or loop_writer:
            options = {"poolclass": SingletonThreadPool}
        if per_thread:
            # A connection for each thread that asks (the event loop, a cache's own threads):
            # past its size the pool would close the connection of a thread still using it.
            options |= {"isolation_level": "AUTOCOMMIT", "pool_size": PER_THREAD_CONNECTIONS}
        engine = create_engine(
            url, connect_args={"check_same_thread": False}, hide_parameters=True, **options
        )
        if loop_writer:
            _tune_loop_writer(engine)
        else:
            _tune_sqlite(engine, transactions=not per_thread, writers=writers)
        return engine
    # hide_parameters: an error logged with its statement must not carry values such as
    # password hashes or session-token hashes.
    return create_engine(url, hide_parameters=True, pool_pre_ping=True, **THREAD_POOL)


# PostgreSQL connections per worker. While the application runs, requests use the event
# loop's pool (see `Database.open_loop_pool`); the thread pool's serves the content cache's
# loads, the sync routes and the sweep, and everything outside a running application.
LOOP_POOL = {"pool_size": 20, "max_overflow": 10}
THREAD_POOL = {"pool_size": 5, "max_overflow": 5}


class Database:
    """An engine with a read session factory and a write session factory.

    On a SQLite file there are also `brief_sessions`, for reads of a few rows by key that
    run on the event loop: the file is local and, in WAL mode, its readers never wait for
    a writer, so such a read takes tens of microseconds, less than a trip to a thread. They
    come from a connection of the loop's own, outside the pool, so the loop never waits for
    a pooled connection either. They run in autocommit: a brief read is one statement. A
    cache's own threads keep one too (`ContentCache`, for searches): each statement of a
    search reads the latest commit.
    The write queue's commits on the loop likewise use a connection of their own
    (`loop_write_engine`). On PostgreSQL, while the application runs, units of work use
    `loop_sessions` (see `open_loop_pool`).
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.writers = FifoLock()
        self.engine = make_engine(url, writers=self.writers)
        self.read_sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.brief_engine: Engine | None = None
        self.brief_sessions: sessionmaker[Session] | None = None
        self._brief_local = threading.local()  # each thread's kept brief session
        self._brief_kept: list[Session] = []  # all of them, closed by `dispose`
        self.loop_write_engine: Engine | None = None
        # PostgreSQL, while the application runs: see `open_loop_pool`.
        self.loop_engine: AsyncEngine | None = None
        self.loop_sessions: async_sessionmaker[AsyncSession] | None = None
        loop_sessions = None
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
            self.brief_engine = make_engine(url, per_thread=True)
            self.brief_sessions = sessionmaker(self.brief_engine, expire_on_commit=False)
            self.loop_write_engine = make_engine(url, loop_writer=True)
            loop_sessions = sessionmaker(self.loop_write_engine, expire_on_commit=False)
        writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self.write_sessions = sessionmaker(writer, expire_on_commit=False)
        # SQLite writes one at a time anyway, so small writes share commits (on the event
        # loop when it can, else on one thread); PostgreSQL writes in parallel, each request
        # in a transaction of its own.
        self.write_queue = (
            WriteQueue(
                self.write_sessions,
                loop_sessions=loop_sessions,
                writers=self.writers,
                checkpoint=self.checkpoint,
            )
            if self.engine.dialect.name == "sqlite"
            else None
        )

    async def open_loop_pool(self) -> None:
        """On PostgreSQL, open the pool that units of work use on the running event loop.

        Through psycopg's async mode, a request's statements wait for the server on the loop
        instead of in a thread: no trip to the thread pool and back, and no thread taking
        its turn on the GIL at every statement. The pool belongs to this loop: open it in
        the application's start-up and close it in its shutdown.
        """
        if self.engine.dialect.name != "postgresql" or self.loop_engine is not None:
            return
        url = make_url(self.url).set(drivername="postgresql+psycopg_async")
        self.loop_engine = create_async_engine(
            url, hide_parameters=True, pool_pre_ping=True, **LOOP_POOL
        )
        self.loop_sessions = async_sessionmaker(self.loop_engine, expire_on_commit=False)

    async def close_loop_pool(self) -> None:
        engine, self.loop_engine, self.loop_sessions = self.loop_engine, None, None
        if engine is not None:
            await engine.dispose()

    @property
    def engines(self) -> list[Engine]:
        """Every engine of this database (the pool's, and the event loop's own)."""
        return [
            *self._sync_engines(),
            *([self.loop_engine.sync_engine] if self.loop_engine else []),
        ]

    def _sync_engines(self) -> list[Engine]:
        extra = (self.brief_engine, self.loop_write_engine)
        return [self.engine, *(engine for engine in extra if engine is not None)]

    def checkpoint(self) -> None:
        """Copy SQLite's write-ahead log into the database file, without blocking writers."""
        raw = self.engine.raw_connection()
        try:
            raw.driver_connection.execute("PRAGMA wal_checkpoint(PASSIVE)").close()  # type: ignore[union-attr]
        finally:
            raw.close()

    @contextmanager
    def session_scope(self, *, write: bool = False) -> Iterator[Session]:
        """Yield a session; commit when the block ends cleanly, roll back otherwise."""
        factory = self.write_sessions if write else self.read_sessions
        with factory() as session:
            try:
                yield session
                if write:
                    session.commit()
            except BaseException:
                session.rollback()
                raise

    @contextmanager
    def brief_session(self) -> Iterator[Session]:
        """The calling thread's session for one brief read (see `brief_sessions`).

        It stays open from one read to the next, on the thread's own connection, so a read
        costs its statements and not a session's set-up and tear-down, which cost more than
        the read itself. In autocommit each statement still reads the latest commit and
        nothing is held between reads; what a read loaded is forgotten when it ends. A read
        begun inside another on the same thread gets a session of its own.
        """
        if self.brief_sessions is None:
            raise RuntimeError("brief reads need a SQLite file")
        local = self._brief_local
        if getattr(local, "busy", False):
            with self.brief_sessions() as session:
                yield session
            return
        kept: Session | None = getattr(local, "session", None)
        if kept is None:
            kept = local.session = self.brief_sessions()
            self._brief_kept.append(kept)
        session = kept
        local.busy = True
        try:
            yield session
        except BaseException:
            session.close()  # it may hold a statement read halfway: the next read begins anew
            raise
        finally:
            session.expunge_all()
            session.info.clear()
            local.busy = False

    def dispose(self) -> None:
        for session in self._brief_kept:
            session.close()
        self._brief_kept.clear()
        self._brief_local = threading.local()
        if self.write_queue is not None:
            self.write_queue.close()
        for engine in self._sync_engines():  # the loop's pool is closed on its loop
            engine.dispose()
