"""Edit a note in the browser: its title, introduction and sections (rename, rewrite, add,
remove, move), keeping every section's anchor, so each question's link to it keeps working.

A note's Markdown stays its one text: a section whose anchor is not what its heading would
give names it in the heading (`## New name {#old-anchor}`), which `split_sections` reads.
Every save keeps a revision with a required note saying why; a save based on a revision
someone has since replaced is refused with what changed, as the question editor does.
"""

import re
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content import revisions
from app.content.checks import HEADING, SLUG, TEXT, TITLE, Problem, hidden_character
from app.content.editor import DraftRefused, EditConflict, note_problems
from app.content.errors import NotFound
from app.content.loading import sync_sections
from app.content.markdown import slugify, split_sections, unique_slug
from app.content.models import Note, NoteSection, Question, QuestionNoteLink, QuestionSet
from app.content.revisions import Content, DiffLine, RevisionView
from app.content.service import bump_version
from app.db import utcnow

MAX_SECTIONS = 100
ANCHOR_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


@dataclass
class SectionDraft:
    heading: str
    body: str = ""
    anchor: str = ""  # "" for a section not saved yet: the save gives it one from its heading
    level: int = 2


@dataclass
class NoteDraft:
    """A note as the editor's form holds it."""

    title: str
    intro: str = ""
    sections: list[SectionDraft] = field(default_factory=list)

    @classmethod
    def of(cls, content: Content) -> "NoteDraft":
        """The draft of a revision's content (or of a note as it stands)."""
        split = split_sections(content["markdown"])
        sections = [SectionDraft(s.heading, s.body, s.anchor, s.level) for s in split.sections]
        return cls(content["title"], split.intro, sections)

    def tidied(self) -> "NoteDraft":
        """The draft with surrounding blank space dropped, as the note will keep it."""
        return NoteDraft(
            self.title.strip(),
            self.intro.strip(),
            [
                SectionDraft(s.heading.strip(), s.body.strip(), s.anchor, s.level)
                for s in self.sections
            ],
        )


@dataclass(frozen=True)
class Linking:
    """A question that links to a section (an explicit link, as imported or confirmed)."""

    id: int
    label: str


@dataclass(frozen=True)
class NoteEditing:
    """What the editor shows: the note, its newest revision and the questions on each section."""

    slug: str
    title: str
    number: int  # the newest revision: the form carries it back as the one it was opened at
    draft: NoteDraft
    linked: dict[str, list[Linking]]  # anchor -> questions linking to that section


def _may_edit(actor: Viewer) -> None:
    if not actor.may("author"):
        raise PermissionDenied("Only authors can edit notes.")


def _note(session: Session, slug: str, lock: bool = False) -> Note:
    query = select(Note).where(Note.slug == slug).options(selectinload(Note.sections))
    note = session.scalars(query.with_for_update() if lock else query).one_or_none()
    if note is None:
        raise NotFound(f"There is no note called “{slug}”.")
    return note


def _linked(session: Session, note_id: int) -> dict[str, list[Linking]]:
    rows = session.execute(
        select(NoteSection.anchor, Question.id, QuestionSet.title, Question.key)
        .join(QuestionNoteLink, QuestionNoteLink.section_id == NoteSection.id)
        .join(Question, Question.id == QuestionNoteLink.question_id)
        .join(QuestionSet, QuestionSet.id == Question.set_id)
        .where(NoteSection.note_id == note_id, QuestionNoteLink.origin == "explicit")
        .order_by(QuestionSet.title, Question.position)
    )
    linked: dict[str, list[Linking]] = {}
    for anchor, qid, set_title, key in rows:
        linked.setdefault(anchor, []).append(Linking(qid, f"{set_title}, question {key}"))
    return linked


def open_note(session: Session, actor: Viewer, slug: str) -> NoteEditing:
    """The editor of a note, at its newest revision (authors only)."""
    _may_edit(actor)
    note = _note(session, slug)
    number, _ = revisions.latest_note(session, note.id)
    content = revisions.note_content(note)
    return NoteEditing(
        note.slug, note.title, number, NoteDraft.of(content), _linked(session, note.id)
    )


def compose(draft: NoteDraft) -> str:
    """The note's Markdown: a heading names its anchor where its text would give another."""
    named = {i for i, s in enumerate(draft.sections) if s.anchor != slugify(s.heading)}
    while True:
        text = _markdown(draft, named)
        found = [s.anchor for s in split_sections(text).sections]
        wrong = {
            i for i, (a, s) in enumerate(zip(found, draft.sections, strict=False)) if a != s.anchor
        }
        if not wrong or wrong <= named:
            return text
        named |= wrong


def _markdown(draft: NoteDraft, named: set[int]) -> str:
    parts = [draft.intro] if draft.intro else []
    for i, s in enumerate(draft.sections):
        heading = s.heading.replace("\\", "\\\\").replace("#", "\\#")
        parts.append("#" * s.level + " " + heading + (f" {{#{s.anchor}}}" if i in named else ""))
        if s.body:
            parts.append(s.body)
    return "\n\n".join(parts) + "\n"


def draft_problems(draft: NoteDraft) -> list[Problem]:
    """What keeps a (tidied) draft from being saved, each about one field of the form."""
    problems = []
    if not draft.title:
        problems.append(Problem("title", "The note needs a title."))
    elif len(draft.title) > TITLE:
        problems.append(
            Problem(
                "title", f"The title is {len(draft.title)} characters long; at most {TITLE} fit."
            )
        )
    problems += _text_problems("intro", "The introduction", draft.intro)
    if not draft.sections:
        problems.append(Problem("sections", "A note needs at least one section."))
    if len(draft.sections) > MAX_SECTIONS:
        problems.append(Problem("sections", f"A note holds at most {MAX_SECTIONS} sections."))
    seen: dict[str, int] = {}
    for n, s in enumerate(draft.sections, start=1):
        problems += _heading_problems(n, s.heading, seen)
        problems += _text_problems(f"section-{n}-body", f"The text of section {n}", s.body)
    anchors = [s.anchor for s in draft.sections if s.anchor]
    if not all(re.match(ANCHOR_PATTERN, a) and len(a) <= SLUG for a in anchors):
        problems.append(Problem("sections", "A section's anchor is not valid; reload the editor."))
    elif len(set(anchors)) < len(anchors):
        problems.append(
            Problem("sections", "Two sections carry the same anchor; reload the editor.")
        )
    return problems


def _heading_problems(n: int, heading: str, seen: dict[str, int]) -> list[Problem]:
    name = f"section-{n}-heading"
    if not heading:
        return [Problem(name, f"Section {n} needs a heading.")]
    if len(heading) > HEADING:
        return [
            Problem(
                name,
                f"The heading of section {n} is {len(heading)} characters long; at most {HEADING} fit.",
            )
        ]
    if "\n" in heading or "\r" in heading:
        return [Problem(name, f"The heading of section {n} must be one line.")]
    if (hidden := hidden_character(heading)) is not None:
        return [
            Problem(
                name,
                f"The heading of section {n} holds the invisible character {hidden[1]}; remove it.",
            )
        ]
    other = seen.setdefault(heading.casefold(), n)
    if other != n:
        return [
            Problem(
                name,
                f"Sections {other} and {n} are both headed “{heading}”: give each its own heading.",
            )
        ]
    return []


def _text_problems(name: str, what: str, text: str) -> list[Problem]:
    if len(text) > TEXT:
        return [Problem(name, f"{what} is {len(text)} characters long; at most {TEXT} fit.")]
    if split_sections(text).sections:
        return [
            Problem(
                name,
                f"{what} holds a heading of level 1 or 2 (“#” or “##”), which would start a "
                "section: add a section instead, or use “###” for a heading inside it.",
            )
        ]
    if sum(line.lstrip().startswith(("```", "~~~")) for line in text.split("\n")) % 2:
        return [Problem(name, f"{what} opens a code block (```) it does not close.")]
    if (hidden := hidden_character(text)) is not None:
        return [Problem(name, f"{what} holds the invisible character {hidden[1]}; remove it.")]
    return []


def _name_new_sections(draft: NoteDraft, note: Note) -> None:
    """Give each new section an anchor from its heading, unique within the note."""
    taken = {s.anchor for s in note.sections} | {s.anchor for s in draft.sections if s.anchor}
    for s in draft.sections:
        if not s.anchor:
            s.anchor = unique_slug(slugify(s.heading)[:SLUG], taken)


def _removal_problems(
    note: Note, draft: NoteDraft, linked: dict[str, list[Linking]]
) -> list[Problem]:
    kept = {s.anchor for s in draft.sections}
    problems = []
    for section in note.sections:
        questions = linked.get(section.anchor)
        if section.anchor not in kept and questions:
            problems.append(Problem("sections", removal_refused(section.heading, questions)))
    return problems


def removal_refused(heading: str, questions: list[Linking]) -> str:
    """Why a section cannot go: the questions that link to it."""
    names = "; ".join(q.label for q in questions)
    return (
        f"The section “{heading}” cannot be removed while questions link to it ({names}). "
        "Keep it (rename it or rewrite its text instead), or link those questions elsewhere first."
    )


def save_note(
    session: Session, actor: Viewer, slug: str, draft: NoteDraft, opened: int, why: str
) -> int:
    """Save a draft of a note as a new revision; return its number (the opened one when the
    draft changes nothing). Refuse a stale or faulty draft, writing nothing."""
    _may_edit(actor)
    note = _note(session, slug, lock=True)
    latest, _ = revisions.latest_note(session, note.id)
    if latest != opened:
        raise EditConflict(opened, latest, _changes(session, note.id, opened, latest), "note")
    draft = draft.tidied()
    problems = note_problems(why) + draft_problems(draft)
    problems += _removal_problems(note, draft, _linked(session, note.id))
    if problems:
        raise DraftRefused(problems)
    if draft == NoteDraft.of(revisions.note_content(note)):
        return latest
    _name_new_sections(draft, note)
    markdown = compose(draft)
    if [(s.anchor, s.heading) for s in split_sections(markdown).sections] != [
        (s.anchor, s.heading) for s in draft.sections
    ]:  # the checks above should make this impossible; refuse rather than lose a link
        raise DraftRefused([Problem("sections", "The sections could not be kept as written.")])
    note.title, note.body_md = draft.title, markdown
    note.revision += 1
    note.updated_at = utcnow()
    sync_sections(note, markdown)
    saved = revisions.record_note(session, note, actor.id, why.strip())
    bump_version(session)
    return saved or latest


def restore_note(
    session: Session, actor: Viewer, slug: str, number: int, opened: int, why: str
) -> int:
    """Save an old revision's text as a new revision; return its number."""
    _may_edit(actor)
    note = _note(session, slug)
    content = revisions.note_content_of(session, note.id, number)
    if content is None:
        raise NotFound("This note has no revision with that number.")
    why = why.strip() or f"Restored revision {number}"
    return save_note(session, actor, slug, NoteDraft.of(content), opened, why)


def _changes(session: Session, note_id: int, old: int, new: int) -> list[DiffLine]:
    before = revisions.note_content_of(session, note_id, old)
    after = revisions.note_content_of(session, note_id, new)
    if before is None or after is None:
        return []
    return revisions.note_diff(before, after)


@dataclass(frozen=True)
class NoteHistory:
    slug: str
    title: str
    revisions: list[RevisionView]


def note_history(session: Session, actor: Viewer, slug: str) -> NoteHistory:
    """A note's revisions, newest first (authors only)."""
    _may_edit(actor)
    note = _note(session, slug)
    return NoteHistory(note.slug, note.title, revisions.note_history(session, note.id))


def compare(session: Session, actor: Viewer, slug: str, old: int, new: int) -> list[DiffLine]:
    """What changed from one revision of a note to another (authors only)."""
    _may_edit(actor)
    note = _note(session, slug)
    before = revisions.note_content_of(session, note.id, old)
    after = revisions.note_content_of(session, note.id, new)
    if before is None or after is None:
        raise NotFound("This note has no revision with that number.")
    return revisions.note_diff(before, after)
