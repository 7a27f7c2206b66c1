"""Every table of the application, imported in one place for Alembic and tests."""

from app.accounts.models import ApiToken, RateLimitEvent, RoleChange, User, UserSession
from app.content.blueprints import ExamBlueprint
from app.content.errata import ProblemReport
from app.content.models import (
    Choice,
    ContentVersion,
    LinkDecision,
    Note,
    NoteSection,
    Question,
    QuestionNoteLink,
    QuestionReference,
    QuestionSet,
    Topic,
)
from app.content.notices import Notice
from app.db import Base
from app.exams.models import Attempt, AttemptItem, Regrade, RegradeAttempt, TimeAllowance
from app.progress.models import NoteRead, PracticeAnswer, ReviewCard

__all__ = [
    "ApiToken",
    "Attempt",
    "AttemptItem",
    "ExamBlueprint",
    "LinkDecision",
    "ProblemReport",
    "Base",
    "Notice",
    "NoteRead",
    "PracticeAnswer",
    "RateLimitEvent",
    "RoleChange",
    "Regrade",
    "RegradeAttempt",
    "ReviewCard",
    "User",
    "UserSession",
    "Choice",
    "ContentVersion",
    "Note",
    "NoteSection",
    "Question",
    "QuestionNoteLink",
    "QuestionReference",
    "QuestionSet",
    "TimeAllowance",
    "Topic",
]
