"""Alembic, configured from the application's settings (no alembic.ini needed)."""

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext

from app.config import PROJECT_ROOT
from app.db import make_engine


def alembic_config(database_url: str) -> Config:
    """Build the Alembic configuration for a database URL."""
    config = Config()
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.set_main_option("file_template", "%%(year)d%%(month).2d%%(day).2d_%%(rev)s_%%(slug)s")
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database schema up to a revision (the newest by default)."""
    command.upgrade(alembic_config(database_url), revision)


def current_revision(database_url: str) -> str | None:
    """Return the schema revision a database is at, or None when it has no schema yet."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()
