"""Edit a question in the browser: open it, save it (checked as an import checks it), restore
an old revision. Every save keeps a revision; a save based on a revision someone has since
replaced is refused, with what changed in between.

A save writes through `upserts.upsert_questions`, the writer imports use, and is checked by
`checks.question_problems`, the rules imports are checked by: the editor has no rules of its
own beyond the note it asks for.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content import reports, revisions
from app.content.bundle import ChoiceData, QuestionData, ReferenceData, Report, Scope
from app.content.checks import Problem, question_problems
from app.content.editor_links import SectionOption, link_problems, sections_named, set_links
from app.content.errors import ContentError, InvalidAnswer, NotFound
from app.content.models import Question, QuestionRevision, QuestionSet, Topic
from app.content.quality import Finding, check_content
from app.content.queries import links_of_questions
from app.content.read_models import NoteLink
from app.content.revisions import NOTE_MAX, Content, DiffLine
from app.content.service import bump_version
from app.content.upserts import number_set, upsert_questions
from app.db import utcnow


@dataclass
class Draft:
    """A question as the editor's form holds it."""

    stem: str = ""
    explanation: str = ""
    kind: str = "single"
    choices: list[ChoiceData] = field(default_factory=list)
    references: list[ReferenceData] = field(default_factory=list)
    topic: str | None = None
    difficulty: str | None = None
    level: str | None = None
    versions: list[str] = field(default_factory=list)
    notes: list[str] | None = None  # linked sections as "note-slug#anchor"; None: as they are

    @classmethod
    def of(cls, content: Content) -> "Draft":
        """The draft of a revision's content."""
        return cls(
            stem=content["stem"],
            explanation=content["explanation"],
            kind=content["kind"],
            choices=[
                ChoiceData(c["text"], c["correct"], c.get("feedback", ""), c.get("fixed", False))
                for c in content["choices"]
            ],
            references=[
                ReferenceData(r["url"], r.get("title"), r.get("version"))
                for r in content["references"]
            ],
            topic=content["topic"],
            difficulty=content["difficulty"],
            level=content["level"],
            versions=list(content["versions"]),
            notes=list(content.get("notes", [])),
        )

    def question(self, key: str, source: str, accepted: list[str]) -> QuestionData:
        """The question as an import would bring it (links to notes written apart)."""
        scope = Scope(tuple(self.versions), self.difficulty, self.level, tuple(accepted))
        return QuestionData(
            key=key,
            stem=self.stem,
            choices=self.choices,
            explanation=self.explanation,
            kind=self.kind,
            source=source,
            topic=self.topic,
            references=self.references,
            scope=scope,
        )


@dataclass(frozen=True)
class Editing:
    """What the editor shows: the question's place, its newest revision and its content."""

    id: int
    set_slug: str
    set_title: str
    key: str
    number: int  # the newest revision: the form carries it back as the one it was opened at
    draft: Draft
    topics: list[tuple[str, str]]  # (slug, title) of every topic, to choose from
    findings: list[Finding]
    retired: bool
    sections: dict[str, SectionOption]  # the sections its links (and the draft's) name
    suggested: list[NoteLink]  # the links suggested by similarity, with their scores


class DraftRefused(ContentError):
    """A draft that breaks the rules; `problems` name the field each is about."""

    status_code = 422

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(" ".join(p.message for p in problems))
        self.problems = problems


class EditConflict(ContentError):
    """Someone saved the question after the editor was opened: nothing was written."""

    status_code = 409

    def __init__(
        self, opened: int, latest: int, changes: list[DiffLine], what: str = "question"
    ) -> None:
        super().__init__(
            f"Someone saved this {what} (revision {latest}) after you opened revision "
            f"{opened}. Nothing was saved."
        )
        self.opened, self.latest, self.changes = opened, latest, changes


def _may_edit(actor: Viewer) -> None:
    if not actor.may("author"):
        raise PermissionDenied("Only authors can edit questions.")


def _question(session: Session, question_id: int, lock: bool = False) -> Question:
    statement = select(Question).where(Question.id == question_id)
    # the row lock queues saves of one question on PostgreSQL; SQLite writes one at a time
    question = session.scalars(statement.with_for_update() if lock else statement).one_or_none()
    if question is None:
        raise NotFound("There is no question with that number.")
    return question


def latest_number(session: Session, question_id: int) -> int:
    """The number of the question's newest revision (0 before it has any)."""
    return (
        session.scalar(
            select(func.max(QuestionRevision.number)).where(
                QuestionRevision.question_id == question_id
            )
        )
        or 0
    )


def open_question(
    session: Session, actor: Viewer, question_id: int, shown: Sequence[str] = ()
) -> Editing:
    """Read a question as the editor shows it, with check-content's findings on it (and the
    note sections shown, a draft's links, named)."""
    _may_edit(actor)
    question = _question(session, question_id)
    content = revisions.snapshots(session, [question_id])[question_id]
    return editing(session, question, content, shown)


def editing(
    session: Session, question: Question, content: Content, shown: Sequence[str] = ()
) -> Editing:
    """The editor of question showing content (a draft being refused, or a revision)."""
    qset = session.get_one(QuestionSet, question.set_id)
    topics = _topics(session)
    report = check_content(session, [qset.slug])
    findings = [
        f
        for f in (*report.findings, *report.accepted)
        if any(ref.id == question.id for ref in f.questions)
    ]
    return Editing(
        question.id,
        qset.slug,
        qset.title,
        question.key,
        latest_number(session, question.id),
        Draft.of(content),
        topics,
        findings,
        question.retired_at is not None,
        sections_named(session, [*content.get("notes", []), *shown]),
        _suggested(session, question.id),
    )


def _suggested(session: Session, question_id: int) -> list[NoteLink]:
    links = links_of_questions(session, [question_id]).get(question_id, [])
    return [link for link in links if link.origin == "suggested"]


def new_question(
    session: Session, actor: Viewer, set_slug: str, shown: Sequence[str] = ()
) -> Editing:
    """The editor of a new question at the end of a set: four empty choices, the set's topic."""
    _may_edit(actor)
    qset = _set(session, set_slug)
    topic = session.scalar(select(Topic.slug).where(Topic.id == qset.topic_id))
    draft = Draft(choices=[ChoiceData("", False) for _ in range(4)], topic=topic, notes=[])
    sections = sections_named(session, shown)
    return Editing(
        0, qset.slug, qset.title, "", 0, draft, _topics(session), [], False, sections, []
    )


def _set(session: Session, slug: str) -> QuestionSet:
    qset = session.scalars(select(QuestionSet).where(QuestionSet.slug == slug)).one_or_none()
    if qset is None:  # the address names it in its query: an input that names nothing
        raise InvalidAnswer(
            f"There is no question set {slug!r}: add a question from its set's page."
        )
    return qset


def create_question(session: Session, actor: Viewer, set_slug: str, draft: Draft, note: str) -> int:
    """Add a question at the end of a set (its key the next free number); return its id."""
    _may_edit(actor)
    qset = _set(session, set_slug)
    session.execute(select(QuestionSet.id).where(QuestionSet.id == qset.id).with_for_update())
    rows = session.execute(
        select(Question.key, Question.position).where(Question.set_id == qset.id)
    ).all()
    key = str(max((int(k) for k, _ in rows if k.isascii() and k.isdigit()), default=0) + 1)
    position = max((p for _, p in rows), default=0) + 1
    data = draft.question(key, "", [])
    topics = dict(session.execute(select(Topic.slug, Topic.id)).all())
    _refuse(session, draft, data, note, topics, [])
    report = Report(file="editor", format="editor")
    written = upsert_questions(session, qset.id, [(position, data)], topics, report)
    question_id = written.ids[key]
    if draft.notes is not None:
        set_links(session, actor.id, question_id, draft.notes)
    revisions.record(session, [question_id], actor.id, note.strip())
    bump_version(session)
    return question_id


def _refuse(
    session: Session,
    draft: Draft,
    data: QuestionData,
    note: str,
    topics: dict[str, int],
    more: list[Problem],
) -> None:
    """Refuse a draft that breaks the rules imports are checked by, links to a section that
    is not there, or has no note."""
    problems = more + note_problems(note) + question_problems(data)
    if draft.topic is not None and draft.topic not in topics:
        problems.append(Problem("topic", f"There is no topic {draft.topic!r}."))
    if draft.notes is not None:
        problems += link_problems(draft.notes, sections_named(session, draft.notes))
    if problems:
        raise DraftRefused(problems)


def retire_question(session: Session, actor: Viewer, question_id: int, retire: bool) -> bool:
    """Retire a question (out of practice, set lists and new exams; its history, attempts and
    answers stay) or bring it back; tell whether that changed anything."""
    _may_edit(actor)
    question = _question(session, question_id, lock=True)
    if (question.retired_at is not None) == retire:
        return False
    question.retired_at = utcnow() if retire else None
    session.flush()
    number_set(session, question.set_id)
    bump_version(session)
    return True


def _topics(session: Session) -> list[tuple[str, str]]:
    rows = session.execute(select(Topic.slug, Topic.title).order_by(Topic.title))
    return [(slug, title) for slug, title in rows]


def note_problems(note: str) -> list[Problem]:
    """A save needs a short note saying why."""
    if not note.strip():
        return [Problem("note", "Say in a few words why you change it (the note is required).")]
    if len(note) > NOTE_MAX:
        return [Problem("note", f"The note is {len(note)} characters long; at most {NOTE_MAX}.")]
    return []


def save_question(
    session: Session,
    actor: Viewer,
    question_id: int,
    draft: Draft,
    opened: int,
    note: str,
    resolve: int | None = None,
) -> int:
    """Save a draft of a question as a new revision; return its number (the opened one
    when the draft changes nothing). Refuse a stale or faulty draft, writing nothing.

    With `resolve`, the number of a problem report on this question, the save also resolves
    it and tells its reporter; a save that changes nothing is then refused.
    """
    _may_edit(actor)
    question = _question(session, question_id, lock=True)
    latest = latest_number(session, question_id)
    if latest != opened:
        raise EditConflict(opened, latest, _changes(session, question_id, opened, latest))
    data = draft.question(question.key, question.source, list(question.accepted or []))
    topics = dict(session.execute(select(Topic.slug, Topic.id)).all())
    more = [] if resolve is None else reports.edit_problems(session, resolve, question_id, note)
    _refuse(session, draft, data, note, topics, more)
    report = Report(file="editor", format="editor")
    upsert_questions(session, question.set_id, [(question.position, data)], topics, report)
    if draft.notes is not None:
        set_links(session, actor.id, question_id, draft.notes)
    saved = revisions.record(session, [question_id], actor.id, note.strip())
    if saved:
        bump_version(session)
    if resolve is not None:
        if not saved:  # the job's savepoint undoes the write above
            raise DraftRefused([Problem("resolve", UNCHANGED)])
        reports.resolve_after_edit(session, actor, resolve, note.strip())
    return saved.get(question_id, latest)


UNCHANGED = (
    "Nothing in the question changed, so the report was not resolved. Correct the question, "
    "or untick “Resolve the report and tell the reporter” and resolve it on the reports page."
)


def restore_revision(
    session: Session, actor: Viewer, question_id: int, number: int, opened: int, note: str
) -> int:
    """Save an old revision's content as a new revision; return its number. Its links to
    note sections removed since are left out: there is nothing left to link to."""
    _may_edit(actor)
    content = revisions.content_of(session, question_id, number)
    if content is None:
        raise NotFound("This question has no revision with that number.")
    note = note.strip() or f"Restored revision {number}"
    draft = Draft.of(content)
    known = sections_named(session, draft.notes or [])
    draft.notes = [ref for ref in draft.notes or [] if ref in known]
    return save_question(session, actor, question_id, draft, opened, note)


def key_changed(session: Session, question_id: int, old: int, new: int) -> bool:
    """Tell whether a question's right choices differ between two of its revisions."""
    before = revisions.content_of(session, question_id, old)
    after = revisions.content_of(session, question_id, new)
    if before is None or after is None:
        return False
    return _key(before) != _key(after)


def _key(content: Content) -> list[bool]:
    # a save updates choices in place by position: a position is a choice
    return [bool(c["correct"]) for c in content["choices"]]


def _changes(session: Session, question_id: int, old: int, new: int) -> list[DiffLine]:
    before = revisions.content_of(session, question_id, old)
    after = revisions.content_of(session, question_id, new)
    if before is None or after is None:
        return []
    return revisions.diff(before, after)


@dataclass(frozen=True)
class History:
    id: int
    set_title: str
    key: str
    stem: str
    revisions: list[revisions.RevisionView]


def question_history(session: Session, actor: Viewer, question_id: int) -> History:
    """A question's revisions, newest first (authors only)."""
    _may_edit(actor)
    question = _question(session, question_id)
    qset = session.get_one(QuestionSet, question.set_id)
    return History(
        question.id,
        qset.title,
        question.key,
        question.stem_md,
        revisions.history(session, question_id),
    )


def compare(
    session: Session, actor: Viewer, question_id: int, old: int, new: int
) -> list[DiffLine]:
    """What changed from one revision of a question to another (authors only)."""
    _may_edit(actor)
    before = revisions.content_of(session, question_id, old)
    after = revisions.content_of(session, question_id, new)
    if before is None or after is None:
        raise NotFound("This question has no revision with that number.")
    return revisions.diff(before, after)
