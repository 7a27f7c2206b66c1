"""Everything Studyhall recorded about a learner, as one JSON document they can download."""

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.content.errors import NotFound
from app.content.models import Note
from app.progress.models import NoteRead, PracticeAnswer, ReviewCard
from app.progress.read_models import ExamRecords

FORMAT = "studyhall.learner/1"


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _answers(session: Session, user_id: int) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(PracticeAnswer)
        .where(PracticeAnswer.user_id == user_id)
        .order_by(PracticeAnswer.answered_at, PracticeAnswer.id)
    )
    return [
        {
            "question_id": a.question_id,
            "question_revision": a.question_revision,
            "selected_ids": list(a.selected_ids),
            "correct": a.is_correct,
            "answered_at": _iso(a.answered_at),
            "seconds": a.seconds,
            "source": a.source,
            "walk": a.walk,
        }
        for a in rows
    ]


def _cards(session: Session, user_id: int) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(ReviewCard).where(ReviewCard.user_id == user_id).order_by(ReviewCard.question_id)
    )
    return [
        {
            "question_id": c.question_id,
            "state": c.state,
            "step": c.step,
            "stability": c.stability,
            "difficulty": c.difficulty,
            "due_at": _iso(c.due_at),
            "last_review_at": _iso(c.last_review_at),
            "reviews": c.reviews,
            "lapses": c.lapses,
            "last_correct": c.last_correct,
        }
        for c in rows
    ]


def _notes_read(session: Session, user_id: int) -> list[dict[str, Any]]:
    rows = session.execute(
        select(Note.slug, Note.title, NoteRead.read_at)
        .join(Note, Note.id == NoteRead.note_id)
        .where(NoteRead.user_id == user_id)
        .order_by(NoteRead.read_at, Note.slug)
    ).all()
    return [{"note": slug, "title": title, "read_at": _iso(at)} for slug, title, at in rows]


def learner_data(
    session: Session, user_id: int, exams: ExamRecords, now: datetime
) -> dict[str, Any]:
    """Gather everything recorded about a learner: account, answers, cards, exams, notes read."""
    user = session.get(User, user_id)
    if user is None:
        raise NotFound("There is no such account.")
    return {
        "format": FORMAT,
        "exported_at": now.isoformat(),
        "account": {
            "username": user.username,
            "role": user.role,
            "created_at": _iso(user.created_at),
            # as the account page sets them; no time zone until one is chosen (UTC meanwhile)
            "study_day": {
                "time_zone": user.time_zone,
                "new_per_day": user.new_per_day,
                "reviews_per_day": user.reviews_per_day,
            },
        },
        "answers": _answers(session, user_id),
        "review_cards": _cards(session, user_id),
        "exam_attempts": exams.export(session, user_id),
        "notes_read": _notes_read(session, user_id),
    }
