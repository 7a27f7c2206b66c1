"""Record what learners do and schedule their reviews. Services add and flush; the request commits.

Every service takes `now`, so a test clock decides what is due.

How an answer is rated for FSRS:
- wrong: Again;
- right: Good, except when the time it took is known and the learner has a usual time (the
  median of their last `PACE_ANSWERS` timed answers, once there are `PACE_MIN` of them):
  Easy when it took at most `EASY_SHARE` of the usual time, Hard when it took at least
  `HARD_SHARE` times it. A time at the cap (`timing.MAX_SECONDS`) says the page was left
  open rather than how hard the question was, so it rates Good.
Exam answers have no time of their own (a learner moves back and forth through an exam), so
they rate Good or Again.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from statistics import median
from typing import Any, cast

from fsrs import Card, Rating, Scheduler, State
from sqlalchemy import Table, bindparam, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.content.errors import NotFound
from app.content.models import Note
from app.content.read_models import Grade
from app.content.service import grade
from app.progress.errors import InOpenExam
from app.progress.models import NoteRead, PracticeAnswer, ReviewCard
from app.progress.read_models import NO_EXAMS, CalendarDay, ExamRecords, ReviewOutcome
from app.web.timing import MAX_SECONDS

PACE_ANSWERS = 20
PACE_MIN = 5
EASY_SHARE = 0.5
HARD_SHARE = 2.0

_INSERT_ANSWER = insert(cast(Table, PracticeAnswer.__table__))
_CARDS = select(
    ReviewCard.question_id,
    ReviewCard.state,
    ReviewCard.step,
    ReviewCard.stability,
    ReviewCard.difficulty,
    ReviewCard.due_at,
    ReviewCard.last_review_at,
    ReviewCard.reviews,
    ReviewCard.lapses,
    ReviewCard.taken_up_at,
).where(
    ReviewCard.user_id == bindparam("user_id"),
    ReviewCard.question_id.in_(bindparam("qids", expanding=True)),
)
# Without fuzzing the schedule is the same for the same answers at the same times, so a
# learner (and a test clock) can rely on it; fuzzing would only spread out cards made together.
SCHEDULER = Scheduler(enable_fuzzing=False)


@dataclass(frozen=True)
class Answer:
    """An answer to keep: which question, what was chosen, whether it was right, and when."""

    question_id: int
    question_revision: int
    selected_ids: Sequence[int]
    is_correct: bool
    answered_at: datetime
    seconds: float | None = None
    source: str = "practice"
    walk: str | None = None  # the walk it was given in (models.walk_name), if any


def record_answers(session: Session, user_id: int, answers: Sequence[Answer]) -> None:
    """Keep a logged-in learner's answers.

    A plain INSERT rather than ORM objects: every answer a learner gives runs it, and
    nothing reads the rows back within the request.
    """
    if not answers:
        return
    # an Answer's fields are practice_answer's columns
    rows = [{**vars(a), "user_id": user_id, "selected_ids": list(a.selected_ids)} for a in answers]
    session.connection().execute(_INSERT_ANSWER, rows)


def rating(correct: bool, seconds: float | None = None, usual: float | None = None) -> Rating:
    """Rate an answer for FSRS from its outcome and, when both are known, its pace."""
    if not correct:
        return Rating.Again
    if seconds is None or usual is None or seconds >= MAX_SECONDS:
        return Rating.Good
    if seconds <= EASY_SHARE * usual:
        return Rating.Easy
    if seconds >= HARD_SHARE * usual:
        return Rating.Hard
    return Rating.Good


# Built once: every timed right answer asks it.
_RECENT_TIMES = (
    select(PracticeAnswer.seconds)
    .where(PracticeAnswer.user_id == bindparam("user_id"), PracticeAnswer.seconds.is_not(None))
    .order_by(PracticeAnswer.answered_at.desc())
    .limit(PACE_ANSWERS)
)


def usual_seconds(session: Session, user_id: int) -> float | None:
    """Return the learner's usual time to answer (median of recent timed answers), if known."""
    times = session.connection().execute(_RECENT_TIMES, {"user_id": user_id}).scalars().all()
    return median(t for t in times if t is not None) if len(times) >= PACE_MIN else None


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
    session: Session,
    user_id: int,
    question_id: int,
    correct: bool,
    now: datetime,
    seconds: float | None = None,
) -> ReviewOutcome:
    """Schedule a learner's next review of a question after an answer given at now.

    `seconds` is how long the answer took, when measured; it rates a right answer by pace.
    """
    usual = usual_seconds(session, user_id) if correct and seconds is not None else None
    return _review_all(session, user_id, {question_id: rating(correct, seconds, usual)}, now)[0]


def _review_all(
    session: Session, user_id: int, ratings: dict[int, Rating], now: datetime
) -> list[ReviewOutcome]:
    """Review several of a learner's cards at once: one read and one write for them all."""
    connection = session.connection()
    params = {"user_id": user_id, "qids": list(ratings)}
    rows = {row.question_id: row for row in connection.execute(_CARDS, params)}
    outcomes, changes = [], []
    for question_id, grade_ in ratings.items():
        row, when = rows.get(question_id), now
        if row is not None and row.last_review_at is not None and row.last_review_at > now:
            when = row.last_review_at  # an exam graded late: never review a card back in time
        before = _card(question_id, row, when)
        card, _ = SCHEDULER.review_card(before, grade_, review_datetime=when.astimezone(UTC))
        lapsed = grade_ == Rating.Again and before.state == State.Review
        reviews, lapses = (row.reviews, row.lapses) if row else (0, 0)
        # the second answer is the card's first review: it takes the card up as new
        taken_up = when if reviews == 1 else (row.taken_up_at if row else None)
        changes.append(card_row(user_id, card, grade_, reviews + 1, lapses + lapsed, taken_up))
        outcomes.append(ReviewOutcome(int(card.state), card.due, card.stability, card.difficulty))
    save_cards(session, changes)
    return outcomes


def card_row(
    user_id: int,
    card: Card,
    grade_: Rating,
    reviews: int,
    lapses: int,
    taken_up_at: datetime | None = None,
) -> dict[str, Any]:
    """The review_card row of a learner's card after a review rated grade_; `taken_up_at`
    is when its first review came (the second answer), if it came."""
    return {
        "user_id": user_id,
        "question_id": card.card_id,
        "state": int(card.state),
        "step": card.step,
        "stability": card.stability,
        "difficulty": card.difficulty,
        "due_at": card.due,
        "last_review_at": card.last_review,
        "reviews": reviews,
        "lapses": lapses,
        "last_correct": grade_ != Rating.Again,
        "taken_up_at": taken_up_at,
    }


def save_cards(session: Session, rows: list[dict[str, Any]]) -> None:
    """Insert or update review cards, given as `card_row` builds them."""
    connection = session.connection()
    connection.execute(_UPSERT_CARD[connection.dialect.name], rows)


def practice_grade(
    session: Session,
    user_id: int | None,
    question_id: int,
    choice_ids: Sequence[int],
    exams: ExamRecords = NO_EXAMS,
) -> Grade:
    """Grade chosen choices, unless the learner's open exam holds the question (InOpenExam):
    practice must not tell its key before the exam is submitted. A guest has no exam."""
    if user_id is not None and exams.in_open_exam(session, user_id, question_id):
        raise InOpenExam()
    return grade(session, question_id, choice_ids)


def check_answer(
    session: Session,
    user_id: int | None,
    question_id: int,
    choice_ids: Sequence[int],
    now: datetime,
    seconds: float | None = None,
    exams: ExamRecords = NO_EXAMS,
    walk: str | None = None,
) -> Grade:
    """Grade a practice answer; when a learner (user_id) gave it, keep it and schedule a review.

    `walk` names the walk the answer was given in (models.walk_name), if any. The review is
    scheduled before the answer is kept, so the learner's usual time is measured on the
    answers before this one.
    """
    result = practice_grade(session, user_id, question_id, choice_ids, exams)
    if user_id is not None:
        review(session, user_id, question_id, result.correct, now, seconds)
        answer = Answer(
            question_id,
            result.revision,
            result.selected_ids,
            result.correct,
            now,
            seconds,
            walk=walk,
        )
        record_answers(session, user_id, [answer])
    return result


def record_exam(session: Session, user_id: int, answers: Sequence[Answer], now: datetime) -> None:
    """Keep the answered questions of a finished exam and review each one as of now.

    The cards are reviewed at the moment the exam was finished, when the learner sees the
    result, not when each choice was saved: an exam's choices can change until the end.
    """
    record_answers(session, user_id, answers)
    if answers:
        ratings = {answer.question_id: rating(answer.is_correct) for answer in answers}
        _review_all(session, user_id, ratings, now)


def mark_read(session: Session, user_id: int, slug: str, now: datetime) -> datetime:
    """Record that a learner read a note and return when; reading it again keeps the first time."""
    note_id = session.scalar(select(Note.id).where(Note.slug == slug))
    if note_id is None:
        raise NotFound(f"There is no note called “{slug}”.")
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = dialect.insert(cast(Table, NoteRead.__table__)).values(
        user_id=user_id, note_id=note_id, read_at=now
    )
    session.execute(statement.on_conflict_do_nothing(index_elements=["user_id", "note_id"]))
    read_at = session.scalar(
        select(NoteRead.read_at).where(NoteRead.user_id == user_id, NoteRead.note_id == note_id)
    )
    return read_at or now


# FSRS's forgetting curve, R = (1 + FACTOR * days / stability) ** DECAY, as the scheduler has
# it; computed in SQL without building a Card, since a dashboard asks it of every card.
_DECAY = -SCHEDULER.parameters[20]
_FACTOR = 0.9 ** (1 / _DECAY) - 1


def recall_in_sql(stability: Any, days: Any) -> Any:
    """Predict recall over columns: a card's stability and the whole days since its last review.

    The same as `SCHEDULER.get_card_retrievability` for a reviewed card; NULL for a card
    never reviewed.
    """
    return func.power(1 + _FACTOR * days / stability, _DECAY)


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
