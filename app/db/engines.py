"""Engines: SQLite tuned for a web server's many readers and one writer, PostgreSQL pooled."""

import math
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

BUSY_TIMEOUT_S = 5.0  # how long a writer waits for SQLite's write lock before giving up
THREADS = 16  # requests of one worker reading (or, on PostgreSQL, writing) at once
# Connections per worker: one for each of those threads, SQLite's writer thread, and a few
# for the exam sweep, the health check and the metrics.
POOL = {"pool_size": THREADS + 1, "max_overflow": 4}


def make_engine(url: str) -> Engine:
    """Create the engine for a URL, creating the SQLite file's folder when needed.

    Parameters are hidden from logged errors: a statement logged with its values would
    carry password hashes, session-token hashes and what people typed into search.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, hide_parameters=True, pool_pre_ping=True, **POOL)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url, connect_args={"check_same_thread": False}, hide_parameters=True, **POOL
    )
    event.listen(engine, "connect", _on_connect)
    event.listen(engine, "begin", _on_begin)
    return engine


def _on_connect(dbapi_conn: Any, _record: Any) -> None:
    dbapi_conn.isolation_level = None  # BEGIN is emitted by `_on_begin`
    cursor = dbapi_conn.cursor()
    for pragma in (
        "journal_mode=WAL",
        "foreign_keys=ON",
        f"busy_timeout={int(BUSY_TIMEOUT_S * 1000)}",
        "synchronous=NORMAL",
    ):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()
    ensure_power(dbapi_conn)


def _on_begin(conn: Any) -> None:
    # A deferred transaction that later writes fails at once when another writer holds the
    # lock; writers therefore ask for it up front (execution option sqlite_begin).
    mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
    conn.exec_driver_sql(f"BEGIN {mode}")


def ensure_power(dbapi_conn: Any) -> None:
    """Give SQLite a power() when it was built without its math functions (recall needs it)."""
    try:
        dbapi_conn.execute("SELECT power(2, 3)").close()
    except sqlite3.OperationalError:
        dbapi_conn.create_function("power", 2, _power, deterministic=True)


def _power(base: float | None, exponent: float | None) -> float | None:
    return None if base is None or exponent is None else math.pow(base, exponent)
