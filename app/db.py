"""Database engine, sessions and SQLite tuning."""

import sqlite3
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Engine, MetaData, TypeDecorator, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

BUSY_TIMEOUT_S = 5.0  # how long a writer waits for SQLite's write lock before giving up
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

    def release(self) -> None:
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().release()
            else:
                self._held = False


def _tune_sqlite(engine: Engine) -> None:
    """Apply the pragmas and take over BEGIN so writers can ask for BEGIN IMMEDIATE.

    Writers of this process queue on an in-process lock, first come first served, before
    BEGIN IMMEDIATE: threads then wait their turn instead of sleeping and polling in
    SQLite's busy handler. Between processes (the command line, a second worker) the busy
    timeout remains the backstop.
    """
    writers = FifoLock()

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # the "begin" hook below emits BEGIN itself
        cursor = dbapi_conn.cursor()
        for pragma in (
            "journal_mode=WAL",
            "foreign_keys=ON",
            f"busy_timeout={int(BUSY_TIMEOUT_S * 1000)}",
            "synchronous=NORMAL",
        ):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A deferred transaction that later writes fails at once when another writer holds
        # the lock; writers therefore take the lock up front.
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        if mode == "IMMEDIATE":
            if not writers.acquire(timeout=BUSY_TIMEOUT_S):
                raise OperationalError(
                    "BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database is locked")
                )
            conn.info["holds_write_lock"] = True
        try:
            conn.exec_driver_sql(f"BEGIN {mode}")
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


def make_engine(url: str) -> Engine:
    """Create the engine for a URL, creating the SQLite file's folder when needed."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            from pathlib import Path

            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False}, hide_parameters=True)
        _tune_sqlite(engine)
        return engine
    # hide_parameters: an error logged with its statement must not carry values such as
    # password hashes or session-token hashes.
    return create_engine(
        url, pool_pre_ping=True, pool_size=10, max_overflow=10, hide_parameters=True
    )


class Database:
    """An engine with a read session factory and a write session factory."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self.read_sessions = sessionmaker(self.engine, expire_on_commit=False)
        writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self.write_sessions = sessionmaker(writer, expire_on_commit=False)

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

    def dispose(self) -> None:
        self.engine.dispose()
