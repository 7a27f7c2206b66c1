"""Question revisions: what each save left, who saved it, when and why; compare two.

A revision's content is the question as an author wrote it (`snapshots`): stem, choices with
their marks and feedback, explanation, references, topic, the note sections it links to and
its scope. Every save that changes it keeps one (`record`); a save that changes nothing
keeps none.
"""

import difflib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.content.models import (
    Choice,
    Note,
    NoteRevision,
    NoteSection,
    Question,
    QuestionNoteLink,
    QuestionRevision,
    Topic,
)
from app.content.upserts import stored_references
from app.db import utcnow

NOTE_MAX = 200  # why a revision was saved: a short note, like a commit's first line
Content = dict[str, Any]


@dataclass(frozen=True)
class RevisionView:
    number: int
    author: str | None  # None: saved from the command line (or the author's account is gone)
    saved_at: datetime
    note: str


def snapshots(session: Session, ids: list[int]) -> dict[int, Content]:
    """The authored content of each question named, as a revision keeps it."""
    choices: dict[int, list[dict[str, Any]]] = {}
    for qid, text, correct, feedback, fixed in session.execute(
        select(
            Choice.question_id,
            Choice.text_md,
            Choice.is_correct,
            Choice.feedback_md,
            Choice.keeps_place,
        )
        .where(Choice.question_id.in_(ids))
        .order_by(Choice.question_id, Choice.position)
    ):
        choices.setdefault(qid, []).append(
            {"text": text, "correct": bool(correct), "feedback": feedback, "fixed": bool(fixed)}
        )
    references = stored_references(session, ids)
    notes: dict[int, list[str]] = {}
    for qid, slug, anchor in session.execute(
        select(QuestionNoteLink.question_id, Note.slug, NoteSection.anchor)
        .join(NoteSection, NoteSection.id == QuestionNoteLink.section_id)
        .join(Note, Note.id == NoteSection.note_id)
        .where(QuestionNoteLink.question_id.in_(ids), QuestionNoteLink.origin == "explicit")
    ):
        notes.setdefault(qid, []).append(f"{slug}#{anchor}")
    found = {}
    for q, topic in session.execute(
        select(Question, Topic.slug)
        .outerjoin(Topic, Topic.id == Question.topic_id)
        .where(Question.id.in_(ids))
    ):
        found[q.id] = {
            "stem": q.stem_md,
            "explanation": q.explanation_md,
            "kind": q.kind,
            "choices": choices.get(q.id, []),
            "references": [
                {"url": r.url, "title": r.title, "version": r.version}
                for r in references.get(q.id, [])
            ],
            "topic": topic,
            "notes": sorted(notes.get(q.id, [])),
            "versions": list(q.versions or []),
            "difficulty": q.difficulty,
            "level": q.level,
            "accepted": list(q.accepted or []),
        }
    return found


def latest(session: Session, ids: list[int]) -> dict[int, tuple[int, Content]]:
    """Each question's newest revision: (number, content); questions without one left out."""
    newest = (
        select(QuestionRevision.question_id, func.max(QuestionRevision.number).label("number"))
        .where(QuestionRevision.question_id.in_(ids))
        .group_by(QuestionRevision.question_id)
        .subquery()
    )
    rows = session.execute(
        select(
            QuestionRevision.question_id, QuestionRevision.number, QuestionRevision.content
        ).join(
            newest,
            (newest.c.question_id == QuestionRevision.question_id)
            & (newest.c.number == QuestionRevision.number),
        )
    )
    return {qid: (number, content) for qid, number, content in rows}


def record(session: Session, ids: list[int], author_id: int | None, note: str) -> dict[int, int]:
    """Keep a revision of each question named whose content differs from its newest one.

    Return id -> the new revision's number, for the questions revised.
    """
    if not ids:
        return {}
    session.flush()
    now = utcnow()
    contents, kept = snapshots(session, ids), latest(session, ids)
    numbers, rows = {}, []
    for qid, content in contents.items():
        number, before = kept.get(qid, (0, None))
        if before == content:
            continue
        numbers[qid] = number + 1
        rows.append(
            {
                "question_id": qid,
                "number": number + 1,
                "author_id": author_id,
                "saved_at": now,
                "note": note[:NOTE_MAX],
                "content": content,
            }
        )
    if rows:
        session.execute(insert(QuestionRevision), rows)
    return numbers


def history(session: Session, question_id: int) -> list[RevisionView]:
    """A question's revisions, newest first."""
    rows = session.execute(
        select(
            QuestionRevision.number,
            User.username,
            QuestionRevision.saved_at,
            QuestionRevision.note,
        )
        .outerjoin(User, User.id == QuestionRevision.author_id)
        .where(QuestionRevision.question_id == question_id)
        .order_by(QuestionRevision.number.desc())
    )
    return [RevisionView(*row) for row in rows]


def content_of(session: Session, question_id: int, number: int) -> Content | None:
    """The content a revision kept, or None when the question has no such revision."""
    return session.scalar(
        select(QuestionRevision.content).where(
            QuestionRevision.question_id == question_id, QuestionRevision.number == number
        )
    )


@dataclass(frozen=True)
class DiffLine:
    change: str  # "added", "removed" or "same"
    text: str


def as_lines(content: Content) -> list[str]:
    """A revision's content as labelled lines, in the order the editor shows its fields."""
    lines = [f"Stem: {line}" for line in content["stem"].splitlines() or [""]]
    lines.append(f"Kind: {content['kind']}")
    for n, choice in enumerate(content["choices"], start=1):
        mark = ("right" if choice["correct"] else "wrong") + (
            ", keeps its place" if choice.get("fixed") else ""
        )
        lines += [f"Choice {n} ({mark}): {line}" for line in choice["text"].splitlines() or [""]]
        if choice.get("feedback"):
            lines += [f"Feedback {n}: {line}" for line in choice["feedback"].splitlines()]
    lines += [f"Explanation: {line}" for line in content["explanation"].splitlines()]
    for n, ref in enumerate(content["references"], start=1):
        parts = [ref["url"], ref.get("title") or "", ref.get("version") or ""]
        lines.append(f"Reference {n}: " + " | ".join(p for p in parts if p))
    lines.append(f"Topic: {content['topic'] or '(none)'}")
    lines.append(f"Linked sections: {', '.join(content['notes']) or '(none)'}")
    lines.append(f"Difficulty: {content['difficulty'] or '(not set)'}")
    lines.append(f"Level: {content['level'] or '(not set)'}")
    lines.append(f"Versions: {', '.join(content['versions']) or '(none)'}")
    return lines


def diff(old: Content, new: Content) -> list[DiffLine]:
    """The lines of old and new, each marked added, removed or the same (old first)."""
    return diff_lines(as_lines(old), as_lines(new))


def diff_lines(old: list[str], new: list[str]) -> list[DiffLine]:
    """Lines of old and new, each marked added, removed or the same (old first)."""
    result = []
    for line in difflib.ndiff(old, new):
        tag, text = line[:2], line[2:]
        if tag == "? ":
            continue
        change = {"+ ": "added", "- ": "removed"}.get(tag, "same")
        result.append(DiffLine(change, text))
    return result


# Notes: a revision keeps the title and the Markdown (whose headings name moved anchors).


def note_content(note: Note) -> Content:
    """A note's text as a revision keeps it."""
    return {"title": note.title, "markdown": note.body_md}


def latest_note(session: Session, note_id: int) -> tuple[int, Content | None]:
    """A note's newest revision: (number, content), or (0, None) when it has none."""
    row = session.execute(
        select(NoteRevision.number, NoteRevision.content)
        .where(NoteRevision.note_id == note_id)
        .order_by(NoteRevision.number.desc())
        .limit(1)
    ).first()
    return (row[0], row[1]) if row else (0, None)


def record_note(session: Session, note: Note, author_id: int | None, why: str) -> int | None:
    """Keep a revision of a note when its text differs from its newest; return its number."""
    session.flush()
    number, before = latest_note(session, note.id)
    content = note_content(note)
    if before == content:
        return None
    session.add(
        NoteRevision(
            note_id=note.id,
            number=number + 1,
            author_id=author_id,
            saved_at=utcnow(),
            note=why[:NOTE_MAX],
            content=content,
        )
    )
    session.flush()
    return number + 1


def note_history(session: Session, note_id: int) -> list[RevisionView]:
    """A note's revisions, newest first."""
    rows = session.execute(
        select(NoteRevision.number, User.username, NoteRevision.saved_at, NoteRevision.note)
        .outerjoin(User, User.id == NoteRevision.author_id)
        .where(NoteRevision.note_id == note_id)
        .order_by(NoteRevision.number.desc())
    )
    return [RevisionView(*row) for row in rows]


def note_content_of(session: Session, note_id: int, number: int) -> Content | None:
    """The text a note's revision kept, or None when the note has no such revision."""
    return session.scalar(
        select(NoteRevision.content).where(
            NoteRevision.note_id == note_id, NoteRevision.number == number
        )
    )


def note_diff(old: Content, new: Content) -> list[DiffLine]:
    """What changed in a note's text, line by line (the title first)."""

    def lines(content: Content) -> list[str]:
        return [f"Title: {content['title']}", *content["markdown"].splitlines()]

    return diff_lines(lines(old), lines(new))
