"""Record what learners do. Services add and flush; the request commits."""

from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.progress.models import PracticeAnswer


def record_answer(
    session: Session,
    user_id: int,
    question_id: int,
    question_revision: int,
    selected_ids: Sequence[int],
    is_correct: bool,
) -> PracticeAnswer:
    """Keep a logged-in learner's practice answer."""
    answer = PracticeAnswer(
        user_id=user_id,
        question_id=question_id,
        question_revision=question_revision,
        selected_ids=list(selected_ids),
        is_correct=is_correct,
    )
    session.add(answer)
    session.flush()
    return answer
