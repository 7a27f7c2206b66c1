"""What learners did: their answers, the review card of each question they met, notes read."""

from datetime import datetime

from sqlalchemy import JSON, CheckConstraint, Float, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime, utcnow

SOURCES = ("practice", "exam")  # where an answer was given: a question page, or an exam


def walk_name(kind: str, slug: str) -> str:
    """How an answer names the walk it was given in: "topic:<slug>" or "set:<slug>"."""
    return f"{kind}:{slug}"


class PracticeAnswer(Base):
    """One answer a learner gave, on a practice or review page or in an exam once submitted."""

    __tablename__ = "practice_answer"
    __table_args__ = (
        CheckConstraint("source IN ('practice', 'exam')", name="source"),
        # a learner's answers in time order: their usual pace, their days, their export; the
        # time each took is carried along, so the pace and the days read the index alone
        Index("ix_practice_answer_user_id_answered_at", "user_id", "answered_at", "seconds"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    question_revision: Mapped[int]
    selected_ids: Mapped[list[int]] = mapped_column(JSON)
    is_correct: Mapped[bool]
    answered_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # seconds from the question being shown to the answer, capped; None when not measured
    seconds: Mapped[float | None] = mapped_column(Float)
    source: Mapped[str] = mapped_column(String(10), default="practice", server_default="practice")
    # the walk the answer was given in (see `walk_name`): a topic's, or a set's wrong answers;
    # None on a question page, in review, "Study next" or an exam. One column names either
    # kind, by slug as the walk's address does, so home can continue the learner's last walk.
    walk: Mapped[str | None] = mapped_column(String(130))


class ReviewCard(Base):
    """A learner's FSRS memory state for one question, and when to review it next."""

    __tablename__ = "review_card"
    __table_args__ = (
        UniqueConstraint("user_id", "question_id"),
        # "what is due for this learner": the review page and the home page ask it, with
        # what the day's limits need. The dashboard sums a learner's cards from the index
        # alone with the columns carried after due_at; a review changes due_at anyway, so
        # they add nothing to rewrite.
        Index(
            "ix_review_card_user_id_due_at",
            "user_id",
            "due_at",
            "question_id",
            "last_correct",
            "stability",
            "last_review_at",
            "reviews",
            "taken_up_at",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    state: Mapped[int]  # fsrs.State: 1 learning, 2 review, 3 relearning
    step: Mapped[int | None]
    stability: Mapped[float | None] = mapped_column(Float)
    difficulty: Mapped[float | None] = mapped_column(Float)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_review_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    reviews: Mapped[int] = mapped_column(default=0)
    lapses: Mapped[int] = mapped_column(default=0)
    # the outcome of the learner's latest answer, so tallies need not rank every answer
    last_correct: Mapped[bool]
    # when the card's first review came (its second answer): the day's new-question limit
    # counts the cards taken up today; None until then
    taken_up_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class NoteRead(Base):
    """A note a learner marked as read (or scrolled to the end of), and when."""

    __tablename__ = "note_read"
    __table_args__ = (UniqueConstraint("user_id", "note_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    note_id: Mapped[int] = mapped_column(ForeignKey("note.id", ondelete="CASCADE"), index=True)
    read_at: Mapped[datetime] = mapped_column(UTCDateTime)
