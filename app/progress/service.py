"""Record what learners do. Services add and flush; the request commits."""

from collections.abc import Sequence
from typing import cast

from sqlalchemy import Table, insert
from sqlalchemy.orm import Session

from app.content.read_models import Grade
from app.content.service import grade
from app.db import utcnow
from app.progress.models import PracticeAnswer

_INSERT_ANSWER = insert(cast(Table, PracticeAnswer.__table__))


def record_answer(
    session: Session,
    user_id: int,
    question_id: int,
    question_revision: int,
    selected_ids: Sequence[int],
    is_correct: bool,
) -> None:
    """Keep a logged-in learner's practice answer.

    A plain INSERT rather than an ORM object: every answer a learner gives runs it, and
    nothing reads the row back within the request.
    """
    session.execute(
        _INSERT_ANSWER,
        {
            "user_id": user_id,
            "question_id": question_id,
            "question_revision": question_revision,
            "selected_ids": list(selected_ids),
            "is_correct": is_correct,
            "answered_at": utcnow(),
        },
    )


def check_answer(
    session: Session, user_id: int | None, question_id: int, choice_ids: Sequence[int]
) -> Grade:
    """Grade a practice answer and keep it when a learner (user_id) gave it."""
    result = grade(session, question_id, choice_ids)
    if user_id is not None:
        record_answer(
            session, user_id, question_id, result.revision, result.selected_ids, result.correct
        )
    return result
