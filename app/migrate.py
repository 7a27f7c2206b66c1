"""Alembic, configured from the application's settings (no alembic.ini needed)."""

from alembic import command
from alembic.config import Config

from app.config import PROJECT_ROOT


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
