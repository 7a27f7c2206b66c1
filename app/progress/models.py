"""What learners did: their practice answers and the review card of each question they met."""

from datetime import datetime

from sqlalchemy import JSON, Float, ForeignKey, Index, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime, utcnow


class PracticeAnswer(Base):
    __tablename__ = "practice_answer"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    question_revision: Mapped[int]
    selected_ids: Mapped[list[int]] = mapped_column(JSON)
    is_correct: Mapped[bool]
    answered_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ReviewCard(Base):
    """A learner's FSRS memory state for one question, and when to review it next."""

    __tablename__ = "review_card"
    __table_args__ = (
        UniqueConstraint("user_id", "question_id"),
        # "what is due for this learner": the review page and the home page ask it
        Index("ix_review_card_user_id_due_at", "user_id", "due_at"),
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
