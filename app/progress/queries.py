"""Read queries behind the progress pages and API; each reads one learner's rows only."""

from datetime import datetime, time, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.progress.models import ReviewCard
from app.progress.read_models import ReviewStatus


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
