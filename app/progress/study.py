"""Study next: a short session mixing the reviews that are due with unseen questions from the
learner's weakest topics, so one button always leads to the most useful questions.

The session is a list of question ids carried in the address: nothing is stored until the
learner answers, and each answer is kept (and reviewed) like any practice answer.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import zip_longest
from typing import Any

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Select,
    case,
    exists,
    func,
    literal,
    null,
    or_,
    select,
    union_all,
)
from sqlalchemy.orm import Session, aliased

from app.content.errors import NotFound
from app.content.markdown import render_inline
from app.content.models import IN_USE, Question, QuestionSet, Topic
from app.content.queries import topic_subtrees
from app.progress.errors import UnknownWalk
from app.progress.library import Library
from app.progress.models import PracticeAnswer, ReviewCard, walk_name
from app.progress.queries import questions_standing, review_queue, review_status, topic_mastery
from app.progress.read_models import ReviewStatus, SummaryQuestion

SESSION_SIZE = 10
WEAKEST_TOPICS = 3
WALK_SIZE = 20  # the most questions an address carries (see `study_routes.Plan`)


def mix(due: Sequence[int], fresh: Sequence[int], size: int = SESSION_SIZE) -> tuple[int, ...]:
    """Interleave due reviews and unseen questions, up to size; either fills in for the other.

    While there is new ground to cover, reviews take at most half the session.
    """
    news = list(fresh[: size - min(len(due), size // 2)])
    reviews = list(due[: size - len(news)])
    merged = (qid for pair in zip_longest(reviews, news) for qid in pair if qid is not None)
    return tuple(dict.fromkeys(merged))[:size]


def due_questions(
    session: Session, user_id: int, now: datetime, zone: str, limit: int
) -> list[int]:
    """The first of the learner's review queue now, within the day's limits: the reviews
    due (longest due first), then the new ones."""
    return review_queue(session, user_id, now, zone, limit)[1]


def unseen_questions(
    session: Session, user_id: int, topic_slugs: Sequence[str], limit: int
) -> list[int]:
    """Up to `limit` questions the learner never answered in each topic, in the topics' order."""
    if not topic_slugs:
        return []
    seen = exists().where(ReviewCard.user_id == user_id, ReviewCard.question_id == Question.id)
    rank = func.row_number().over(
        partition_by=Question.topic_id, order_by=(Question.set_id, Question.position, Question.id)
    )
    ranked = (
        select(Question.id, Topic.slug, rank.label("n"))
        .join(Topic, Topic.id == Question.topic_id)
        .where(Topic.slug.in_(topic_slugs), ~seen, IN_USE)
        .subquery()
    )
    rows = session.execute(
        select(ranked.c.id, ranked.c.slug).where(ranked.c.n <= limit).order_by(ranked.c.n)
    ).all()
    order = {slug: n for n, slug in enumerate(topic_slugs)}
    return [qid for qid, _ in sorted(rows, key=lambda row: order[row.slug])]


def plan(
    session: Session, user_id: int, now: datetime, zone: str, library: Library | None = None
) -> tuple[int, ...]:
    """Choose the questions of a study session for the learner now (empty: nothing to study)."""
    mastery = topic_mastery(session, user_id, now, library)
    weakest = [t.slug for t in mastery if t.seen < t.questions]
    due = due_questions(session, user_id, now, zone, SESSION_SIZE)
    fresh = unseen_questions(session, user_id, weakest[:WEAKEST_TOPICS], SESSION_SIZE)
    return mix(due, fresh)


def next_session(
    session: Session, user_id: int, now: datetime, zone: str, library: Library | None = None
) -> tuple[tuple[int, ...], ReviewStatus | None]:
    """The questions of the learner's next session; with none to study, their review status."""
    ids = plan(session, user_id, now, zone, library)
    return ids, None if ids else review_status(session, user_id, now, zone)


def summary(
    session: Session, user_id: int, ids: tuple[int, ...], now: datetime, zone: str
) -> tuple[tuple[SummaryQuestion, ...], ReviewStatus]:
    """How a session's questions stand (each one's latest answer), and the review status."""
    status = review_status(session, user_id, now, zone)
    return questions_standing(session, user_id, ids), status


def _card(user_id: int) -> ColumnElement[bool]:
    """Join condition: the learner's card for a question."""
    return (ReviewCard.question_id == Question.id) & (ReviewCard.user_id == user_id)


def walk_title(session: Session, kind: str, slug: str) -> str:
    """Name what a walk goes through: a topic ("topic"), or a set (its wrong answers).

    The name comes from the address's query, so one that names nothing is refused as input."""
    model = Topic if kind == "topic" else QuestionSet
    title = session.scalar(select(model.title).where(model.slug == slug))
    if title is None:
        what = "topic" if kind == "topic" else "question set"
        raise UnknownWalk(f"This practice names a {what} that does not exist: “{slug}”.")
    return title


def topic_walk(session: Session, user_id: int | None, slug: str) -> tuple[int, ...]:
    """The questions to practise in a topic and its subtopics, up to WALK_SIZE, in set order;
    for a learner the unanswered ones first, then those last answered wrong, then the rest."""
    subtree = topic_subtrees(session).get(slug)
    if subtree is None:
        raise NotFound(f"There is no topic called “{slug}”.")
    query = (
        select(Question.id)
        .join(QuestionSet, QuestionSet.id == Question.set_id)
        .where(Question.topic_id.in_(subtree), IN_USE)
        .limit(WALK_SIZE)
    )
    if user_id is not None:
        answered = case(
            (ReviewCard.id.is_(None), 0), (ReviewCard.last_correct.is_(False), 1), else_=2
        )
        query = query.outerjoin(ReviewCard, _card(user_id)).order_by(answered)
    ids = tuple(session.scalars(query.order_by(QuestionSet.slug, Question.position, Question.id)))
    if not ids:
        raise NotFound("This topic has no questions yet.")
    return ids


def wrong_walk(session: Session, user_id: int, set_slug: str) -> tuple[int, ...]:
    """The set's questions whose latest answer was wrong, in set order, up to WALK_SIZE."""
    if session.scalar(select(QuestionSet.id).where(QuestionSet.slug == set_slug)) is None:
        raise NotFound(f"There is no question set called “{set_slug}”.")
    return tuple(
        session.scalars(
            select(Question.id)
            .join(QuestionSet, QuestionSet.id == Question.set_id)
            .join(ReviewCard, _card(user_id))
            .where(QuestionSet.slug == set_slug, ReviewCard.last_correct.is_(False), IN_USE)
            .order_by(Question.position, Question.id)
            .limit(WALK_SIZE)
        )
    )


def walk_summary(
    session: Session, user_id: int | None, ids: tuple[int, ...]
) -> tuple[SummaryQuestion, ...]:
    """How a walk's questions stand (each one's latest answer); a guest's are not known."""
    if user_id is not None:
        return questions_standing(session, user_id, ids)
    query = select(Question.id, Question.stem_md).where(Question.id.in_(ids))
    stems = {row.id: row.stem_md for row in session.execute(query)}
    found = [qid for qid in ids if qid in stems]
    return tuple(
        SummaryQuestion(qid, n, render_inline(stems[qid]), None)
        for n, qid in enumerate(found, start=1)
    )


@dataclass(frozen=True)
class SetResume:
    """Where a learner is in a set: how many answered, and the first question not answered."""

    slug: str
    title: str
    answered: int
    total: int
    next_id: int | None
    next_position: int | None


@dataclass(frozen=True)
class TopicResume:
    """Where a learner is in the topic whose walk they practised last (with its subtopics)."""

    slug: str
    title: str
    answered: int
    total: int


@dataclass(frozen=True)
class HomeResumes:
    """Where a learner is in the home page's sets, and in the set or topic they practised last:
    the topic when their latest practice answer was given in its walk, else the set."""

    sets: dict[str, SetResume]
    last: SetResume | None
    topic: TopicResume | None = None


def _resumes(user_id: int) -> Select[Any]:
    """Each set's slug and title, the learner's answers in it and its first question not
    answered (looked up in the set's order index)."""
    in_set = Question.set_id == QuestionSet.id
    answered = (
        select(func.count(ReviewCard.id))
        .join(Question, _card(user_id))
        .where(in_set)
        .correlate(QuestionSet)
        .scalar_subquery()
    )
    unseen = ~exists().where(_card(user_id))
    first_id = (
        select(Question.id)
        .where(in_set, unseen, IN_USE)
        .order_by(Question.position, Question.id)
        .limit(1)
        .correlate(QuestionSet)
        .scalar_subquery()
    )
    found = aliased(Question)
    ordinal = select(found.ordinal).where(found.id == first_id).scalar_subquery()
    return select(
        QuestionSet.slug, QuestionSet.title, answered, QuestionSet.question_count, first_id, ordinal
    )


def set_resume(session: Session, user_id: int, set_slug: str) -> SetResume:
    """Count the learner's answers in a set, and find the first question not answered."""
    row = session.execute(_resumes(user_id).where(QuestionSet.slug == set_slug)).one_or_none()
    return SetResume(*row) if row else SetResume(set_slug, "", 0, 0, None, None)


def _latest_answer(user_id: int) -> Any:
    """The learner's latest practice answer: the walk it was given in and its question's set."""
    return (
        select(PracticeAnswer.walk, Question.set_id)
        .join(Question, Question.id == PracticeAnswer.question_id)
        .where(PracticeAnswer.user_id == user_id, PracticeAnswer.source == "practice")
        .order_by(PracticeAnswer.answered_at.desc(), PracticeAnswer.id.desc())
        .limit(1)
        .cte("latest")
    )


def _topic_resume(user_id: int, latest: Any) -> Select[Any]:
    """The topic whose walk the latest answer was given in, shaped as a `_resumes` row: its
    questions and the learner's answers among them, subtopics included (none when the latest
    answer was given elsewhere)."""
    walked = latest.c.walk == literal(walk_name("topic", "")).concat(Topic.slug)
    tree = select(Topic.id).join(latest, walked).cte("walked_topic", recursive=True)
    tree = tree.union(select(Topic.id).where(Topic.parent_id == tree.c.id))  # UNION: no cycles
    in_tree = Question.topic_id.in_(select(tree.c.id))
    total = select(func.count(Question.id)).where(in_tree).scalar_subquery()
    answered = (
        select(func.count(ReviewCard.id)).join(Question, _card(user_id)).where(in_tree)
    ).scalar_subquery()
    return select(Topic.slug, Topic.title, answered, total, null(), null(), literal("topic")).join(
        latest, walked
    )


def home_resumes(session: Session, user_id: int, set_slugs: Sequence[str]) -> HomeResumes:
    """Find where the learner is in each of these sets, and in the topic or set of their latest
    practice answer: the topic whose walk it was given in, or else its set when that has
    questions left to answer (one query)."""
    latest = _latest_answer(user_id)
    last_set = select(latest.c.set_id).scalar_subquery()
    kind = case((QuestionSet.id == last_set, literal("last")), else_=literal("set"))
    sets = (
        _resumes(user_id)
        .add_columns(kind)
        .where(or_(QuestionSet.slug.in_(set_slugs), QuestionSet.id == last_set))
    )
    statement: CompoundSelect[Any] = union_all(sets, _topic_resume(user_id, latest))
    rows = session.execute(statement).all()
    resumes = {row[0]: SetResume(*row[:-1]) for row in rows if row[-1] != "topic"}
    topic = next((TopicResume(*row[:4]) for row in rows if row[-1] == "topic"), None)
    last = next((resumes[row[0]] for row in rows if row[-1] == "last"), None)
    if topic is not None or (last is not None and not last.next_id):
        last = None
    return HomeResumes(resumes, last, topic)
