"""What a learner's exams add to their progress: the score history, their exported data, and
whether an open exam holds a question (practice then keeps its answer to itself).

Progress cannot import exams (exams import progress), so it asks through `ExamRecords`,
which the application wires to `RECORDS` here.
"""

from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session, selectinload

from app.exams.models import Attempt, AttemptItem
from app.progress.read_models import ExamHistory, ExamRecords, ExamScore

_FINISHED = Attempt.status.in_(("submitted", "expired"))


def _duration(dialect: str) -> Any:
    """Seconds from an attempt's start to its submission, in SQL."""
    if dialect == "postgresql":
        return func.extract("epoch", Attempt.submitted_at - Attempt.started_at)
    return (func.julianday(Attempt.submitted_at) - func.julianday(Attempt.started_at)) * 86400


_MINE = (Attempt.user_id == bindparam("user_id"), _FINISHED, Attempt.percent.is_not(None))
# Built once (per dialect): every dashboard runs them.
_SCORES = (
    select(
        Attempt.id,
        Attempt.title,
        Attempt.submitted_at,
        Attempt.percent,
        Attempt.pass_mark,
        Attempt.passed,
    )
    .where(*_MINE)
    .order_by(Attempt.submitted_at.desc(), Attempt.id.desc())
    .limit(bindparam("limit"))
)
# Asked before every practice grade of a learner: from the learner's open exam attempts
# (by their user index), then each one's item of the question (by the attempt's items), so
# it costs the same however many other learners' attempts hold the question.
_IN_OPEN_EXAM = select(Attempt.id).where(
    Attempt.user_id == bindparam("user_id"),
    Attempt.status == "open",
    Attempt.mode == "exam",
    select(AttemptItem.id)
    .where(
        AttemptItem.attempt_id == Attempt.id,
        AttemptItem.question_id == bindparam("question_id"),
    )
    .exists(),
)
_TOTALS = {
    dialect: select(func.count(), func.coalesce(func.sum(_duration(dialect)), 0.0)).where(*_MINE)
    for dialect in ("postgresql", "sqlite")
}


class AttemptRecords:
    """A learner's finished attempts, read for the progress dashboard and the data export."""

    def history(self, session: Session, user_id: int, limit: int) -> ExamHistory:
        """Return the latest `limit` scores (oldest first), the count and the time spent."""
        connection = session.connection()
        params = {"user_id": user_id, "limit": limit}
        rows = connection.execute(_SCORES, params).all()
        count, seconds = connection.execute(_TOTALS[connection.dialect.name], params).one()
        scores = tuple(
            ExamScore(aid, title, at, percent, mark, bool(passed))
            for aid, title, at, percent, mark, passed in reversed(rows)
            if at is not None and percent is not None  # a finished attempt has both
        )
        return ExamHistory(scores, count, max(0.0, round(float(seconds), 1)))

    def export(self, session: Session, user_id: int) -> list[dict[str, Any]]:
        """Return every attempt of the learner with what they chose in it."""
        attempts = session.scalars(
            select(Attempt)
            .options(selectinload(Attempt.items))
            .where(Attempt.user_id == user_id)
            .order_by(Attempt.started_at, Attempt.id)
        )
        return [
            {
                "id": a.id,
                "title": a.title,
                "mode": a.mode,
                "status": a.status,
                "started_at": a.started_at.isoformat(),
                "deadline_at": a.deadline_at.isoformat() if a.deadline_at else None,
                "submitted_at": a.submitted_at.isoformat() if a.submitted_at else None,
                "percent": a.percent,
                "pass_mark": a.pass_mark,
                "passed": a.passed,
                "items": [
                    {
                        "position": i.position,
                        "question_id": i.question_id,
                        "stem": i.snapshot.get("stem_md"),
                        "selected_ids": list(i.selected_ids),
                        "flagged": i.flagged,
                        "answered_at": i.answered_at.isoformat() if i.answered_at else None,
                        "correct": i.is_correct,
                        "points": i.points,
                    }
                    for i in a.items
                ],
            }
            for a in attempts
        ]

    def in_open_exam(self, session: Session, user_id: int, question_id: int) -> bool:
        """Tell whether an open exam-mode attempt of the learner holds the question."""
        params = {"user_id": user_id, "question_id": question_id}
        return session.connection().execute(_IN_OPEN_EXAM, params).first() is not None


RECORDS: ExamRecords = AttemptRecords()
