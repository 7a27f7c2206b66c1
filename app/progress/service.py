"""Record what learners do."""

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.content.views import CheckResult
from app.db import Database
from app.progress.models import PracticeAnswer


def record_practice_answer(session: Session, user_id: int, result: CheckResult) -> PracticeAnswer:
    """Keep a logged-in learner's practice answer."""
    answer = PracticeAnswer(
        user_id=user_id,
        question_id=result.question.id,
        question_revision=result.question.revision,
        selected_ids=list(result.selected_ids),
        is_correct=result.correct,
    )
    session.add(answer)
    session.flush()
    return answer


def count_answers(session: Session, user_id: int) -> int:
    """Count a learner's recorded practice answers."""
    return (
        session.scalar(
            select(func.count(PracticeAnswer.id)).where(PracticeAnswer.user_id == user_id)
        )
        or 0
    )


def save_answer(db: Database, user_id: int, result: CheckResult) -> None:
    """Record a practice answer in a transaction of its own (called from async routes)."""
    with db.session_scope(write=True) as session:
        record_practice_answer(session, user_id, result)
