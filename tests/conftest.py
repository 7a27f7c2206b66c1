"""Shared fixtures: a fresh database per test (SQLite file, or PostgreSQL when
STUDYHALL_TEST_DATABASE_URL is set), the app, a client and seeded content."""

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher, Type
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.accounts import passwords
from app.config import Settings, get_settings
from app.db import Database
from app.main import create_app
from app.migrate import head_revision, upgrade
from app.models import Base
from tests.factories import PASSWORD, SEED_DIR, load_seed, log_in

PG_URL = os.environ.get("STUDYHALL_TEST_DATABASE_URL")
# Argon2 at OWASP's parameters takes ~20 ms a hash; tests hash with the cheapest ones instead.
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1, type=Type.ID)
CHEAP_DUMMY_HASH = CHEAP_HASHER.hash("not a real password, only spends time")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_argon2: hash passwords with the real parameters")


@pytest.fixture(autouse=True)
def _cheap_argon2(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hash with cheap Argon2 parameters, except in tests marked `real_argon2`."""
    if request.node.get_closest_marker("real_argon2") is None:
        monkeypatch.setattr(passwords, "HASHER", CHEAP_HASHER)
        monkeypatch.setattr(passwords, "_DUMMY_HASH", CHEAP_DUMMY_HASH)


def _admin_url(url: str) -> str:
    return make_url(url).set(database="postgres").render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def _migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Migrate one database for the run; each test starts from a copy or a truncation of it."""
    if PG_URL:
        name = f"studyhall_test_{uuid.uuid4().hex[:12]}"
        admin = create_engine(_admin_url(PG_URL), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
        upgrade(url)
        yield url
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
    else:
        path = tmp_path_factory.mktemp("template") / "template.db"
        upgrade(f"sqlite:///{path}")
        yield str(path)


@pytest.fixture
def empty_url(tmp_path: Path) -> Iterator[str]:
    """A database with no tables at all."""
    if not PG_URL:
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    name = f"studyhall_mig_{uuid.uuid4().hex[:12]}"
    admin = create_engine(_admin_url(PG_URL), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def db_url(_migrated_template: str, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database of this test's own."""
    if PG_URL:
        engine = create_engine(_migrated_template)
        tables = ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)
        with engine.begin() as conn:
            conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
            # the row the migration made, as on a freshly migrated database
            conn.execute(text("INSERT INTO content_version (id, version) VALUES (1, 0)"))
        engine.dispose()
        yield _migrated_template
    else:
        path = tmp_path / "studyhall.db"
        shutil.copyfile(_migrated_template, path)
        yield f"sqlite:///{path}"


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=db_url, content_cache_seconds=0, seed_dir=SEED_DIR)


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = Database(settings.database_url)
    yield database
    database.dispose()


@pytest.fixture
def app(settings: Settings):  # type: ignore[no-untyped-def]
    return create_app(settings)


@pytest.fixture
def client(app) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def seeded(db: Database) -> Database:
    """The database with the seed content loaded."""
    load_seed(db)
    return db


@pytest.fixture
def cli_env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Point the `studyhall` command at this test's database."""
    monkeypatch.setenv("STUDYHALL_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("STUDYHALL_SEED_DIR", str(SEED_DIR))
    get_settings.cache_clear()
    yield settings
    get_settings.cache_clear()


@pytest.fixture
def stamp_revision(db: Database) -> Iterator[Callable[[str], None]]:
    """Mark this test's database as being at another schema revision, for this test only
    (on PostgreSQL the tests share one database)."""

    def stamp(revision: str) -> None:
        with db.session_scope(write=True) as session:
            session.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": revision})

    yield stamp
    stamp(head_revision())


@pytest.fixture
def make_user(db: Database):  # type: ignore[no-untyped-def]
    """Create a user directly in the database: make_user("ann", role="author")."""
    from app.accounts.service import create_user

    def make(username: str, password: str = PASSWORD, role: str = "learner"):  # type: ignore[no-untyped-def]
        with db.session_scope(write=True) as session:
            return create_user(session, username, password, role)

    return make


@pytest.fixture
def user_client(app, make_user):  # type: ignore[no-untyped-def]
    """A separate logged-in client per call: user_client("ann", role="admin")."""
    clients: list[TestClient] = []

    def make(username: str, role: str = "learner") -> TestClient:
        make_user(username, role=role)
        client = TestClient(app)
        clients.append(client)
        log_in(client, username)
        return client

    yield make
    for client in clients:
        client.close()
