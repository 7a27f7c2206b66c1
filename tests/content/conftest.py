from collections.abc import Iterator
from pathlib import Path

import pytest

from app.db import Database
from app.migrate import upgrade


@pytest.fixture
def other_db(tmp_path: Path) -> Iterator[Database]:
    """A second, empty SQLite database, migrated."""
    url = f"sqlite:///{tmp_path / 'other.db'}"
    upgrade(url)
    database = Database(url)
    yield database
    database.dispose()
