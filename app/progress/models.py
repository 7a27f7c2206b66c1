"""What learners did: their practice answers."""

from datetime import datetime

from sqlalchemy import JSON, ForeignKey
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
