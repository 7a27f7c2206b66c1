"""Read queries behind the progress pages and API; each reads one learner's rows only."""

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import bindparam, case, func, select
from sqlalchemy.orm import Session

from app.content.errors import NotFound
from app.content.markdown import render_inline
from app.content.models import Note, NoteSection, Question, QuestionNoteLink, QuestionSet, Topic
from app.progress import service
from app.progress.models import PracticeAnswer, ReviewCard
from app.progress.read_models import (
    Dashboard,
    ReviewStatus,
    SectionToRead,
    SetSummary,
    SetTally,
    SummaryQuestion,
    TopicMastery,
)


def end_of_day(now: datetime) -> datetime:
    """Return the start of the next day (UTC), where "today" ends."""
    return datetime.combine(now.date() + timedelta(days=1), time(), tzinfo=now.tzinfo)


def review_status(session: Session, user_id: int, now: datetime) -> ReviewStatus:
    """Count a learner's questions due now and today, and find when the next one is due."""
    due = ReviewCard.due_at
    row = session.execute(
        select(
            func.count().filter(due <= now),
            func.count().filter(due < end_of_day(now)),
            func.min(due).filter(due > now),
        ).where(ReviewCard.user_id == user_id)
    ).one()
    return ReviewStatus(due_now=row[0], due_today=row[1], next_due_at=row[2])


def next_due_question(session: Session, user_id: int, now: datetime) -> int | None:
    """Return the id of the learner's question that has been due longest, if any is due."""
    return session.scalar(
        select(ReviewCard.question_id)
        .where(ReviewCard.user_id == user_id, ReviewCard.due_at <= now)
        .order_by(ReviewCard.due_at, ReviewCard.question_id)
        .limit(1)
    )


def review_page(session: Session, user_id: int, now: datetime) -> tuple[ReviewStatus, int | None]:
    """Gather the review status and the question to review first."""
    return review_status(session, user_id, now), next_due_question(session, user_id, now)


def _cards_per_topic(
    session: Session, user_id: int, now: datetime
) -> dict[int, tuple[int, int, float]]:
    """Map topic id to (questions seen, latest answer right, predicted recall now summed).

    A learner has one card per question they answered, holding the outcome of the latest
    answer, so this reads the learner's cards and never their whole answer history.
    """
    rows = session.execute(
        select(
            Question.topic_id,
            ReviewCard.last_correct,
            ReviewCard.state,
            ReviewCard.step,
            ReviewCard.stability,
            ReviewCard.difficulty,
            ReviewCard.last_review_at,
        )
        .join(Question, Question.id == ReviewCard.question_id)
        .where(ReviewCard.user_id == user_id, Question.topic_id.is_not(None))
    ).all()
    found: dict[int, tuple[int, int, float]] = {}
    for row in rows:
        chance = service.retrievability(
            row.state, row.step, row.stability, row.difficulty, row.last_review_at, now
        )
        seen, right, recall = found.get(row.topic_id, (0, 0, 0.0))
        found[row.topic_id] = (seen + 1, right + row.last_correct, recall + chance)
    return found


def topic_mastery(session: Session, user_id: int, now: datetime) -> tuple[TopicMastery, ...]:
    """Measure the learner in every topic that has questions of its own, weakest first."""
    notes = select(func.count(Note.id)).where(Note.topic_id == Topic.id).scalar_subquery()
    topics = session.execute(
        select(Topic.id, Topic.slug, Topic.title, func.count(Question.id), func.min(Question.id))
        .add_columns(notes)
        .join(Question, Question.topic_id == Topic.id)
        .group_by(Topic.id, Topic.slug, Topic.title)
    ).all()
    cards = _cards_per_topic(session, user_id, now)
    found = []
    for topic_id, slug, title, questions, first, note_count in topics:
        seen, right, recall = cards.get(topic_id, (0, 0, 0.0))
        found.append(
            TopicMastery(slug, title, questions, seen, right, recall, seen, first, note_count)
        )
    return tuple(sorted(found, key=lambda t: (t.mastery, t.accuracy or 0.0, t.title)))


def _day(session: Session, column: Any) -> Any:
    """The UTC calendar day of a timestamp column, in SQL."""
    if session.get_bind().dialect.name == "postgresql":
        return func.date(func.timezone("UTC", column))
    return func.date(column)  # SQLite keeps UTC timestamps as text


def answers_per_day(session: Session, user_id: int) -> dict[date, int]:
    """Count the learner's practice answers on each day (UTC) they studied."""
    day = _day(session, PracticeAnswer.answered_at)
    rows = session.execute(
        select(day, func.count()).where(PracticeAnswer.user_id == user_id).group_by(day)
    ).all()
    return {date.fromisoformat(str(value)): count for value, count in rows}


def dashboard(session: Session, user_id: int, now: datetime, weeks: int = 12) -> Dashboard:
    """Gather a learner's dashboard: reviews, mastery per topic, activity and streak."""
    per_day = answers_per_day(session, user_id)
    today = now.astimezone(UTC).date()
    return Dashboard(
        review=review_status(session, user_id, now),
        topics=topic_mastery(session, user_id, now),
        weeks=service.calendar(per_day, today, weeks),
        streak_days=service.streak(per_day, today),
        days_studied=len(per_day),
        answers=sum(per_day.values()),
    )


# Built once: the question page asks it for every logged-in view, and building a statement
# costs more than running it.
_SET_TALLY = (
    select(func.count(), func.coalesce(func.sum(case((ReviewCard.last_correct, 1), else_=0)), 0))
    .select_from(ReviewCard)
    .join(Question, Question.id == ReviewCard.question_id)
    .join(QuestionSet, QuestionSet.id == Question.set_id)
    .where(ReviewCard.user_id == bindparam("user_id"), QuestionSet.slug == bindparam("slug"))
)


def set_tally(session: Session, user_id: int, set_slug: str, total: int) -> SetTally:
    """Count the set's questions the learner answered, and those whose latest answer was right."""
    params = {"user_id": user_id, "slug": set_slug}
    answered, right = session.connection().execute(_SET_TALLY, params).one()
    return SetTally(set_slug, total, answered, right)


def set_summary(session: Session, user_id: int, set_slug: str) -> SetSummary:
    """Gather the learner's result in a set: each question's latest answer, and what to read."""
    qset = session.execute(
        select(QuestionSet.id, QuestionSet.title).where(QuestionSet.slug == set_slug)
    ).one_or_none()
    if qset is None:
        raise NotFound(f"There is no question set called “{set_slug}”.")
    rows = session.execute(
        select(Question.id, Question.stem_md, ReviewCard.last_correct)
        .outerjoin(
            ReviewCard,
            (ReviewCard.question_id == Question.id) & (ReviewCard.user_id == user_id),
        )
        .where(Question.set_id == qset.id)
        .order_by(Question.position)
    ).all()
    questions = tuple(
        SummaryQuestion(qid, n, render_inline(stem), correct)
        for n, (qid, stem, correct) in enumerate(rows, start=1)
    )
    wrong = [q.id for q in questions if q.correct is False]
    return SetSummary(set_slug, qset.title, questions, _sections_for(session, wrong))


def _sections_for(session: Session, question_ids: list[int]) -> tuple[SectionToRead, ...]:
    if not question_ids:
        return ()
    rows = session.execute(
        select(Note.slug, Note.title, NoteSection.anchor, NoteSection.heading)
        .select_from(QuestionNoteLink)
        .join(NoteSection)
        .join(Note)
        .where(QuestionNoteLink.question_id.in_(question_ids))
        .distinct()
        .order_by(Note.title, NoteSection.anchor)
    ).all()
    return tuple(SectionToRead(*row) for row in rows)
