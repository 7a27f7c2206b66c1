"""A learner's own Anki deck: the questions they ever answered wrong or flagged.

Wrong answers come from practice and from submitted exams (an exam's answers are recorded
when it is submitted); flags from exams no longer open. A question in an exam the learner
has open is always left out, whatever else they did with it, so the deck never shows a key
during an exam. Retired questions are left out as practice leaves them out.
"""

from typing import Any

from sqlalchemy import ColumnElement, Select, or_, select
from sqlalchemy.orm import Session

from app.content.models import IN_USE, Question
from app.exams.models import Attempt, AttemptItem
from app.exporters.anki import DECK, write_apkg
from app.exporters.selection import read_questions
from app.progress.models import PracticeAnswer

DECK_NAME = f"{DECK}::My missed and flagged questions"


def _in_attempts(user_id: int, *conditions: ColumnElement[bool]) -> Select[Any]:
    """The question ids of the learner's attempt items meeting the conditions."""
    return (
        select(AttemptItem.question_id)
        .join(Attempt, AttemptItem.attempt_id == Attempt.id)
        .where(Attempt.user_id == user_id, AttemptItem.question_id.is_not(None), *conditions)
    )


def missed_and_flagged(user_id: int) -> Select[Any]:
    """The ids of the questions for the learner's deck, as a query."""
    missed = select(PracticeAnswer.question_id).where(
        PracticeAnswer.user_id == user_id, PracticeAnswer.is_correct.is_(False)
    )
    flagged = _in_attempts(user_id, AttemptItem.flagged.is_(True))
    in_open_exam = _in_attempts(user_id, Attempt.status == "open")
    return select(Question.id).where(
        or_(Question.id.in_(missed), Question.id.in_(flagged)),
        Question.id.not_in(in_open_exam),
        IN_USE,
    )


def learner_deck(session: Session, user_id: int) -> bytes | None:
    """Write the learner's missed and flagged questions as an Anki deck (None: there are none)."""
    questions = read_questions(session, only=missed_and_flagged(user_id))
    return write_apkg(questions, DECK_NAME) if questions else None
