"""Record what learners do and schedule their reviews. Services add and flush; the request commits.

Every service takes `now`, so a test clock decides what is due.
"""

from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, cast

from fsrs import Card, Rating, Scheduler, State
from sqlalchemy import Table, bindparam, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.content.read_models import Grade
from app.content.service import grade
from app.progress.models import PracticeAnswer, ReviewCard
from app.progress.read_models import CalendarDay, ReviewOutcome

_INSERT_ANSWER = insert(cast(Table, PracticeAnswer.__table__))
_CARD = select(
    ReviewCard.state,
    ReviewCard.step,
    ReviewCard.stability,
    ReviewCard.difficulty,
    ReviewCard.due_at,
    ReviewCard.last_review_at,
    ReviewCard.reviews,
    ReviewCard.lapses,
).where(ReviewCard.user_id == bindparam("user_id"), ReviewCard.question_id == bindparam("qid"))
# Without fuzzing the schedule is the same for the same answers at the same times, so a
# learner (and a test clock) can rely on it; fuzzing would only spread out cards made together.
SCHEDULER = Scheduler(enable_fuzzing=False)


def record_answer(
    session: Session,
    user_id: int,
    question_id: int,
    question_revision: int,
    selected_ids: Sequence[int],
    is_correct: bool,
    now: datetime,
) -> None:
    """Keep a logged-in learner's practice answer.

    A plain INSERT rather than an ORM object: every answer a learner gives runs it, and
    nothing reads the row back within the request.
    """
    session.connection().execute(
        _INSERT_ANSWER,
        {
            "user_id": user_id,
            "question_id": question_id,
            "question_revision": question_revision,
            "selected_ids": list(selected_ids),
            "is_correct": is_correct,
            "answered_at": now,
        },
    )


def rating(correct: bool) -> Rating:
    """Rate an answer for FSRS: Good when right, Again when wrong.

    How long an answer took is not measured, so answers are never rated Easy or Hard.
    """
    return Rating.Good if correct else Rating.Again


def _card(question_id: int, row: Any, now: datetime) -> Card:
    if row is None:  # card_id given: the default one sleeps a millisecond to stay unique
        return Card(card_id=question_id, due=now)
    return Card(
        card_id=question_id,
        state=State(row.state),
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=row.due_at.astimezone(UTC),
        last_review=row.last_review_at.astimezone(UTC) if row.last_review_at else None,
    )


def _card_upsert(dialect: Any) -> Any:
    """Insert a card or update it; two first answers at once cannot both insert."""
    table = cast(Table, ReviewCard.__table__)
    statement = dialect.insert(table)
    kept = ("id", "user_id", "question_id")
    return statement.values(
        {c.name: bindparam(c.name) for c in table.c if c.name != "id"}
    ).on_conflict_do_update(
        index_elements=["user_id", "question_id"],
        set_={c.name: statement.excluded[c.name] for c in table.c if c.name not in kept},
    )


# Built once per dialect: every answer a learner gives runs one.
_UPSERT_CARD = {"postgresql": _card_upsert(postgresql), "sqlite": _card_upsert(sqlite)}


def review(
    session: Session, user_id: int, question_id: int, correct: bool, now: datetime
) -> ReviewOutcome:
    """Schedule a learner's next review of a question after an answer given at now."""
    connection = session.connection()
    row = connection.execute(_CARD, {"user_id": user_id, "qid": question_id}).one_or_none()
    before = _card(question_id, row, now)
    card, _ = SCHEDULER.review_card(before, rating(correct), review_datetime=now.astimezone(UTC))
    lapsed = not correct and before.state == State.Review
    connection.execute(
        _UPSERT_CARD[connection.dialect.name],
        {
            "user_id": user_id,
            "question_id": question_id,
            "state": int(card.state),
            "step": card.step,
            "stability": card.stability,
            "difficulty": card.difficulty,
            "due_at": card.due,
            "last_review_at": card.last_review,
            "reviews": (row.reviews if row else 0) + 1,
            "lapses": (row.lapses if row else 0) + lapsed,
            "last_correct": correct,
        },
    )
    return ReviewOutcome(int(card.state), card.due, card.stability, card.difficulty)


def check_answer(
    session: Session,
    user_id: int | None,
    question_id: int,
    choice_ids: Sequence[int],
    now: datetime,
) -> Grade:
    """Grade a practice answer; when a learner (user_id) gave it, keep it and schedule a review."""
    result = grade(session, question_id, choice_ids)
    if user_id is not None:
        record_answer(
            session, user_id, question_id, result.revision, result.selected_ids, result.correct, now
        )
        review(session, user_id, question_id, result.correct, now)
    return result


def retrievability(
    state: int,
    step: int | None,
    stability: float | None,
    difficulty: float | None,
    last_review_at: datetime | None,
    now: datetime,
) -> float:
    """Predict the chance (0 to 1) that the learner recalls a card's answer at now."""
    card = Card(
        card_id=0,
        state=State(state),
        step=step,
        stability=stability,
        difficulty=difficulty,
        due=now,
        last_review=last_review_at.astimezone(UTC) if last_review_at else None,
    )
    return SCHEDULER.get_card_retrievability(card, current_datetime=now.astimezone(UTC))


def streak(days: Iterable[date], today: date) -> int:
    """Count the days in a row, up to today, with an answer; a day not yet studied keeps it."""
    studied = set(days)
    day = today if today in studied else today - timedelta(days=1)
    count = 0
    while day in studied:
        count += 1
        day -= timedelta(days=1)
    return count


def calendar(
    answers: dict[date, int], today: date, weeks: int
) -> tuple[tuple[CalendarDay, ...], ...]:
    """Lay out the answers per day of the last `weeks` weeks, Monday first, this week last."""
    start = today - timedelta(days=today.weekday(), weeks=weeks - 1)
    return tuple(
        tuple(
            CalendarDay(day, answers.get(day, 0) if day <= today else None)
            for day in (start + timedelta(days=7 * week + n) for n in range(7))
        )
        for week in range(weeks)
    )
