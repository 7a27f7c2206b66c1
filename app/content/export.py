"""Export all content as one JSON document ("studyhall.content/1")."""

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload, selectinload

from app.content.blueprints import export_blueprints
from app.content.models import Note, NoteSection, Question, QuestionNoteLink, QuestionSet, Topic

FORMAT = "studyhall.content/1"


def export_content(session: Session) -> dict[str, Any]:
    """Build the export document; importing it reproduces the same content."""
    topics = session.scalars(
        select(Topic).options(joinedload(Topic.parent)).order_by(Topic.position, Topic.id)
    ).all()
    sets = session.scalars(
        select(QuestionSet).options(joinedload(QuestionSet.topic)).order_by(QuestionSet.slug)
    ).all()
    questions = session.scalars(
        select(Question)
        .options(
            joinedload(Question.question_set),
            joinedload(Question.topic),
            selectinload(Question.choices),
            selectinload(Question.references),
        )
        .join(QuestionSet, Question.set_id == QuestionSet.id)
        .order_by(QuestionSet.slug, Question.position)
    ).all()
    notes = session.scalars(select(Note).options(joinedload(Note.topic)).order_by(Note.slug)).all()
    links = _explicit_links(session)
    return {
        "format": FORMAT,
        "topics": [
            {
                "slug": t.slug,
                "title": t.title,
                "parent": t.parent.slug if t.parent else None,
                "description": t.description_md,
            }
            for t in topics
        ],
        "question_sets": [
            {"slug": s.slug, "title": s.title, "source": s.source, "topic": _slug(s.topic)}
            for s in sets
        ],
        "questions": [_question(q, links) for q in questions],
        "notes": [
            {
                "slug": n.slug,
                "title": n.title,
                "author": n.author,
                "topic": _slug(n.topic),
                "source": n.source,
                "markdown": n.body_md,
            }
            for n in notes
        ],
        "exams": export_blueprints(session),
    }


def _slug(topic: Topic | None) -> str | None:
    return topic.slug if topic is not None else None


def _explicit_links(session: Session) -> dict[int, list[str]]:
    rows = session.execute(
        select(QuestionNoteLink.question_id, Note.slug, NoteSection.anchor)
        .join(NoteSection, QuestionNoteLink.section_id == NoteSection.id)
        .join(Note)
        .where(QuestionNoteLink.origin == "explicit")
        .order_by(QuestionNoteLink.id)
    ).all()
    links: dict[int, list[str]] = {}
    for question_id, slug, anchor in rows:
        links.setdefault(question_id, []).append(f"{slug}#{anchor}")
    return links


def _question(question: Question, links: dict[int, list[str]]) -> dict[str, Any]:
    return {
        "id": f"{question.question_set.slug}/{question.key}",
        "set": question.question_set.slug,
        "topic": _slug(question.topic),
        "stem": question.stem_md,
        "choices": [
            {"text": c.text_md, "correct": c.is_correct}
            | ({"feedback": c.feedback_md} if c.feedback_md else {})
            | ({"fixed": True} if c.keeps_place else {})
            for c in question.choices
        ],
        "explanation": question.explanation_md,
        "kind": question.kind,
        "source": question.source,
        "notes": links.get(question.id, []),
        "references": [
            {"title": r.title, "url": r.url, "version": r.version} for r in question.references
        ],
        "versions": question.versions,
        "difficulty": question.difficulty,
        "level": question.level,
        "accepted": question.accepted,
    }
