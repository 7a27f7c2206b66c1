"""`studyhall backup` and `studyhall restore`: copies taken while learners answer keep every
acknowledged answer, and a restore refuses bad files and live databases, changing nothing."""

import fcntl
import hashlib
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import httpx2 as httpx
import pytest
from sqlalchemy import create_engine, insert, select, text
from sqlalchemy.engine import make_url
from typer.testing import CliRunner, Result

from app.accounts.models import User
from app.accounts.service import create_user
from app.backup import STEP_PAGES
from app.cli import cli
from app.content.models import Choice, Question
from app.db import Database
from app.migrate import current_revision, head_revision, upgrade
from app.progress.models import PracticeAnswer, ReviewCard
from tests.conftest import PG_URL, _admin_url
from tests.factories import PASSWORD, load_seed, snapshot
from tests.servers import PROJECT_ROOT, free_port, server_env, serving, studyhall_command

ANSWERING_S = 60.0  # learners answer this long, while backups are taken
BACKUPS_AT_S = (15.0, 45.0)
LEARNER_THREADS = 4
HISTORY = 100_000  # answers given before: 15 MB, so a copy takes several steps

sqlite_only = pytest.mark.skipif(
    bool(PG_URL), reason="SQLite's backup API and the database file's lock are what is tested"
)
postgres_only = pytest.mark.skipif(
    not PG_URL, reason="pg_dump and pg_restore need PostgreSQL (set STUDYHALL_TEST_DATABASE_URL)"
)


def studyhall(
    args: list[str], database_url: str, timeout: float = 300, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run `studyhall ...` as a subprocess against a database; return what it did."""
    return subprocess.run(
        [*studyhall_command(), *args],
        cwd=PROJECT_ROOT,
        env={**server_env(database_url), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def said(done: subprocess.CompletedProcess[str]) -> str:
    """Everything a command printed, with line wrapping undone."""
    return " ".join(f"{done.stdout}\n{done.stderr}".split())


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def sql(path: Path, statement: str) -> list[tuple[Any, ...]]:
    """Run one statement on a SQLite file, committed, and return its rows."""
    with closing(sqlite3.connect(path)) as conn, conn:
        return conn.execute(statement).fetchall()


def integrity(path: Path) -> str:
    return str(sql(path, "PRAGMA integrity_check")[0][0])


def fingerprint(path: Path) -> list[str]:
    """The bytes of a database file and of its write-ahead log, hashed."""
    files = [path, Path(f"{path}-wal")]
    return [hashlib.sha256(file.read_bytes()).hexdigest() for file in files if file.exists()]


def usernames(db: Database) -> list[str]:
    with db.session_scope() as session:
        return sorted(session.scalars(select(User.username)))


# --- the key test: backups while learners answer ------------------------------------------


class Learner(threading.Thread):
    """Answers questions through the JSON API until stopped, keeping a ledger of the answers."""

    def __init__(self, url: str, picks: list[tuple[int, int]], stop: threading.Event) -> None:
        super().__init__()
        self.url, self.picks, self.stop = url, picks, stop
        self.sent: list[float] = []  # when each answer was sent
        self.acknowledged: list[tuple[int, float]] = []  # (question, when its answer came back)
        self.failures: list[str] = []

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            login = client.post("/login", data={"username": "ann", "password": PASSWORD})
            if login.status_code != 303:
                self.failures.append(f"log-in: {login.status_code}")
                return
            turn = 0
            while not self.stop.is_set():
                question, choice = self.picks[turn % len(self.picks)]
                turn += 1
                self.sent.append(time.monotonic())
                answer = client.post(
                    f"/api/v1/questions/{question}/check", json={"choice_ids": [choice]}
                )
                if answer.status_code == 200:
                    self.acknowledged.append((question, time.monotonic()))
                else:
                    self.failures.append(f"{answer.status_code}: {answer.text[:200]}")


def first_choices(db: Database) -> list[tuple[int, int]]:
    """(question, its first choice) for every question."""
    with db.session_scope() as session:
        rows = session.execute(select(Choice.question_id, Choice.id).order_by(Choice.id)).all()
    firsts: dict[int, int] = {}
    for question, choice in rows:
        firsts.setdefault(question, choice)
    return list(firsts.items())


def give_history(db: Database, username: str, answers: int) -> None:
    """Give a learner many past answers over the seed questions, and a card for each question."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    with db.session_scope(write=True) as session:
        user = create_user(session, username, PASSWORD, "learner")
        questions = list(session.scalars(select(Question.id)))
        given = {"user_id": user.id, "question_revision": 1, "selected_ids": [], "answered_at": at}
        session.execute(
            insert(PracticeAnswer),
            [
                {**given, "question_id": questions[n % len(questions)], "is_correct": True}
                for n in range(answers)
            ],
        )
        card = {"user_id": user.id, "state": 2, "due_at": at, "last_correct": True}
        session.execute(insert(ReviewCard), [{**card, "question_id": q} for q in questions])


def answers_per_question(path: Path, username: str) -> Counter[int]:
    rows = sql(
        path,
        "SELECT question_id, count(*) FROM practice_answer JOIN user_account u "
        f"ON u.id = user_id WHERE u.username = '{username}' GROUP BY 1",
    )
    return Counter(dict(rows))


@sqlite_only
def test_backups_taken_while_learners_answer_keep_every_acknowledged_answer(
    seeded, make_user, db_url, tmp_path
):
    make_user("ann")
    give_history(seeded, "bea", HISTORY)
    picks = first_choices(seeded)
    stop = threading.Event()
    backups: list[tuple[Path, float, float]] = []  # (file, started, finished)
    with serving(server_env(db_url), tmp_path / "server.log") as url:
        learners = [Learner(url, picks[n::LEARNER_THREADS], stop) for n in range(LEARNER_THREADS)]
        start = time.monotonic()
        for learner in learners:
            learner.start()
        try:
            for number, at in enumerate(BACKUPS_AT_S):
                time.sleep(max(0.0, start + at - time.monotonic()))
                path, started = tmp_path / f"backup-{number}.db", time.monotonic()
                done = studyhall(["backup", str(path)], db_url)
                backups.append((path, started, time.monotonic()))
                assert done.returncode == 0, said(done)
                assert "SQLite's integrity check says ok" in said(done)
                assert path.stat().st_size > 2 * STEP_PAGES * 4096  # copied in several steps
            time.sleep(max(0.0, start + ANSWERING_S - time.monotonic()))
        finally:
            stop.set()
            for learner in learners:
                learner.join(timeout=60)
    assert [failure for learner in learners for failure in learner.failures] == []
    assert "Traceback" not in (tmp_path / "server.log").read_text()
    acknowledged = [answer for learner in learners for answer in learner.acknowledged]
    sent = [when for learner in learners for when in learner.sent]
    for path, started, finished in backups:
        before = Counter(question for question, when in acknowledged if when < started)
        assert sum(before.values()) > 100, "the learners should have been answering by then"
        assert any(started < when < finished for _, when in acknowledged), "writes went on"
        restored = tmp_path / f"restored-{path.stem}.db"
        done = studyhall(["restore", str(path)], sqlite_url(restored))
        assert done.returncode == 0, said(done)
        assert integrity(restored) == "ok"
        kept = answers_per_question(restored, "ann")
        assert {q: (n, kept[q]) for q, n in before.items() if kept[q] < n} == {}
        # one snapshot: nothing sent after the copy ended can be in it
        assert sum(kept.values()) <= sum(when < finished for when in sent)


WRITER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("CREATE TABLE IF NOT EXISTS busy (n INTEGER)")
while True:
    conn.execute("INSERT INTO busy VALUES (1)")
"""


@sqlite_only
def test_a_backup_ends_while_another_process_commits_without_pause(seeded, db_url, tmp_path):
    give_history(seeded, "bea", HISTORY)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, make_url(db_url).database or ""])
    try:
        done = studyhall(["backup", str(tmp_path / "copy.db")], db_url, timeout=120)
    finally:
        writer.kill()
        writer.wait()
    assert done.returncode == 0, said(done)
    assert answers_per_question(tmp_path / "copy.db", "bea").total() == HISTORY


# --- restoring into a running server's database -------------------------------------------


@sqlite_only
def test_restore_into_a_running_servers_database_is_refused_unless_forced(
    seeded, make_user, db_url, tmp_path
):
    make_user("ann")
    backup = tmp_path / "ann.db"
    assert studyhall(["backup", str(backup)], db_url).returncode == 0
    make_user("bob")  # after the backup: a forced restore takes him away
    before = snapshot(seeded)
    with serving(server_env(db_url), tmp_path / "server.log") as url:
        refused = studyhall(["restore", str(backup)], db_url)
        assert refused.returncode == 1
        assert f"{make_url(db_url).database} is in use by a running server" in said(refused)
        assert "stop the server first, or restore with --force" in said(refused)
        assert usernames(seeded) == ["ann", "bob"] and snapshot(seeded) == before
        forced = studyhall(["restore", "--force", str(backup)], db_url)
        assert forced.returncode == 0, said(forced)
        assert "a server had the database open: restart it" in said(forced)
        assert httpx.get(f"{url}/healthz").status_code == 200
    assert usernames(seeded) == ["ann"]
    assert integrity(Path(make_url(db_url).database or "")) == "ok"


@sqlite_only
def test_serve_refuses_a_database_a_restore_holds(db_url, tmp_path):
    database = Path(make_url(db_url).database or "")
    with database.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a restore does while it copies
        port = str(free_port())
        done = studyhall(["serve", "--port", port], db_url)
    assert done.returncode == 2
    assert f"{database} is being restored" in said(done)


# --- refusals, in process -----------------------------------------------------------------


@pytest.fixture
def run(cli_env, tmp_path, monkeypatch):
    """Run `studyhall ...` in this test's folder against its database; return the result."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, list(args))


@pytest.fixture
def cli_db(cli_env) -> Iterator[Database]:
    database = Database(cli_env.database_url)
    yield database
    database.dispose()


def output(result: Result) -> str:
    """Everything an in-process command printed, with colours and line wrapping undone."""
    return " ".join(click.unstyle(result.output).split())


@pytest.fixture
def target(cli_env, seeded, make_user) -> Path:
    """The configured database, with content and a learner in it."""
    make_user("ann")
    return Path(make_url(cli_env.database_url).database or "")


@pytest.fixture
def good_backup(run, target) -> Path:
    result = run("backup", "good.db")
    assert result.exit_code == 0, result.output
    return Path("good.db").resolve()


def _truncated(good: Path) -> Path:
    data = good.read_bytes()
    Path("truncated.db").write_bytes(data[: len(data) // 2])
    return Path("truncated.db")


def _scribbled(good: Path) -> Path:
    data = bytearray(good.read_bytes())
    data[4096 * 2 : 4096 * 6] = b"\xa5" * (4096 * 4)  # pages 3 to 6: tables and indexes
    Path("scribbled.db").write_bytes(bytes(data))
    return Path("scribbled.db")


def _foreign(_good: Path) -> Path:
    sql(Path("foreign.db"), "CREATE TABLE recipe (name TEXT)")
    return Path("foreign.db")


def _newer(good: Path) -> Path:
    Path("newer.db").write_bytes(good.read_bytes())
    sql(Path("newer.db"), "UPDATE alembic_version SET version_num = '9999'")
    return Path("newer.db")


def _text(_good: Path) -> Path:
    Path("notes.txt").write_text("SQLite format 3 is what this is not.\n" * 200)
    return Path("notes.txt")


def _missing(_good: Path) -> Path:
    return Path("missing.db")


@sqlite_only
@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (_missing, "missing.db: no such file"),
        (_text, "notes.txt is not a SQLite database"),
        (_truncated, "truncated.db is damaged"),
        (_scribbled, "scribbled.db is damaged"),
        (_foreign, "foreign.db holds no Studyhall schema (it has no alembic_version table)"),
        (_newer, "newer.db was made by a newer Studyhall (schema revision 9999; this one knows"),
    ],
)
def test_restore_refuses_a_bad_file_and_leaves_the_database_untouched(
    run, good_backup, target, make, reason
):
    bad = make(good_backup)
    before = fingerprint(target)
    result = run("restore", str(bad))
    assert result.exit_code == 1
    assert f"refused {reason}" in output(result)
    assert fingerprint(target) == before


@sqlite_only
def test_restore_brings_back_a_backup_and_migrates_an_older_one(run, target, cli_db, tmp_path):
    old = tmp_path / "old.db"
    upgrade(sqlite_url(old), "0005")
    sql(
        old,
        "INSERT INTO user_account (id, username, password_hash, role, created_at) "
        "VALUES (7, 'olga', 'x', 'learner', '2026-01-01 00:00:00+00:00')",
    )
    result = run("restore", str(old))
    assert result.exit_code == 0, result.output
    assert (
        f"Restored {old} into {target}: upgraded its schema from revision 0005 to "
        f"{head_revision()}." in output(result)
    )
    assert usernames(cli_db) == ["olga"]
    assert integrity(target) == "ok"


@sqlite_only
def test_backup_refuses_to_overwrite_without_force(run, target):
    Path("taken.db").write_text("keep me")
    refused = run("backup", "taken.db")
    assert refused.exit_code == 1
    assert "refused taken.db already exists; choose another name, or --force" in output(refused)
    assert Path("taken.db").read_text() == "keep me"
    forced = run("backup", "--force", "taken.db")
    assert forced.exit_code == 0, forced.output
    assert integrity(Path("taken.db")) == "ok"
    assert [p.name for p in Path().iterdir() if p.name.startswith(".taken.db")] == []


@sqlite_only
@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("nowhere/backup.db", "nowhere/backup.db: the folder nowhere does not exist"),
        (".", ". is a folder; name the backup file to write"),
    ],
)
def test_backup_refuses_a_path_it_cannot_write(run, target, path, reason):
    result = run("backup", path)
    assert result.exit_code == 1
    assert f"refused {reason}" in output(result)
    assert not Path("nowhere").exists()


@sqlite_only
def test_backup_refuses_a_database_that_is_missing_or_not_migrated(run, tmp_path, monkeypatch):
    from app.config import get_settings

    for name, reason in [
        ("missing.db", "does not exist: is STUDYHALL_DATABASE_URL right"),
        ("empty.db", "is not migrated: run `studyhall migrate`"),
    ]:
        database = tmp_path / name
        if name == "empty.db":
            sqlite3.connect(database).close()
        monkeypatch.setenv("STUDYHALL_DATABASE_URL", sqlite_url(database))
        get_settings.cache_clear()
        result = run("backup", "copy.db")
        assert result.exit_code == 1
        assert f"{database} {reason}" in output(result)
        assert not Path("copy.db").exists()
    assert not (tmp_path / "missing.db").exists()


# --- PostgreSQL ---------------------------------------------------------------------------


def test_backup_without_pg_dump_says_the_command_to_run(tmp_path):
    url = "postgresql+psycopg://ann:s3cret@db.example:5433/studyhall"
    done = studyhall(["backup", str(tmp_path / "dump")], url, PATH=str(tmp_path))
    assert done.returncode == 2
    assert (
        f"pg_dump --format=custom --file={tmp_path / 'dump'} --host=db.example --port=5433 "
        "--username=ann --dbname=studyhall"
    ) in said(done)
    assert "PGPASSWORD" in said(done) and "s3cret" not in said(done)


@pytest.fixture
def new_database() -> Iterator[Callable[[], str]]:
    """Make fresh, empty PostgreSQL databases on demand; drop them afterwards."""
    assert PG_URL
    admin = create_engine(_admin_url(PG_URL), isolation_level="AUTOCOMMIT")
    names: list[str] = []

    def new() -> str:
        names.append(f"studyhall_backup_{uuid.uuid4().hex[:12]}")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{names[-1]}"'))
        return make_url(PG_URL).set(database=names[-1]).render_as_string(hide_password=False)

    yield new
    with admin.connect() as conn:
        for name in names:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@postgres_only
def test_postgres_backup_and_restore_keep_the_data(new_database, tmp_path):
    source, fresh = new_database(), new_database()
    upgrade(source)
    db = Database(source)
    try:
        load_seed(db)
        with db.session_scope(write=True) as session:
            create_user(session, "ann", PASSWORD, "learner")
        saved = snapshot(db), usernames(db)
    finally:
        db.dispose()
    dump = tmp_path / "studyhall.dump"
    done = studyhall(["backup", str(dump)], source)
    assert done.returncode == 0, said(done)
    assert "pg_restore reads its table of contents" in said(done)
    assert "users 1" in said(done) and "questions 7" in said(done)
    restored = studyhall(["restore", str(dump)], fresh)
    assert restored.returncode == 0, said(restored)
    assert f"its schema is at the newest revision, {head_revision()}" in said(restored)
    db = Database(fresh)
    try:
        assert (snapshot(db), usernames(db)) == saved
    finally:
        db.dispose()


@postgres_only
def test_postgres_restore_refuses_a_database_in_use_unless_forced(new_database, tmp_path):
    source, busy = new_database(), new_database()
    upgrade(source)
    upgrade(busy)
    dump = tmp_path / "studyhall.dump"
    assert studyhall(["backup", str(dump)], source).returncode == 0
    engine = create_engine(busy)
    try:
        with engine.connect() as session:  # another client of that database
            session.execute(text("SELECT 1"))
            refused = studyhall(["restore", str(dump)], busy)
            assert refused.returncode == 1
            assert "is in use: 1 other session(s) are connected" in said(refused)
            forced = studyhall(["restore", "--force", str(dump)], busy)
            assert forced.returncode == 0, said(forced)
    finally:
        engine.dispose()


@postgres_only
def test_postgres_restore_migrates_an_older_backup_but_not_over_a_newer_schema(
    new_database, tmp_path
):
    old, newer, fresh = new_database(), new_database(), new_database()
    upgrade(old, "0005")
    upgrade(newer)
    dump = tmp_path / "old.dump"
    assert studyhall(["backup", str(dump)], old).returncode == 0
    refused = studyhall(["restore", str(dump)], newer)
    assert refused.returncode == 1
    assert "has tables the backup lacks (exam_attempt, " in said(refused)
    assert current_revision(newer) == head_revision()
    restored = studyhall(["restore", str(dump)], fresh)
    assert restored.returncode == 0, said(restored)
    assert f"upgraded its schema from revision 0005 to {head_revision()}" in said(restored)
    assert current_revision(fresh) == head_revision()


@postgres_only
def test_postgres_restore_refuses_a_file_that_is_no_archive(new_database, tmp_path):
    database = new_database()
    upgrade(database)
    notes = tmp_path / "notes.txt"
    notes.write_text("not a dump\n")
    done = studyhall(["restore", str(notes)], database)
    assert done.returncode == 1
    assert f"refused {notes} is not a pg_dump archive in custom format" in said(done)
