"""One import at a time per database, across threads, processes and hosts.

An import writes in many short transactions, so no transaction lock can hold it together.
On PostgreSQL a session advisory lock does; on SQLite an exclusive `flock` on a file beside
the database. Both are let go when the process ends, however it ends.
"""

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app.db import Database

LOCK_KEY = 0x5354_4448  # "STDH": the advisory lock number imports take on PostgreSQL
_in_memory = threading.Lock()  # an in-memory SQLite database lives in one process


@contextmanager
def exclusive_import(db: Database) -> Iterator[None]:
    """Wait until no other import runs on db, and hold that until the block ends."""
    url = make_url(db.url)
    if url.get_backend_name() == "postgresql":
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": LOCK_KEY})
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": LOCK_KEY})
    elif url.database and url.database != ":memory:":
        with Path(f"{url.database}.import-lock").open("a") as file:
            fcntl.flock(file, fcntl.LOCK_EX)  # let go when the file closes
            yield
    else:
        with _in_memory:
            yield


def import_lock_until_commit(session: Session) -> None:
    """Wait until no stepwise import runs, and keep them out until the session's transaction
    ends (PostgreSQL). On SQLite the transaction's write lock keeps the other writers out."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
