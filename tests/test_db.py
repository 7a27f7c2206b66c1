"""The runner: reads in threads, one snapshot each; SQLite's writes on one writer thread, in
shared commits, each job in a SAVEPOINT of its own; PostgreSQL's writes each in a transaction."""

import asyncio
import re
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import event, func, select, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session

from app.accounts.service import create_user
from app.db import Database, utcnow
from app.db.engines import ensure_power
from app.progress.models import PracticeAnswer
from app.progress.service import Answer, record_answers
from tests.factories import PASSWORD, import_file, question_id, run_async

QA = "Locks — Questions and Answers\nQuestion 1: Which?\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"


@pytest.fixture
def answers_db(db: Database) -> tuple[Database, int, int]:
    with db.session_scope(write=True) as session:
        user = create_user(session, "ann", PASSWORD)
    import_file(db, QA.encode(), "q.txt")
    return db, user.id, question_id(db, "1", "locks")


CALLS: list[str] = []


def answer(session: Session, user: int, question: int, choice: int, *, fails: bool = False) -> int:
    """Store one practice answer (its choice tells it apart); fail afterwards when asked."""
    CALLS.append(f"{choice}")
    record_answers(session, user, [Answer(question, 1, [choice], True, utcnow())])
    if fails:
        raise ValueError("refused")
    return choice


def stored(db: Database) -> list[list[int]]:
    with db.session_scope() as session:
        return sorted(session.scalars(select(PracticeAnswer.selected_ids)).all())


def test_concurrent_writes_are_all_kept(answers_db):
    """On SQLite they share commits (one writer thread); on PostgreSQL each commits alone."""
    db, user, question = answers_db
    commits = []
    event.listen(db.engine, "commit", lambda _conn: commits.append(1))

    async def many() -> list[int]:
        return await asyncio.gather(*(db.write(answer, user, question, n) for n in range(200)))

    assert run_async(many()) == list(range(200))
    assert stored(db) == sorted([n] for n in range(200))
    if db.engine.dialect.name == "sqlite":
        assert 1 <= len(commits) < 200  # some writes shared a commit


def test_a_failing_job_leaves_the_others_effects_exactly_once(answers_db):
    """Each job runs once: a failure rolls back its own SAVEPOINT, not the others' work."""
    db, user, question = answers_db
    CALLS.clear()

    async def batch() -> list[object]:
        return await asyncio.gather(
            db.write(answer, user, question, 1),
            db.write(answer, user, question, 99, fails=True),
            db.write(answer, user, question, 2),
            return_exceptions=True,
        )

    first, failed, last = run_async(batch())
    assert isinstance(failed, ValueError)
    assert (first, last) == (1, 2)
    assert sorted(CALLS) == ["1", "2", "99"]
    assert stored(db) == [[1], [2]]


def test_a_batch_that_cannot_commit_reports_every_write_failed(tmp_path, monkeypatch):
    """Another process holds the write lock past the busy timeout: nothing is acknowledged."""
    monkeypatch.setattr("app.db.engines.BUSY_TIMEOUT_S", 0.1)
    url = f"sqlite:///{tmp_path / 'q.db'}"
    from app.migrate import upgrade

    upgrade(url)
    db = Database(url)
    with db.session_scope(write=True) as session:
        user = create_user(session, "ann", PASSWORD).id
    import_file(db, QA.encode(), "q.txt")
    question = question_id(db, "1", "locks")
    other = sqlite3.connect(tmp_path / "q.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")

    async def batch() -> list[object]:
        return await asyncio.gather(
            *(db.write(answer, user, question, n) for n in range(3)), return_exceptions=True
        )

    outcomes = run_async(batch())
    other.execute("ROLLBACK")
    other.close()
    assert all(isinstance(outcome, OperationalError) for outcome in outcomes)
    assert stored(db) == []
    db.dispose()


def test_writes_queued_before_dispose_are_committed(answers_db):
    db, user, question = answers_db
    assert run_async(db.write(answer, user, question, 7)) == 7
    db.dispose()  # joins the writer thread; a second dispose is harmless
    db.dispose()
    assert stored(Database(db.url)) == [[7]]


def two_counts(
    session: Session, between: threading.Event, go_on: threading.Event
) -> tuple[int, int]:
    first = session.scalar(select(func.count(PracticeAnswer.id)))
    between.set()
    go_on.wait(5)
    return first or 0, session.scalar(select(func.count(PracticeAnswer.id))) or 0


def test_a_read_sees_one_snapshot_across_its_statements(answers_db):
    """A commit landing between two statements of a read is not seen by the second."""
    db, user, question = answers_db
    between, go_on = threading.Event(), threading.Event()

    async def read_while_writing() -> tuple[int, int]:
        reading = asyncio.ensure_future(db.read(two_counts, between, go_on))
        await asyncio.to_thread(between.wait, 5)
        await db.write(answer, user, question, 1)
        go_on.set()
        return await reading

    assert run_async(read_while_writing()) == (0, 0)
    assert stored(db) == [[1]]


def test_no_route_or_dependency_opens_a_session_of_its_own():
    """Requests reach a session through the runner only. The runner, the command line (the
    imports' steps included), the migrations, the checks, the backups and the background jobs
    may open one."""
    app = Path(__file__).resolve().parent.parent / "app"
    allowed = {
        "cli.py",
        "migrate.py",
        "checks.py",
        "backup.py",
        "exams/sweep.py",
        "progress/rebuild.py",
        "importers/service.py",
        "importers/lock.py",
        "accounts/cli.py",
    }
    forbidden = re.compile(
        r"session_scope\(|\.sessions\(|write_sessions\(|run_in_threadpool|\bSession\("
        r"|sessionmaker\(|engine\.(connect|begin)\("
    )
    for source in app.rglob("*.py"):
        name = source.relative_to(app).as_posix()
        if name.startswith("db/") or name in allowed:
            continue
        found = [match.group(0) for match in forbidden.finditer(source.read_text())]
        assert not found, f"app/{name} uses {found}"


def test_sqlite_without_math_functions_gets_a_power_of_its_own():
    """The dashboard's recall needs power(); a SQLite built without it gets one from Python."""

    class WithoutMath:
        def __init__(self) -> None:
            self.connection = sqlite3.connect(":memory:")
            self.functions: list[str] = []

        def execute(self, sql: str) -> sqlite3.Cursor:
            if "power(" in sql and not self.functions:
                raise sqlite3.OperationalError("no such function: power")
            return self.connection.execute(sql)

        def create_function(self, name: str, *args: object, **kwargs: object) -> None:
            self.functions.append(name)
            self.connection.create_function(name, *args, **kwargs)  # type: ignore[arg-type]

    conn = WithoutMath()
    ensure_power(conn)
    assert conn.functions == ["power"]
    assert conn.execute("SELECT power(2, 0.5), power(NULL, 2)").fetchone() == (2**0.5, None)
    built_in = WithoutMath()
    built_in.functions.append("-")  # this one answers power() itself
    ensure_power(built_in)
    assert built_in.functions == ["-"]


def test_sql_errors_never_log_their_parameters(db, caplog):
    """Parameters are what people typed (a search, a password hash): no engine shows them."""
    secret = "hunter2-typed-by-someone"
    for engine in [db.engine]:
        with pytest.raises(DBAPIError) as raised, engine.connect() as conn:
            conn.execute(text("SELECT * FROM no_such_table WHERE x = :x"), {"x": secret})
        assert secret not in str(raised.value)
    with caplog.at_level("DEBUG"), pytest.raises(DBAPIError) as raised:
        with db.session_scope() as session:
            session.execute(text("SELECT * FROM no_such_table WHERE x = :x"), {"x": secret})
    assert secret not in str(raised.value) and secret not in caplog.text


def test_no_statement_runs_on_the_drivers_own_cursor():
    """Every statement goes through SQLAlchemy, which hides parameters and is watched."""
    app = Path(__file__).resolve().parent.parent / "app"
    for source in app.rglob("*.py"):
        assert "driver_connection.cursor" not in source.read_text(), source
