"""Small builders for exam tests: start an attempt, read it back, answer it."""

import random
from datetime import datetime
from typing import Any

from sqlalchemy import select

from app.db import Database
from app.exams import answers, service
from app.exams.models import Attempt, AttemptItem
from tests.exams.conftest import EXAM, GRACE, START


def start(db: Database, user_id: int, now: datetime = START, slug: str = EXAM) -> int:
    with db.session_scope(write=True) as session:
        drawn = service.blueprint_paper(session, slug, random.Random(7))
        return service.sit(session, user_id, drawn, now, GRACE).attempt_id


def attempt(db: Database, attempt_id: int) -> Attempt:
    with db.session_scope() as session:
        return session.get_one(Attempt, attempt_id)


def items(db: Database, attempt_id: int) -> list[AttemptItem]:
    with db.session_scope() as session:
        return list(
            session.scalars(
                select(AttemptItem)
                .where(AttemptItem.attempt_id == attempt_id)
                .order_by(AttemptItem.position)
            )
        )


def right_and_wrong(item: AttemptItem) -> tuple[int, int]:
    """Return a right and a wrong choice id of an item's snapshot."""
    snapshot: dict[str, Any] = item.snapshot
    right = snapshot["correct_ids"][0]
    wrong = next(c["id"] for c in snapshot["choices"] if c["id"] not in snapshot["correct_ids"])
    return right, wrong


def answer(
    db: Database, attempt_id: int, user_id: int, position: int, ids: list[int], now: datetime
) -> None:
    with db.session_scope(write=True) as session:
        answers.save_answer(session, attempt_id, user_id, position, ids, now, GRACE)


def start_page(client, slug: str = EXAM) -> int:  # type: ignore[no-untyped-def]
    """Start (or resume) an exam as a browser does; return the attempt's id."""
    response = client.post(f"/exams/{slug}/start", follow_redirects=False)
    assert response.status_code == 303
    return int(response.headers["location"].rsplit("/", 1)[1])


def save_page(client, attempt_id: int, position: int, **data: str) -> None:  # type: ignore[no-untyped-def]
    """Save a question's page as its form does (without script)."""
    response = client.post(f"/attempts/{attempt_id}/questions/{position}", data=data)
    assert response.status_code == 200
