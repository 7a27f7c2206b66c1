"""Backups of the database and their restore: SQLite's online backup API, or PostgreSQL's
pg_dump and pg_restore. A refused backup or restore changes nothing."""

import fcntl
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import NullPool

from app.migrate import alembic_config, current_revision, head_revision, upgrade

SQLITE_HEADER = b"SQLite format 3\x00"
PG_DUMP_HEADER = b"PGDMP"
STEP_PAGES = 1024  # pages copied per step: 4 MB at SQLite's default page size
BUSY_TIMEOUT_S = 30.0  # how long a forced restore waits for a live server's write to end
MAIN_TABLES = {
    "users": "user_account",
    "answers": "practice_answer",
    "exam attempts": "exam_attempt",
    "questions": "question",
    "notes": "note",
    "review cards": "review_card",
}
PG_QUERY_ENVIRONMENT = {
    "host": "PGHOST",
    "sslmode": "PGSSLMODE",
    "sslrootcert": "PGSSLROOTCERT",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
}
# one transaction: a restore that fails half-way leaves the database as it was
PG_RESTORE_OPTIONS = ["--clean", "--if-exists", "--no-owner", "--single-transaction"]
OTHER_SESSIONS = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
    "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
)

Progress = Callable[[int, int], None]  # (pages copied, pages in all)


class Refused(Exception):
    """A backup, restore or serve that was not done, with the exit status to give."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Saved:
    """What a backup wrote: its size, its schema revision, how it was checked, its main rows."""

    size: int
    revision: str
    checked: str
    counts: dict[str, int]


@dataclass(frozen=True)
class Restored:
    """What a restore did, and whether a server had the database open meanwhile."""

    database: str
    from_revision: str
    to_revision: str
    counts: dict[str, int]
    in_use: bool


def backup(database_url: str, path: Path, force: bool, progress: Progress) -> Saved:
    """Write a checked copy of the database to path, consistent while the server writes."""
    if not path.parent.is_dir():
        raise Refused(f"{path}: the folder {path.parent} does not exist")
    if path.is_dir():
        raise Refused(f"{path} is a folder; name the backup file to write")
    if path.exists() and not force:
        raise Refused(f"{path} already exists; choose another name, or --force to overwrite it")
    url = make_url(database_url)
    if url.get_backend_name() == "postgresql":
        return _pg_backup(url, path)
    return _sqlite_backup(_sqlite_file(url), path, progress)


def restore(database_url: str, path: Path, force: bool, progress: Progress) -> Restored:
    """Check a backup, copy it into the database and migrate it to the newest revision."""
    if not path.is_file():
        raise Refused(f"{path}: no such file")
    url = make_url(database_url)
    if url.get_backend_name() == "postgresql":
        return _pg_restore(database_url, path, force)
    return _sqlite_restore(database_url, path, force, progress)


@contextmanager
def serving_lock(database_url: str) -> Iterator[None]:
    """Hold a shared lock on the SQLite database file while serving, for restores to see."""
    path = _sqlite_path(make_url(database_url))
    if path is None:  # PostgreSQL, or SQLite in memory
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with _flock(path, fcntl.LOCK_SH) as held:
        if not held:
            raise Refused(
                f"{path} is being restored (`studyhall restore` holds it); "
                "serve it when the restore has finished",
                code=2,
            )
        yield


# --- SQLite -------------------------------------------------------------------------------


def _sqlite_path(url: URL) -> Path | None:
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def _sqlite_file(url: URL) -> Path:
    path = _sqlite_path(url)
    if path is None:
        what = "in memory" if url.get_backend_name() == "sqlite" else url.get_backend_name()
        raise Refused(f"backups are made of SQLite files and PostgreSQL, not of {what}")
    return path


def _sqlite_backup(database: Path, path: Path, progress: Progress) -> Saved:
    """Copy one snapshot of the database beside path, check it, then move it into place."""
    if not database.is_file():
        raise Refused(
            f"the database {database} does not exist: is STUDYHALL_DATABASE_URL right, "
            "and has `studyhall migrate` been run?"
        )
    if path.exists() and path.resolve() == database.resolve():
        raise Refused(f"{path} is the database itself; write the backup elsewhere")
    with _read_only(database) as source:
        revision = _readable_revision(source, database)
        if revision is None:
            raise Refused(f"the database {database} is not migrated: run `studyhall migrate`")
        with _temporary_beside(path) as temporary:
            _copy(source, temporary, progress)
            counts = _settle(temporary)
            os.replace(temporary, path)
    _sync_folder(path.parent)
    return Saved(path.stat().st_size, revision, "SQLite's integrity check says ok", counts)


def _sqlite_restore(database_url: str, path: Path, force: bool, progress: Progress) -> Restored:
    """Copy a checked backup into the database file, which keeps its place, then migrate."""
    target = _sqlite_file(make_url(database_url))
    with _open_backup(path) as source:
        revision = _check_backup(source, path)
        if target.exists() and target.resolve() == path.resolve():
            raise Refused(f"{path} is the database itself; there is nothing to restore")
        counts = _row_counts(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        with _restore_lock(target, force) as in_use:
            _copy(source, target, progress)
            return _migrated(database_url, str(target), revision, counts, in_use)


def _read_only(path: Path, immutable: bool = False) -> closing[sqlite3.Connection]:
    options = "mode=ro&immutable=1" if immutable else "mode=ro"
    uri = f"file:{quote(str(path.resolve()))}?{options}"
    return closing(sqlite3.connect(uri, uri=True, isolation_level=None))


def _readable_revision(conn: sqlite3.Connection, path: Path) -> str | None:
    """The schema revision of a SQLite database, None without a schema; refused if unreadable."""
    try:
        names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        if "alembic_version" not in names:
            return None
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError as exc:
        raise Refused(f"{path} cannot be read: {exc}") from None
    return row[0] if row else None


@contextmanager
def _temporary_beside(path: Path) -> Iterator[Path]:
    """A new empty file in path's folder, removed at the end unless it was moved away."""
    descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(descriptor)
    try:
        yield Path(name)
    finally:
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(name + suffix).unlink(missing_ok=True)


def _copy(source: sqlite3.Connection, target: Path, progress: Progress) -> None:
    """Copy one snapshot of source into target through SQLite's backup API, in steps."""
    # A copy in steps starts over whenever another connection commits to the source, so
    # under a steady stream of answers it would never end. A read transaction held across
    # the steps pins one snapshot instead; in WAL mode writers go on meanwhile.
    source.execute("BEGIN")
    source.execute("SELECT count(*) FROM sqlite_master").fetchone()
    try:
        with closing(sqlite3.connect(target, timeout=BUSY_TIMEOUT_S)) as destination:
            source.backup(
                destination,
                pages=STEP_PAGES,
                progress=lambda _status, left, total: progress(total - left, total),
            )
    except sqlite3.Error as exc:  # the copy's transaction is rolled back: target unchanged
        raise Refused(f"{target} could not be written: {exc}") from None
    finally:
        source.execute("ROLLBACK")


def _settle(path: Path) -> dict[str, int]:
    """Make a fresh copy one self-contained file, check it, and count its main rows."""
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")  # the copy came in WAL mode, as the original
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check(5)")]
        if problems != ["ok"]:
            raise Refused(f"the copy failed its integrity check: {'; '.join(problems)}")
        return _row_counts(conn)


def _row_counts(conn: sqlite3.Connection) -> dict[str, int]:
    names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    return {
        label: conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
        for label, table in MAIN_TABLES.items()
        if table in names
    }


def _sync_folder(folder: Path) -> None:
    """Make a rename in folder durable."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextmanager
def _open_backup(path: Path) -> Iterator[sqlite3.Connection]:
    """Open a backup read-only; refused when it is not a SQLite database."""
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise Refused(f"{path} cannot be read: {exc.strerror}") from None
    if header.startswith(PG_DUMP_HEADER):
        raise Refused(f"{path} is a pg_dump archive; restore it into a PostgreSQL database")
    if header != SQLITE_HEADER:
        raise Refused(f"{path} is not a SQLite database")
    # With nothing beside it, a backup is read as immutable: that leaves no -wal or -shm file
    # next to it and works on a read-only mount. A log or journal beside it is part of it.
    alone = not any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-journal"))
    with _read_only(path, immutable=alone) as conn:
        yield conn


def _check_backup(conn: sqlite3.Connection, path: Path) -> str:
    """Return the schema revision of a backup; refused when damaged, foreign or too new."""
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check(5)")]
    except sqlite3.DatabaseError as exc:
        raise Refused(f"{path} is damaged: {exc}") from None
    if problems != ["ok"]:
        raise Refused(f"{path} is damaged: integrity_check says {'; '.join(problems)}")
    revision = _readable_revision(conn, path)
    if revision is None:
        raise Refused(f"{path} holds no Studyhall schema (it has no alembic_version table)")
    _check_known(revision, path)
    return revision


def _check_known(revision: str, path: Path) -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    if revision not in {known.revision for known in script.walk_revisions()}:
        raise Refused(
            f"{path} was made by a newer Studyhall (schema revision {revision}; this one "
            f"knows revisions up to {head_revision()}): upgrade Studyhall first"
        )


@contextmanager
def _restore_lock(target: Path, force: bool) -> Iterator[bool]:
    """Hold the database file exclusively; yield whether a server had it (forced only)."""
    with _flock(target, fcntl.LOCK_EX) as held:
        if not held and not force:
            raise Refused(
                f"{target} is in use by a running server: stop the server first, "
                "or restore with --force"
            )
        yield not held


@contextmanager
def _flock(path: Path, operation: int) -> Iterator[bool]:
    """Try an flock on a file (made empty if missing) without waiting; yield whether it held."""
    # flock locks are apart from the POSIX locks SQLite takes, so they never stop its readers
    # or writers. Closing any descriptor of a file drops the process's POSIX locks on it,
    # though: the block must close this process's SQLite connections to the file before.
    descriptor = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(descriptor, operation | fcntl.LOCK_NB)
        except BlockingIOError:
            held = False
        else:
            held = True
        yield held
    finally:
        os.close(descriptor)


def _migrated(
    database_url: str, database: str, revision: str, counts: dict[str, int], in_use: bool
) -> Restored:
    upgrade(database_url)
    newest = current_revision(database_url) or revision
    return Restored(database, revision, newest, counts, in_use)


# --- PostgreSQL ---------------------------------------------------------------------------


def _pg_backup(url: URL, path: Path) -> Saved:
    """Dump the database with pg_dump from one snapshot, check the dump, move it into place."""
    shown = _pg_dump_command("pg_dump", url, path)
    dump, check = _pg_tool("pg_dump", url, shown), _pg_tool("pg_restore", url, shown)
    with _pg_snapshot(url) as (snapshot, revision, counts), _temporary_beside(path) as temporary:
        _pg_run([*_pg_dump_command(dump, url, temporary), f"--snapshot={snapshot}"], url)
        listing = _pg_run([check, "--list", str(temporary)], url)
        if "alembic_version" not in _archive_tables(listing):
            raise Refused("the dump lists no alembic_version table; it was not kept")
        os.replace(temporary, path)
    _sync_folder(path.parent)
    return Saved(path.stat().st_size, revision, "pg_restore reads its table of contents", counts)


def _pg_dump_command(tool: str, url: URL, path: Path) -> list[str]:
    return [tool, "--format=custom", f"--file={path}", *_pg_options(url)]


def _pg_restore(database_url: str, path: Path, force: bool) -> Restored:
    """Check an archive, restore it in one transaction with pg_restore, then migrate."""
    url = make_url(database_url)
    shown = ["pg_restore", *PG_RESTORE_OPTIONS, *_pg_options(url), str(path)]
    restore_tool = _pg_tool("pg_restore", url, shown)
    listing = subprocess.run([restore_tool, "--list", str(path)], capture_output=True, text=True)
    if listing.returncode != 0:
        raise Refused(f"{path} is not a pg_dump archive in custom format")
    tables = _archive_tables(listing.stdout)
    if "alembic_version" not in tables:
        raise Refused(f"{path} holds no Studyhall schema (it has no alembic_version table)")
    revision = _archive_revision(restore_tool, path, url)
    _check_known(revision, path)
    in_use = _pg_check_target(url, tables, force)
    _pg_run([restore_tool, *shown[1:]], url)
    with _pg_connection(url) as conn:
        counts = _pg_row_counts(conn)
    return _migrated(database_url, str(url.database), revision, counts, in_use)


def _pg_options(url: URL) -> list[str]:
    """pg_dump's and pg_restore's connection options; the password goes in the environment."""
    options = {"host": url.host, "port": url.port, "username": url.username, "dbname": url.database}
    return [f"--{name}={value}" for name, value in options.items() if value is not None]


def _pg_environment(url: URL) -> dict[str, str]:
    environment = dict(os.environ)
    if url.password is not None:
        environment["PGPASSWORD"] = str(url.password)
    for key, name in PG_QUERY_ENVIRONMENT.items():
        value = url.query.get(key)
        if isinstance(value, str):
            environment[name] = value
    return environment


def _pg_tool(name: str, url: URL, shown: list[str]) -> str:
    """The path of a PostgreSQL client tool; refused with the command to run when missing."""
    found = shutil.which(name)
    if found is None:
        password = " with the password in PGPASSWORD," if url.password is not None else ""
        raise Refused(
            f"{name} is not on PATH. Install PostgreSQL's client tools (of the server's version "
            f"or newer), or run this command yourself,{password} where they are:\n"
            f"  {shlex.join(shown)}",
            code=2,
        )
    return found


def _pg_run(command: list[str], url: URL) -> str:
    """Run a PostgreSQL client tool and return what it wrote; refused when it fails."""
    done = subprocess.run(command, env=_pg_environment(url), capture_output=True, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        raise Refused(f"{Path(command[0]).name} failed: {lines[-1]}")
    return done.stdout


def _archive_tables(listing: str) -> set[str]:
    """The tables of the public schema in pg_restore's listing of an archive."""
    return set(re.findall(r"^\d+; \d+ \d+ TABLE public (\S+) ", listing, re.MULTILINE))


def _archive_revision(restore_tool: str, path: Path, url: URL) -> str:
    data = _pg_run(
        [restore_tool, "--data-only", "--table=alembic_version", "--file=-", str(path)], url
    )
    found = re.search(r"^COPY \S*alembic_version .*\n(\S+)\n", data, re.MULTILINE)
    if found is None:
        raise Refused(f"{path} holds no schema revision (alembic_version is empty)")
    return found.group(1)


@contextmanager
def _pg_connection(url: URL) -> Iterator[Connection]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            yield conn
    finally:
        engine.dispose()


@contextmanager
def _pg_snapshot(url: URL) -> Iterator[tuple[str, str, dict[str, int]]]:
    """Hold a repeatable-read transaction; yield its exported snapshot, revision and rows."""
    with _pg_connection(url) as conn:
        conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            snapshot = str(conn.scalar(text("SELECT pg_export_snapshot()")))
            if conn.scalar(text("SELECT to_regclass('alembic_version')")) is None:
                raise Refused(
                    f"the database {url.database} is not migrated: run `studyhall migrate`"
                )
            revision = str(conn.scalar(text("SELECT version_num FROM alembic_version")))
            yield snapshot, revision, _pg_row_counts(conn)


def _pg_row_counts(conn: Connection) -> dict[str, int]:
    names = set(inspect(conn).get_table_names())
    return {
        label: int(conn.scalar(text(f'SELECT count(*) FROM "{table}"')) or 0)
        for label, table in MAIN_TABLES.items()
        if table in names
    }


def _pg_check_target(url: URL, tables: set[str], force: bool) -> bool:
    """Refuse a database newer than the archive, or one in use unless forced; tell if in use."""
    with _pg_connection(url) as conn:
        others = int(conn.scalar(text(OTHER_SESSIONS)) or 0)
        extra = sorted(set(inspect(conn).get_table_names()) - tables)
    if extra:
        raise Refused(
            f"the database {url.database} has tables the backup lacks ({', '.join(extra)}), "
            "so it is newer than the backup: restore into a new, empty database "
            "(createdb, and STUDYHALL_DATABASE_URL naming it)"
        )
    if others and not force:
        raise Refused(
            f"the database {url.database} is in use: {others} other session(s) are connected "
            "(a running server?); stop the server first, or restore with --force"
        )
    return bool(others)
