"""Study next: a short session mixing the reviews that are due with unseen questions from the
learner's weakest topics, so one button always leads to the most useful questions.

The session is a list of question ids carried in the address: nothing is stored until the
learner answers, and each answer is kept (and reviewed) like any practice answer.
"""

from collections.abc import Sequence
from datetime import datetime
from itertools import zip_longest

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from app.content.models import Question, Topic
from app.progress.library import Library
from app.progress.models import ReviewCard
from app.progress.queries import questions_standing, review_status, topic_mastery
from app.progress.read_models import ReviewStatus, SummaryQuestion

SESSION_SIZE = 10
WEAKEST_TOPICS = 3


def mix(due: Sequence[int], fresh: Sequence[int], size: int = SESSION_SIZE) -> tuple[int, ...]:
    """Interleave due reviews and unseen questions, up to size; either fills in for the other.

    While there is new ground to cover, reviews take at most half the session.
    """
    news = list(fresh[: size - min(len(due), size // 2)])
    reviews = list(due[: size - len(news)])
    merged = (qid for pair in zip_longest(reviews, news) for qid in pair if qid is not None)
    return tuple(dict.fromkeys(merged))[:size]


def due_questions(session: Session, user_id: int, now: datetime, limit: int) -> list[int]:
    """The learner's questions due now, the longest due first."""
    return list(
        session.scalars(
            select(ReviewCard.question_id)
            .where(ReviewCard.user_id == user_id, ReviewCard.due_at <= now)
            .order_by(ReviewCard.due_at, ReviewCard.question_id)
            .limit(limit)
        )
    )


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
        .where(Topic.slug.in_(topic_slugs), ~seen)
        .subquery()
    )
    rows = session.execute(
        select(ranked.c.id, ranked.c.slug).where(ranked.c.n <= limit).order_by(ranked.c.n)
    ).all()
    order = {slug: n for n, slug in enumerate(topic_slugs)}
    return [qid for qid, _ in sorted(rows, key=lambda row: order[row.slug])]


def plan(
    session: Session, user_id: int, now: datetime, library: Library | None = None
) -> tuple[int, ...]:
    """Choose the questions of a study session for the learner now (empty: nothing to study)."""
    mastery = topic_mastery(session, user_id, now, library)
    weakest = [t.slug for t in mastery if t.seen < t.questions]
    due = due_questions(session, user_id, now, SESSION_SIZE)
    fresh = unseen_questions(session, user_id, weakest[:WEAKEST_TOPICS], SESSION_SIZE)
    return mix(due, fresh)


def next_session(
    session: Session, user_id: int, now: datetime, library: Library | None = None
) -> tuple[tuple[int, ...], ReviewStatus | None]:
    """The questions of the learner's next session; with none to study, their review status."""
    ids = plan(session, user_id, now, library)
    return ids, None if ids else review_status(session, user_id, now)


def summary(
    session: Session, user_id: int, ids: tuple[int, ...], now: datetime
) -> tuple[tuple[SummaryQuestion, ...], ReviewStatus]:
    """How a session's questions stand (each one's latest answer), and the review status."""
    return questions_standing(session, user_id, ids), review_status(session, user_id, now)
