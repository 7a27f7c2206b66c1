"""Every table of the application, imported in one place for Alembic and tests."""

from app.content.models import (
    Choice,
    Note,
    NoteSection,
    Question,
    QuestionNoteLink,
    QuestionSet,
    Topic,
)
from app.db import Base

__all__ = [
    "Base",
    "Choice",
    "Note",
    "NoteSection",
    "Question",
    "QuestionNoteLink",
    "QuestionSet",
    "Topic",
]
