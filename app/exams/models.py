"""Attempts at exams and what was answered in them; each question is a snapshot."""

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db import Base, UTCDateTime

STATUSES = ("open", "submitted", "expired")  # expired: submitted when time ran out


class Attempt(Base):
    __tablename__ = "exam_attempt"
    __table_args__ = (
        CheckConstraint("status IN ('open', 'submitted', 'expired')", name="status"),
        CheckConstraint("mode IN ('exam', 'practice')", name="mode"),
        # One open attempt per exam per learner: `open_slot` names the exam while the attempt
        # is open and is cleared when it closes (NULLs never collide).
        UniqueConstraint("user_id", "open_slot"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    blueprint_id: Mapped[int | None] = mapped_column(
        ForeignKey("exam_blueprint.id", ondelete="SET NULL"), index=True
    )
    open_slot: Mapped[str | None] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(String(200))
    mode: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(10), default="open", index=True)
    pass_mark: Mapped[int] = mapped_column(Integer)
    partial_credit: Mapped[bool] = mapped_column(default=False)
    question_count: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_saved_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    score: Mapped[float | None] = mapped_column(Float)  # points, out of question_count
    percent: Mapped[float | None] = mapped_column(Float)
    passed: Mapped[bool | None]

    items: Mapped[list["AttemptItem"]] = relationship(
        back_populates="attempt",
        lazy="raise",
        order_by="AttemptItem.position",
        cascade="all, delete-orphan",
    )


class AttemptItem(Base):
    """One question of an attempt, as it was shown: stem, choices in order, key, explanation."""

    __tablename__ = "exam_attempt_item"
    __table_args__ = (
        UniqueConstraint("attempt_id", "position"),
        # Practice asks whether a learner's open exam holds a question: found by both columns,
        # never among every attempt that ever held the question.
        Index("ix_exam_attempt_item_question_id_attempt_id", "question_id", "attempt_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    attempt_id: Mapped[int] = mapped_column(ForeignKey("exam_attempt.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    question_id: Mapped[int | None] = mapped_column(ForeignKey("question.id", ondelete="SET NULL"))
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSON)
    selected_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    flagged: Mapped[bool] = mapped_column(default=False)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    points: Mapped[float | None] = mapped_column(Float)
    is_correct: Mapped[bool | None]

    attempt: Mapped[Attempt] = relationship(back_populates="items", lazy="raise")


# The item table itself, for the statements that read and write items as plain rows.
ITEM_TABLE = cast(Table, AttemptItem.__table__)


class TimeAllowance(Base):
    """Extra time an admin gave a learner: their timed attempts last `multiplier` times longer."""

    __tablename__ = "exam_time_allowance"
    __table_args__ = (CheckConstraint("multiplier >= 1 AND multiplier <= 4", name="multiplier"),)

    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True
    )
    multiplier: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Regrade(Base):
    """A fixed key applied to what learners answered before: a question's graded attempts
    and its answers, judged again. Who ran it, when, with which revision, and what changed."""

    __tablename__ = "regrade"

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    revision: Mapped[int] = mapped_column(Integer)  # the editor's revision whose key it applied
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), index=True
    )
    regraded_at: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # attempts whose score changed
    flipped: Mapped[int] = mapped_column(Integer, default=0)  # pass/fail outcomes turned
    answers: Mapped[int] = mapped_column(Integer, default=0)  # answers whose outcome turned


class RegradeAttempt(Base):
    """An attempt whose score a regrade changed: its score and outcome before and after."""

    __tablename__ = "regrade_attempt"

    id: Mapped[int] = mapped_column(primary_key=True)
    regrade_id: Mapped[int] = mapped_column(
        ForeignKey("regrade.id", ondelete="CASCADE"), index=True
    )
    attempt_id: Mapped[int] = mapped_column(
        ForeignKey("exam_attempt.id", ondelete="CASCADE"), index=True
    )
    old_score: Mapped[float] = mapped_column(Float)
    new_score: Mapped[float] = mapped_column(Float)
    old_percent: Mapped[float] = mapped_column(Float)
    new_percent: Mapped[float] = mapped_column(Float)
    old_passed: Mapped[bool]
    new_passed: Mapped[bool]
