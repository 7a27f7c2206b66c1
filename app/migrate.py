"""Alembic, configured from the application's settings (no alembic.ini needed), and what an
upgrade rebuilds from learners' answers."""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from app.config import PROJECT_ROOT
from app.db import Database, make_engine
from app.progress.rebuild import Rebuilt, cards_missing, rebuild_cards


@dataclass(frozen=True)
class SchemaState:
    """Where a database's schema stands against the code's migrations."""

    current: str | None  # None: no schema at all
    head: str
    known: bool  # False: a revision this code does not have (made by a newer release)

    @property
    def behind(self) -> bool:
        return self.known and self.current != self.head


def alembic_config(database_url: str) -> Config:
    """Build the Alembic configuration for a database URL."""
    config = Config()
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.set_main_option("file_template", "%%(year)d%%(month).2d%%(day).2d_%%(rev)s_%%(slug)s")
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> Rebuilt | None:
    """Bring the schema up to a revision (the newest by default), then rebuild what is missing.

    At the newest revision, review cards missing for answers already given are made from
    those answers (see `app.progress.rebuild`); the result says how many, or is None when
    nothing was missing.
    """
    command.upgrade(alembic_config(database_url), revision)
    if revision != "head":
        return None
    return rebuild(database_url, only_if_missing=True)


def rebuild(database_url: str, *, only_if_missing: bool = False) -> Rebuilt | None:
    """Make the review cards missing for learners' answers, in one transaction."""
    db = Database(database_url)
    try:
        with db.session_scope(write=True) as session:
            if only_if_missing and not cards_missing(session):
                return None
            return rebuild_cards(session)
    finally:
        db.dispose()


@lru_cache
def head_revision() -> str:
    """The newest revision the code's migrations know."""
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None, "no migrations"
    return head


def schema_state(database_url: str) -> SchemaState:
    """Tell where a database's schema stands: missing, behind, current or unknown."""
    current = current_revision(database_url)
    script = ScriptDirectory.from_config(alembic_config(database_url))
    known = current is None or current in {rev.revision for rev in script.walk_revisions()}
    return SchemaState(current, head_revision(), known)


def current_revision(database_url: str) -> str | None:
    """Return the schema revision a database is at, or None when it has no schema yet.

    A SQLite file that does not exist has none, and is not made by asking.
    """
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        if not Path(url.database).exists():
            return None
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()
