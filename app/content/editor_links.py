"""The note sections a question links to, as the question editor sets them.

The editor's links are explicit links, like those a catalog import names: a save makes them
exactly the sections listed, through the writer imports use (`upserts.replace_links`).
Where an author has already decided on a pair (`LinkDecision`, from confirming or rejecting a
suggestion), the save keeps that decision true, as deciding does: a confirmed link removed
becomes rejected, a rejected pair linked again becomes confirmed. Pairs without a decision
get none, as an import's links get none.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content.checks import Problem
from app.content.models import LinkDecision, Note, NoteSection, QuestionNoteLink
from app.content.upserts import replace_links
from app.db import utcnow

MAX_LINKS = 50  # a question's explicit links
MAX_FOUND = 10  # sections a search lists
SEARCH_MAX = 100  # characters a search takes


@dataclass(frozen=True)
class SectionOption:
    id: int
    ref: str  # "note-slug#anchor"
    slug: str
    anchor: str
    note_title: str
    heading: str


@dataclass(frozen=True)
class SectionSearch:
    q: str
    found: list[SectionOption]
    message: str | None  # why nothing was looked up (empty or too long)


def _options(rows: Sequence[tuple[int, str, str, str, str]]) -> list[SectionOption]:
    return [SectionOption(i, f"{s}#{a}", s, a, title, heading) for i, s, a, title, heading in rows]


_COLUMNS = (NoteSection.id, Note.slug, NoteSection.anchor, Note.title, NoteSection.heading)


def find_sections(session: Session, actor: Viewer, q: str) -> SectionSearch:
    """The first few note sections whose heading holds q, in any case (authors only)."""
    if not actor.may("author"):
        raise PermissionDenied("Only authors can link questions to notes.")
    q = " ".join(q.split())
    if not q:
        return SectionSearch(q, [], "Type part of a section's heading.")
    if len(q) > SEARCH_MAX:
        return SectionSearch(q, [], f"Type at most {SEARCH_MAX} characters.")
    rows = session.execute(
        select(*_COLUMNS)
        .join(Note, Note.id == NoteSection.note_id)
        .where(NoteSection.heading.icontains(q, autoescape=True))
        .order_by(Note.title, NoteSection.position)
        .limit(MAX_FOUND)
    ).all()
    return SectionSearch(q, _options(rows), None)


def sections_named(session: Session, refs: Sequence[str]) -> dict[str, SectionOption]:
    """The note sections among refs ("note-slug#anchor") that exist, by ref."""
    keys = {ref.partition("#")[::2] for ref in refs if "#" in ref}
    if not keys:
        return {}
    slugs = {slug for slug, _ in keys}
    rows = session.execute(
        select(*_COLUMNS).join(Note, Note.id == NoteSection.note_id).where(Note.slug.in_(slugs))
    ).all()
    return {o.ref: o for o in _options(rows) if (o.slug, o.anchor) in keys}


def link_problems(refs: Sequence[str], known: dict[str, SectionOption]) -> list[Problem]:
    """Name each ref that is no note section, and too many links."""
    problems = [
        Problem(
            "links",
            f"There is no note section “{ref}”: choose one of the sections a search finds, "
            "or give it as note-slug#anchor.",
        )
        for ref in refs
        if ref not in known
    ]
    if len(refs) > MAX_LINKS:
        problems.append(Problem("links", f"A question links to at most {MAX_LINKS} sections."))
    return problems


def explicit_links(session: Session, question_id: int) -> set[int]:
    """The sections a question links to explicitly."""
    return set(
        session.scalars(
            select(QuestionNoteLink.section_id).where(
                QuestionNoteLink.question_id == question_id, QuestionNoteLink.origin == "explicit"
            )
        )
    )


def set_links(session: Session, actor_id: int | None, question_id: int, refs: list[str]) -> None:
    """Make the question's explicit links exactly the sections named (all known)."""
    sections = sections_named(session, refs)
    ids = [sections[ref].id for ref in dict.fromkeys(refs)]
    before = explicit_links(session, question_id)
    replace_links(session, {question_id: ids})
    for sections_changed, old, new in (
        (before - set(ids), "confirmed", "rejected"),
        (set(ids) - before, "rejected", "confirmed"),
    ):
        if sections_changed:
            session.execute(
                update(LinkDecision)
                .where(
                    LinkDecision.question_id == question_id,
                    LinkDecision.section_id.in_(sections_changed),
                    LinkDecision.decision == old,
                )
                .values(decision=new, decided_by_id=actor_id, decided_at=utcnow())
            )
