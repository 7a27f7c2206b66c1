"""Search questions and note sections: one query, two groups, best matches first."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.models import Topic
from app.search import queries
from app.search.read_models import NoteHit, QuestionHit, SearchResults
from app.search.terms import parse_query

KINDS = ("notes", "questions")


def search(
    session: Session,
    query: str,
    *,
    topic: str | None = None,
    kind: str | None = None,
    limit: int = 20,
) -> SearchResults:
    """Find note sections and questions matching every term, best first, in two groups."""
    terms = parse_query(query)
    topic_ids = _topic_ids(session, topic) if topic else None
    backend = queries.backend_for(session, terms)
    notes: tuple[NoteHit, ...] = ()
    questions: tuple[QuestionHit, ...] = ()
    note_total = question_total = 0
    if terms and topic_ids != []:
        if kind in (None, "notes"):
            notes, note_total = backend.notes(session, terms, topic_ids, limit)
        if kind in (None, "questions"):
            questions, question_total = backend.questions(session, terms, topic_ids, limit)
    return SearchResults(
        query=query,
        terms=tuple(term.text + ("*" if term.prefix else "") for term in terms),
        topic=topic,
        kind=kind,
        notes=notes,
        note_total=min(note_total, queries.TOTAL_CAP),
        questions=questions,
        question_total=min(question_total, queries.TOTAL_CAP),
        note_total_exact=note_total <= queries.TOTAL_CAP,
        question_total_exact=question_total <= queries.TOTAL_CAP,
        ranked=backend.ranks_all or max(note_total, question_total) <= queries.TOTAL_CAP,
    )


def _topic_ids(session: Session, slug: str) -> list[int]:
    """Return the ids of a topic and all its subtopics (none for an unknown topic)."""
    rows = session.execute(select(Topic.id, Topic.parent_id, Topic.slug)).all()
    found = [row.id for row in rows if row.slug == slug]
    children: dict[int | None, list[int]] = {}
    for row in rows:
        children.setdefault(row.parent_id, []).append(row.id)
    for topic_id in found:  # grows as it goes: a breadth-first walk down the tree
        found.extend(child for child in children.get(topic_id, ()) if child not in found)
    return found
