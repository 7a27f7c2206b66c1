"""Notices to one person: a question they reported was corrected.

An author who saves a question from a problem report, resolving it, leaves a notice for the
person who reported it. Only that person sees it (on the home page and their dashboard),
until they dismiss it. Services add and flush; the caller commits.
"""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.accounts.service import Viewer
from app.content.models import Question, QuestionSet
from app.db import Base, UTCDateTime, utcnow
from app.errors import NotFound

SHOWN = 20  # notices shown at once, newest first


class Notice(Base):
    __tablename__ = "notice"
    __table_args__ = (
        CheckConstraint("kind IN ('question-corrected')", name="kind"),
        Index("ix_notice_user_id_dismissed_at", "user_id", "dismissed_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    dismissed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


@dataclass(frozen=True)
class NoticeView:
    id: int
    kind: str
    question_id: int
    question_key: str
    set_title: str
    created_at: datetime


def tell_corrected(session: Session, user_id: int, question_id: int) -> None:
    """Tell a reporter that the question they reported was corrected."""
    session.add(Notice(user_id=user_id, kind="question-corrected", question_id=question_id))
    session.flush()


def open_notices(session: Session, user_id: int) -> tuple[NoticeView, ...]:
    """The notices a person has not dismissed, newest first."""
    rows = session.execute(
        select(
            Notice.id,
            Notice.kind,
            Notice.question_id,
            Question.key,
            QuestionSet.title,
            Notice.created_at,
        )
        .join(Question, Question.id == Notice.question_id)
        .join(QuestionSet, QuestionSet.id == Question.set_id)
        .where(Notice.user_id == user_id, Notice.dismissed_at.is_(None))
        .order_by(Notice.id.desc())
        .limit(SHOWN)
    )
    return tuple(NoticeView(*row) for row in rows)


def dismiss(session: Session, actor: Viewer, notice_id: int) -> None:
    """Dismiss one of my notices; someone else's is as missing as one that never was."""
    notice = session.get(Notice, notice_id)
    if notice is None or notice.user_id != actor.id:
        raise NotFound("There is no notice with that number.")
    if notice.dismissed_at is None:
        notice.dismissed_at = utcnow()
        session.flush()
