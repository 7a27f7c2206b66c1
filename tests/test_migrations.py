"""Migrations: one linear chain that builds the schema the models describe, and undoes it."""

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

from app.migrate import alembic_config, upgrade
from app.models import Base
from tests.conftest import PG_URL, _admin_url


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


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_chain_is_linear_with_dated_file_names():
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert len(script.get_heads()) == 1
    for revision in script.walk_revisions():
        assert not revision.is_merge_point
        assert Path(revision.path).name[:8].isdigit(), revision.path


def test_upgrade_builds_every_table_and_downgrade_removes_them(empty_url):
    upgrade(empty_url)
    assert _tables(empty_url) == set(Base.metadata.tables)
    command.downgrade(alembic_config(empty_url), "base")
    assert _tables(empty_url) == set()
    upgrade(empty_url)
    assert _tables(empty_url) == set(Base.metadata.tables)


def test_models_and_migrations_do_not_drift(empty_url):
    upgrade(empty_url)
    command.check(alembic_config(empty_url))  # raises when autogenerate would find changes


def test_tokens_made_before_expiry_existed_expire_90_days_after_creation(empty_url):
    upgrade(empty_url, "0003")
    engine = create_engine(empty_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO user_account (id, username, password_hash, role, created_at) "
                    "VALUES (1, 'ann', 'x', 'learner', '2026-01-01 00:00:00+00:00')"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO api_token (id, user_id, name, token_hash, hint, created_at) "
                    "VALUES (1, 1, 'old', 'h', 'abcd', '2026-01-01 00:00:00+00:00')"
                )
            )
        upgrade(empty_url)
        with engine.connect() as conn:
            expires = conn.execute(text("SELECT expires_at FROM api_token")).scalar_one()
        assert str(expires).startswith("2026-04-01")
    finally:
        engine.dispose()
