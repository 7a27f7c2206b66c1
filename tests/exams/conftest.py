"""Fixtures for exams: a seeded database, a learner, and a fixed clock."""

from datetime import UTC, datetime, timedelta

import pytest

from app.db import Database

START = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
GRACE = timedelta(seconds=30)
EXAM = "tensorrt-practice-exam"


@pytest.fixture
def learner(seeded: Database, make_user) -> int:  # type: ignore[no-untyped-def]
    """The id of a learner, in a database holding the seed content."""
    return make_user("ann").id
