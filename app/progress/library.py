"""The library as progress measures learners against it: questions per set and topic, the
topics with questions of their own, and the exams with what each draws from.

It is catalogue data, the same for every learner, so a worker keeps it in the content cache
and reads it again only when the content changes; the dashboard then reads learners' rows only.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.content.blueprints import SHOWN_ORDER, ExamBlueprint
from app.content.models import Note, Question, QuestionSet, Topic
from app.content.queries import topic_subtrees
from app.progress.readiness import ExamPlan

CACHE_KEY = "progress-library"

_QUESTION_COUNTS = (
    select(
        Question.set_id,
        QuestionSet.slug,
        Question.topic_id,
        func.count(Question.id),
        func.min(Question.id),
    )
    .join(QuestionSet, QuestionSet.id == Question.set_id)
    .group_by(Question.set_id, QuestionSet.slug, Question.topic_id)
)
_TOPICS = select(
    Topic.id,
    Topic.slug,
    Topic.title,
    select(func.count(Note.id)).where(Note.topic_id == Topic.id).scalar_subquery(),
)
_BLUEPRINTS = select(
    ExamBlueprint.slug,
    ExamBlueprint.title,
    ExamBlueprint.pass_mark,
    ExamBlueprint.sets,
    ExamBlueprint.topics,
).order_by(*SHOWN_ORDER)


@dataclass(frozen=True)
class TopicInfo:
    """A topic with questions of its own: how to name it, its notes and its first question."""

    slug: str
    title: str
    note_count: int
    first_question_id: int


@dataclass(frozen=True)
class Library:
    """What the library holds, as every learner's progress is measured against it (read-only)."""

    # (set id, topic id) -> (set slug, questions); the topic is None for unfiled questions
    questions: Mapping[tuple[int, int | None], tuple[str, int]]
    topics: Mapping[int, TopicInfo]  # by topic id
    plans: tuple[ExamPlan, ...]


def load_library(session: Session) -> Library:
    """Read the question counts per set and topic, the topics, and the exam plans."""
    questions: dict[tuple[int, int | None], tuple[str, int]] = {}
    firsts: dict[int, int] = {}
    for set_id, slug, topic_id, count, first in session.execute(_QUESTION_COUNTS):
        questions[(set_id, topic_id)] = (slug, count)
        if topic_id is not None:
            firsts[topic_id] = min(first, firsts.get(topic_id, first))
    topics = {
        topic_id: TopicInfo(slug, title, notes, firsts[topic_id])
        for topic_id, slug, title, notes in session.execute(_TOPICS)
        if topic_id in firsts
    }
    return Library(questions, topics, exam_plans(session))


def exam_plans(session: Session) -> tuple[ExamPlan, ...]:
    """List the exams with the sets and topic subtrees each draws from."""
    rows = session.execute(_BLUEPRINTS).all()
    trees = topic_subtrees(session) if any(row.topics for row in rows) else {}
    return tuple(
        ExamPlan(
            slug,
            title,
            pass_mark,
            tuple(sets),
            tuple((w, frozenset(trees.get(t, ()))) for t, w in topics.items()),
        )
        for slug, title, pass_mark, sets, topics in rows
    )
