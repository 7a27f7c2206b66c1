"""Alembic environment: runs migrations against the URL the application configured."""

from alembic import context

from app.db import UTCDateTime, make_engine
from app.items.queries import SQLITE_INDEXES
from app.models import Base
from app.search.models import is_index_table

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is not None:
        _run(connectable)
        return
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None
    engine = make_engine(url)
    with engine.connect() as connection:
        _run(connection)
    engine.dispose()


def _render_item(type_: str, obj: object, autogen_context: object) -> str | bool:
    """Write the app's UTCDateTime as a plain timezone-aware DateTime in migrations."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _include_name(name: str | None, type_: str, parent_names: object) -> bool:
    """Leave to their migrations what models do not describe: the search index (FTS5 tables
    and triggers) and the indexes only SQLite has."""
    if type_ == "index":
        return name not in SQLITE_INDEXES
    return not (type_ == "table" and name is not None and is_index_table(name))


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_item=_render_item,
        include_name=_include_name,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
