"""SQLite's allocation counts go off before the first connection, and only then.

Each case runs in a fresh interpreter: the setting belongs to the process, and this one has
had connections open since the suite began.
"""

import subprocess
import sys
import textwrap

import pytest

from app import sqlite_library

pytestmark = pytest.mark.skipif(
    sqlite_library.memory_used() is None, reason="SQLite's C functions are out of ctypes' reach"
)

COUNT_AFTER_WORK = """
    import sqlite3
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE t (x)")
    connection.executemany("INSERT INTO t VALUES (?)", [(n,) for n in range(100)])
    print(sqlite_library.memory_used())
"""


def run(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.split()


def test_memory_is_counted_unless_turned_off() -> None:
    """The control: the same work, in a process that never turned counting off."""
    (used,) = run("from app import sqlite_library\n" + textwrap.dedent(COUNT_AFTER_WORK))
    assert int(used) > 0


def test_the_first_sqlite_engine_turns_counting_off(tmp_path) -> None:
    code = f"""
        from app import sqlite_library
        from app.db import make_engine
        from sqlalchemy import text
        engine = make_engine("sqlite:///{tmp_path / "a.db"}")
        with engine.connect() as connection:
            print(connection.scalar(text("SELECT 40 + 2")))
        print(sqlite_library.stop_counting_memory())
    """
    answer, off, used = run(textwrap.dedent(code) + textwrap.dedent(COUNT_AFTER_WORK))
    assert (answer, off, used) == ("42", "True", "0")


def test_an_open_connection_keeps_the_library_as_it_is() -> None:
    code = """
        import sqlite3
        from app import sqlite_library
        early = sqlite3.connect(":memory:")
        early.execute("CREATE TABLE kept (x)")
        early.execute("INSERT INTO kept VALUES (7)")
        print(sqlite_library.stop_counting_memory())
        print(early.execute("SELECT x FROM kept").fetchone()[0])
    """
    off, kept, used = run(textwrap.dedent(code) + textwrap.dedent(COUNT_AFTER_WORK))
    assert (off, kept) == ("False", "7")
    assert int(used) > 0  # still counting


def test_the_library_is_set_once_per_process() -> None:
    """Once counting is off the count reads zero with connections open: no second shutdown."""
    code = """
        import sqlite3
        from app import sqlite_library
        calls = []
        reconfigure = sqlite_library._reconfigure
        sqlite_library._reconfigure = lambda: calls.append(1) or reconfigure()
        print(sqlite_library.stop_counting_memory())
        open_one = sqlite3.connect(":memory:")
        open_one.execute("CREATE TABLE kept (x)")
        open_one.execute("INSERT INTO kept VALUES (7)")
        print(sqlite_library.stop_counting_memory())
        print(len(calls), open_one.execute("SELECT x FROM kept").fetchone()[0])
    """
    assert run(code) == ["True", "True", "1", "7"]
