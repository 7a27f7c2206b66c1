"""The admins' audit log: who changed what, when and why, newest first.

It keeps no rows of its own: content changes are the questions' revisions, resolutions are
the problem reports resolved, and role changes are recorded as they happen (`RoleChange`).
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, String, cast, func, literal, null, select, union_all
from sqlalchemy.orm import Session, aliased

from app.accounts.errors import PermissionDenied
from app.accounts.models import RoleChange, User
from app.accounts.service import Viewer
from app.content.errata import ProblemReport
from app.content.models import Note, NoteSection, QuestionRevision
from app.content.queries import paged
from app.content.read_models import PageInfo

KINDS = {"content": "Question edits", "report": "Reports resolved", "role": "Role changes"}
PAGE_SIZE = 50


@dataclass(frozen=True)
class Entry:
    kind: str  # a key of KINDS
    at: datetime
    actor: str | None  # None: the command line, an import, or an account since deleted
    question_id: int | None
    subject: str | None  # whose role changed; the note a resolved report was about
    detail: str  # why the revision was saved, what the resolution said, the old role
    more: str | None  # the revision's number, the report's kind, the new role


@dataclass(frozen=True)
class AuditPage:
    entries: tuple[Entry, ...]
    page: PageInfo
    kind: str | None


COLUMNS = ("kind", "at", "actor", "question_id", "subject", "detail", "more")


def _select(*columns: Any) -> Any:
    """A branch of the log: Entry's seven columns, in order and named."""
    return select(*(column.label(name) for column, name in zip(columns, COLUMNS, strict=True)))


def _branches(kind: str | None) -> list[Any]:
    actor, subject = aliased(User), aliased(User)
    branches = {
        "content": _select(
            literal("content"),
            QuestionRevision.saved_at,
            actor.username,
            QuestionRevision.question_id,
            null(),
            QuestionRevision.note,
            cast(QuestionRevision.number, String),
        ).outerjoin(actor, actor.id == QuestionRevision.author_id),
        "report": _select(
            literal("report"),
            ProblemReport.resolved_at,
            actor.username,
            ProblemReport.question_id,
            Note.title,
            ProblemReport.resolution,
            ProblemReport.kind,
        )
        .outerjoin(actor, actor.id == ProblemReport.resolved_by_id)
        .outerjoin(NoteSection, NoteSection.id == ProblemReport.section_id)
        .outerjoin(Note, Note.id == NoteSection.note_id)
        .where(ProblemReport.status == "resolved", ProblemReport.resolved_at.is_not(None)),
        "role": _select(
            literal("role"),
            RoleChange.changed_at,
            actor.username,
            cast(null(), Integer),
            subject.username,
            RoleChange.old_role,
            RoleChange.new_role,
        )
        .outerjoin(actor, actor.id == RoleChange.actor_id)
        .outerjoin(subject, subject.id == RoleChange.user_id),
    }
    return [query for name, query in branches.items() if kind in (None, name)]


def audit_log(session: Session, actor: Viewer, kind: str | None, page: int) -> AuditPage:
    """One page of the audit log, newest first, of one kind or all (admins only)."""
    if not actor.may("admin"):
        raise PermissionDenied("Only admins can read the audit log.")
    log = union_all(*_branches(kind)).subquery()
    total = session.scalar(select(func.count()).select_from(log)) or 0
    info = paged(page, total, PAGE_SIZE)
    rows = session.execute(
        select(log).order_by(log.c.at.desc()).limit(PAGE_SIZE).offset((page - 1) * PAGE_SIZE)
    )
    return AuditPage(tuple(Entry(*row) for row in rows), info, kind)
