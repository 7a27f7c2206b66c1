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
