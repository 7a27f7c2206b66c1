"""The questions an export holds, read in a fixed number of queries, as plain values."""

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, and_, or_, select
from sqlalchemy.orm import Session, joinedload, selectinload

from app.content.models import Question, QuestionSet, Topic
from app.exporters.errors import UnknownSelection


@dataclass(frozen=True)
class ExportedChoice:
    text: str
    correct: bool
    feedback: str = ""  # Markdown, shown under the choice after answering


@dataclass(frozen=True)
class ExportedReference:
    url: str
    title: str | None


@dataclass(frozen=True)
class ExportedQuestion:
    """A question with what every export format can say of it."""

    id: str  # "set-slug/key", as in the JSON export
    set_slug: str
    set_title: str
    topic: str | None  # the topic's slug
    topic_path: tuple[str, ...]  # the titles from the root topic down to the question's
    stem: str
    choices: tuple[ExportedChoice, ...]
    explanation: str
    kind: str  # single or multi
    references: tuple[ExportedReference, ...]


def read_questions(
    session: Session,
    sets: list[str] | None = None,
    topic: str | None = None,
    only: Select[Any] | None = None,
) -> list[ExportedQuestion]:
    """Read the questions of the given sets (all without), under a topic and its subtopics;
    with `only`, a query of question ids, just those."""
    topics = {t.id: t for t in session.scalars(select(Topic))}
    query = (
        select(Question)
        .options(
            joinedload(Question.question_set),
            selectinload(Question.choices),
            selectinload(Question.references),
        )
        .join(QuestionSet, Question.set_id == QuestionSet.id)
        .order_by(QuestionSet.slug, Question.position)
    )
    if only is not None:
        query = query.where(Question.id.in_(only))
    if sets:
        found = set(session.scalars(select(QuestionSet.slug).where(QuestionSet.slug.in_(sets))))
        missing = [slug for slug in sets if slug not in found]
        if missing:
            raise UnknownSelection(f"no question set has the slug {missing[0]!r}")
        query = query.where(QuestionSet.slug.in_(sets))
    if topic is not None:
        under = _subtree(topics, topic)  # a question without a topic has its set's
        query = query.where(
            or_(
                Question.topic_id.in_(under),
                and_(Question.topic_id.is_(None), QuestionSet.topic_id.in_(under)),
            )
        )
    return [_question(q, topics) for q in session.scalars(query)]


def _subtree(topics: dict[int, Topic], slug: str) -> set[int]:
    """The ids of the topic with slug and of every topic under it."""
    root = next((t.id for t in topics.values() if t.slug == slug), None)
    if root is None:
        raise UnknownSelection(f"no topic has the slug {slug!r}")
    children: dict[int | None, list[int]] = {}
    for t in topics.values():
        children.setdefault(t.parent_id, []).append(t.id)
    found, todo = set(), [root]
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            todo.extend(children.get(current, []))
    return found


def _path(topics: dict[int, Topic], topic_id: int | None) -> tuple[str, ...]:
    """The titles from the root down to the topic (a loop in the tree is cut where it closes)."""
    path: list[str] = []
    seen: set[int] = set()
    while topic_id is not None and topic_id in topics and topic_id not in seen:
        seen.add(topic_id)
        path.append(topics[topic_id].title)
        topic_id = topics[topic_id].parent_id
    return tuple(reversed(path))


def _question(question: Question, topics: dict[int, Topic]) -> ExportedQuestion:
    qset = question.question_set
    topic_id = question.topic_id if question.topic_id is not None else qset.topic_id
    return ExportedQuestion(
        id=f"{qset.slug}/{question.key}",
        set_slug=qset.slug,
        set_title=qset.title,
        topic=topics[topic_id].slug if topic_id in topics else None,
        topic_path=_path(topics, topic_id),
        stem=question.stem_md,
        choices=tuple(
            ExportedChoice(c.text_md, c.is_correct, c.feedback_md) for c in question.choices
        ),
        explanation=question.explanation_md,
        kind=question.kind,
        references=tuple(ExportedReference(r.url, r.title) for r in question.references),
    )
