"""Reporting problems with the content, and the authors' queue that resolves them.

A logged-in person reports a problem on a question or a note section (bounded text, a few
reports per account in the rate-limit window). Authors see the open reports, mark one as an
erratum (shown on the content while it is open) and resolve it with a note. Services add
and flush; the caller commits.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from app.accounts.errors import InvalidInput, PermissionDenied, RateLimited
from app.accounts.models import User
from app.accounts.service import Viewer
from app.content import notices
from app.content.checks import Problem, hidden_character, visible_text
from app.content.errata import KINDS, TEXT_MAX, TEXT_MIN, ProblemReport
from app.content.errors import NotFound
from app.content.markdown import excerpt
from app.content.models import Note, NoteSection, Question
from app.content.service import bump_version
from app.db import utcnow

QUEUE_LIMIT = 200  # reports the queue shows at once, oldest first


@dataclass(frozen=True)
class Limit:
    """How many reports one account may send within a window."""

    count: int
    window: timedelta


@dataclass(frozen=True)
class SectionChoice:
    anchor: str
    heading: str


@dataclass(frozen=True)
class QueueItem:
    """One report as the authors' queue shows it, with what it is about."""

    id: int
    kind: str
    text: str
    erratum: bool
    status: str
    created_at: datetime
    reporter: str | None  # None: filed with the content (seed errata)
    resolution: str
    resolver: str | None
    resolved_at: datetime | None
    question_id: int | None
    note_slug: str | None
    note_title: str
    anchor: str | None
    heading: str
    stem_md: str | None  # the question's

    @property
    def kind_label(self) -> str:
        return KINDS.get(self.kind, self.kind)

    @property
    def question_text(self) -> str:
        """The start of the question's stem, plain."""
        return excerpt(self.stem_md, 120) if self.stem_md else ""


def question_stem(session: Session, question_id: int) -> str:
    """Return the start of a question's stem (to say what a report is about), or 404."""
    stem = session.scalar(select(Question.stem_md).where(Question.id == question_id))
    if stem is None:
        raise NotFound(f"There is no question number {question_id}.")
    return excerpt(stem)


def note_sections(session: Session, slug: str) -> tuple[str, tuple[SectionChoice, ...]]:
    """Return a note's title and its sections (what a report on it may be about), or 404."""
    rows = session.execute(
        select(Note.title, NoteSection.anchor, NoteSection.heading)
        .outerjoin(NoteSection, NoteSection.note_id == Note.id)
        .where(Note.slug == slug)
        .order_by(NoteSection.position)
    ).all()
    if not rows:
        raise NotFound(f"There is no note called “{slug}”.")
    sections = tuple(SectionChoice(a, h) for _, a, h in rows if a is not None)
    return rows[0][0], sections


def report_problem(
    session: Session,
    actor: Viewer,
    *,
    kind: str,
    text: str,
    limit: Limit,
    question_id: int | None = None,
    note_slug: str | None = None,
    anchor: str = "",
) -> ProblemReport:
    """File a report on a question, or on a section of a note; refuse bad input field by field."""
    text = " ".join(text.split())
    errors = {}
    if kind not in KINDS:
        errors["kind"] = "Choose what kind of problem it is."
    if problem := _text_problem(text, TEXT_MIN, "Say what is wrong"):
        errors["text"] = problem
    section_id = None
    if note_slug is not None:
        section_id = _section_id(session, note_slug, anchor)
        if section_id is None:
            errors["section"] = "Choose the part of the note the problem is in."
    elif question_id is None or session.get(Question, question_id) is None:
        raise NotFound(f"There is no question number {question_id}.")
    if errors:
        raise InvalidInput.of(errors)
    _check_limit(session, actor, limit)
    report = ProblemReport(
        question_id=question_id if note_slug is None else None,
        section_id=section_id,
        kind=kind,
        text=text,
        reporter_id=actor.id,
    )
    session.add(report)
    session.flush()
    return report


def _text_problem(text: str, least: int, ask: str) -> str | None:
    """Say what is wrong with a report's or a resolution's text (None when nothing is).

    Only characters that show count: ten zero-width spaces are an empty report.
    """
    if len(visible_text(text)) < least or len(text) > TEXT_MAX:
        return f"{ask} in {least} to {TEXT_MAX} characters."
    return _hidden(text)


def _hidden(text: str) -> str | None:
    if (found := hidden_character(text)) is not None:
        at, which = found
        return (
            f"Remove the invisible character {which} at character {at}: it would reorder or "
            "hide what you wrote."
        )
    return None


def _section_id(session: Session, slug: str, anchor: str) -> int | None:
    return session.scalar(
        select(NoteSection.id).join(Note).where(Note.slug == slug, NoteSection.anchor == anchor)
    )


def _check_limit(session: Session, actor: Viewer, limit: Limit) -> None:
    """Refuse a report past the account's allowance in the window (429, with the wait)."""
    since = utcnow() - limit.window
    times = session.scalars(
        select(ProblemReport.created_at)
        .where(ProblemReport.reporter_id == actor.id, ProblemReport.created_at > since)
        .order_by(ProblemReport.created_at.desc())
        .limit(limit.count)
    ).all()
    if len(times) >= limit.count:
        wait = times[-1] + limit.window - utcnow()
        raise RateLimited(int(wait.total_seconds()) + 1)


def _author(actor: Viewer) -> None:
    if not actor.may("author"):
        raise PermissionDenied("Only authors can see and resolve problem reports.")


def report_queue(session: Session, actor: Viewer, status: str = "open") -> tuple[QueueItem, ...]:
    """List the reports in a status (open: oldest first; resolved: latest first), for authors."""
    _author(actor)
    order = ProblemReport.id if status == "open" else ProblemReport.resolved_at.desc()
    return _items(session, ProblemReport.status == status, order=(order, ProblemReport.id))


def _items(session: Session, *where: Any, order: tuple[Any, ...] = ()) -> tuple[QueueItem, ...]:
    reporter, resolver = aliased(User), aliased(User)
    rows: Any = session.execute(
        select(  # QueueItem's fields in order
            ProblemReport.id,
            ProblemReport.kind,
            ProblemReport.text,
            ProblemReport.erratum,
            ProblemReport.status,
            ProblemReport.created_at,
            reporter.username,
            ProblemReport.resolution,
            resolver.username,
            ProblemReport.resolved_at,
            ProblemReport.question_id,
            Note.slug,
            func.coalesce(Note.title, ""),
            NoteSection.anchor,
            func.coalesce(NoteSection.heading, ""),
            Question.stem_md,
        )
        .outerjoin(reporter, ProblemReport.reporter_id == reporter.id)
        .outerjoin(resolver, ProblemReport.resolved_by_id == resolver.id)
        .outerjoin(Question, ProblemReport.question_id == Question.id)
        .outerjoin(NoteSection, ProblemReport.section_id == NoteSection.id)
        .outerjoin(Note, NoteSection.note_id == Note.id)
        .where(*where)
        .order_by(*order)
        .limit(QUEUE_LIMIT)
    ).all()
    return tuple(QueueItem(*row) for row in rows)


def _mismatch(report: ProblemReport | QueueItem | None, question_id: int) -> str | None:
    """Say why a report cannot be resolved by editing this question (None when it can)."""
    if report is None:
        return "There is no problem report with that number."
    if report.question_id != question_id:
        return (
            f"Problem report {report.id} is about another question; "
            "open the editor from the report on the reports page."
        )
    return None


def report_on(session: Session, actor: Viewer, report_id: int, question_id: int) -> QueueItem:
    """The report an author edits a question from, to show beside the editor."""
    _author(actor)
    found = _items(session, ProblemReport.id == report_id)
    if problem := _mismatch(found[0] if found else None, question_id):
        raise InvalidInput("report", problem)
    return found[0]


def edit_problems(session: Session, report_id: int, question_id: int, note: str) -> list[Problem]:
    """Say why a save cannot resolve this report with this note (nothing when it can)."""
    report = session.get(ProblemReport, report_id)
    problem = _mismatch(report, question_id)
    if problem is None and report is not None and report.status == "resolved":
        problem = (
            f"Problem report {report_id} is already resolved; untick “Resolve the report and "
            "tell the reporter” to save."
        )
    problems = [Problem("resolve", problem)] if problem else []
    if hidden := _hidden(note):  # the note becomes the resolution, which refuses these
        problems.append(Problem("note", hidden))
    return problems


def resolve_after_edit(session: Session, actor: Viewer, report_id: int, note: str) -> None:
    """Resolve a question's report with the edit's note, and tell the person who sent it."""
    resolve_report(session, actor, report_id, f"Corrected the question: {note}")
    report = session.get_one(ProblemReport, report_id)
    if report.reporter_id is not None and report.question_id is not None:
        notices.tell_corrected(session, report.reporter_id, report.question_id)


def _open_report(session: Session, actor: Viewer, report_id: int) -> ProblemReport:
    _author(actor)
    report = session.get(ProblemReport, report_id)
    if report is None:
        raise NotFound("There is no problem report with that number.")
    return report


def resolve_report(session: Session, actor: Viewer, report_id: int, resolution: str) -> None:
    """Close a report with a note saying what was done; its erratum leaves the content."""
    report = _open_report(session, actor, report_id)
    resolution = " ".join(resolution.split())
    if problem := _text_problem(resolution, 1, "Say what was done"):
        raise InvalidInput("resolution", problem)
    if report.status == "resolved":
        return  # resolved twice (a second tab): the first word stands
    report.status, report.resolution = "resolved", resolution
    report.resolved_by_id, report.resolved_at = actor.id, utcnow()
    session.flush()
    if report.erratum:
        bump_version(session)  # the content pages drop the erratum


def mark_erratum(session: Session, actor: Viewer, report_id: int, shown: bool) -> None:
    """Show an open report on its content as an erratum, or stop showing it."""
    report = _open_report(session, actor, report_id)
    if report.status != "open" or report.erratum == shown:
        return
    report.erratum = shown
    session.flush()
    bump_version(session)
