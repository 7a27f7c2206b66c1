"""Read queries behind the progress pages and API; each reads one learner's rows only."""

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Integer, bindparam, case, cast, exists, func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.content.errors import NotFound
from app.content.markdown import render_inline
from app.content.models import Note, Question, QuestionSet
from app.content.queries import linked_sections
from app.content.read_models import SectionRef, SetTally
from app.db import UTCDateTime
from app.progress import limits, service
from app.progress.chart import score_charts
from app.progress.library import Library, load_library
from app.progress.models import NoteRead, PracticeAnswer, ReviewCard
from app.progress.read_models import (
    NO_EXAMS,
    Dashboard,
    ExamRecords,
    ReviewStatus,
    SetSummary,
    SummaryQuestion,
    TopicMastery,
)
from app.progress.readiness import Cell, CellKey, readiness
from app.web import zones

CHART_SCORES = 30  # the latest exam scores the chart shows
READ_MAX = 5  # note sections a set's summary asks to read: those teaching the most missed


_NOW = bindparam("now", type_=UTCDateTime)
_START = bindparam("start", type_=UTCDateTime)
_USER: Any = bindparam("user_id")
_IS_NEW = ReviewCard.reviews <= 1  # answered once, never reviewed since (see `limits`)


def _setting(column: Any) -> Any:
    return select(column).where(User.id == _USER).scalar_subquery()


# Built once: the home page asks it for every logged-in view. One statement, read from the
# covering index of the learner's cards: what is due, what was done today, and the limits.
# a retired question's card waits: reviews resume if an author brings the question back
_IN_USE = ~exists().where(Question.id == ReviewCard.question_id, Question.retired_at.is_not(None))

_REVIEW_STATUS = select(
    func.count().filter(ReviewCard.due_at <= _NOW, ~_IS_NEW),
    func.count().filter(ReviewCard.due_at <= _NOW, _IS_NEW),
    func.count().filter(ReviewCard.due_at < bindparam("end", type_=UTCDateTime)),
    func.min(ReviewCard.due_at).filter(ReviewCard.due_at > _NOW),
    func.count().filter(ReviewCard.last_review_at >= _START, ~_IS_NEW),
    func.count().filter(ReviewCard.taken_up_at >= _START),
    _setting(User.new_per_day),
    _setting(User.reviews_per_day),
).where(ReviewCard.user_id == _USER, _IN_USE)


def review_status(session: Session, user_id: int, now: datetime, zone: str) -> ReviewStatus:
    """Count what the learner's review queue serves now within the day's limits, what waits
    for tomorrow, what is due by the end of their day (in their time zone), and find when
    the next one is due."""
    params = {
        "user_id": user_id,
        "now": now,
        "start": zones.day_start(now, zone),
        "end": zones.day_end(now, zone),
    }
    row = session.connection().execute(_REVIEW_STATUS, params).one()
    due_reviews, due_new, due_today, next_due, done, new_done, new_limit, review_limit = row
    allowed = limits.Limits(new_limit or 0, review_limit or 0)
    reviews, new = limits.allowance(allowed, due_reviews, due_new, done, new_done)
    waiting = due_reviews + due_new - reviews - new
    return ReviewStatus(
        reviews + new,
        due_today,
        next_due,
        reviews=reviews,
        waiting=waiting,
        done_today=done,
        held_by=limits.held_by(allowed, due_reviews, done, new_done) if waiting else None,
        limits=allowed,
        time_zone=zone,
    )


def _due_ids(session: Session, user_id: int, now: datetime, new: bool, limit: int) -> list[int]:
    if limit <= 0:
        return []
    return list(
        session.scalars(
            select(ReviewCard.question_id)
            .where(
                ReviewCard.user_id == user_id,
                ReviewCard.due_at <= now,
                _IS_NEW if new else ~_IS_NEW,
                _IN_USE,
            )
            .order_by(ReviewCard.due_at, ReviewCard.question_id)
            .limit(limit)
        )
    )


def review_queue(
    session: Session, user_id: int, now: datetime, zone: str, size: int
) -> tuple[ReviewStatus, list[int]]:
    """The learner's review status and the first `size` questions of their queue now: the
    reviews due, longest due first, then the new ones, within the day's limits."""
    status = review_status(session, user_id, now, zone)
    reviews = _due_ids(session, user_id, now, False, min(size, status.reviews))
    fresh = _due_ids(session, user_id, now, True, min(size - len(reviews), status.new))
    return status, reviews + fresh


def review_page(
    session: Session, user_id: int, now: datetime, zone: str
) -> tuple[ReviewStatus, int | None]:
    """Gather the review status and the question to review first, if any."""
    status, ids = review_queue(session, user_id, now, zone, 1)
    return status, ids[0] if ids else None


def _elapsed_days(dialect: str, column: Any) -> Any:
    """Whole days from a timestamp column to `now`, at least 0, in SQL (NULL when the column is)."""
    if dialect == "postgresql":
        days = func.floor(func.extract("epoch", _NOW - column) / 86400)
        return case((days < 0, 0), else_=days)
    # SQLite keeps UTC timestamps as text; its max() of a NULL is NULL
    return func.max(cast(func.julianday(_NOW) - func.julianday(column), Integer), 0)


def _card_sums(dialect: str) -> Any:
    """A learner's cards summed per set and topic: seen, latest answer right, recall now.

    Recall counts the cards whose latest answer was right, at FSRS's retrievability: right
    after an answer FSRS predicts recall of the answer just shown, wrong or not, so a card
    last answered wrong counts as 0 until it is answered right.
    """
    days = _elapsed_days(dialect, ReviewCard.last_review_at)
    recall = case((ReviewCard.last_correct, service.recall_in_sql(ReviewCard.stability, days)))
    return (
        select(
            Question.set_id,
            Question.topic_id,
            func.count(),
            func.count().filter(ReviewCard.last_correct),
            func.coalesce(func.sum(recall), 0.0),
        )
        .select_from(ReviewCard)
        .join(Question, Question.id == ReviewCard.question_id)
        .where(ReviewCard.user_id == bindparam("user_id"))
        .group_by(Question.set_id, Question.topic_id)
    )


# Built once per dialect: every dashboard runs it.
_CARD_SUMS = {dialect: _card_sums(dialect) for dialect in ("postgresql", "sqlite")}


def cells(
    session: Session, user_id: int, now: datetime, library: Library | None = None
) -> dict[CellKey, Cell]:
    """Measure the learner in each (set, topic) of the library.

    A learner has one card per question they answered, holding the outcome of the latest
    answer, so this reads the learner's cards and never their whole answer history; SQL sums
    them per set and topic, predicted recall included, and hands back one row for each.
    """
    library = library or load_library(session)
    connection = session.connection()
    params = {"user_id": user_id, "now": now}
    sums = {
        (set_id, topic_id): rest
        for set_id, topic_id, *rest in connection.execute(
            _CARD_SUMS[connection.dialect.name], params
        )
    }
    found = {}
    for key, (slug, questions) in library.questions.items():
        seen, right, recall = sums.get(key, (0, 0, 0.0))
        found[(slug, key[1])] = Cell(questions, seen, float(recall), right)
    return found


def topic_mastery(
    session: Session, user_id: int, now: datetime, library: Library | None = None
) -> tuple[TopicMastery, ...]:
    """Measure the learner in every topic that has questions of its own, weakest first.

    Weakest is the lowest share of answered questions expected right now; topics with too few
    answers to tell come after the measured ones.
    """
    library = library or load_library(session)
    return _mastery(session, user_id, cells(session, user_id, now, library), library)


# Built once: every dashboard runs it.
_NOTES_READ = (
    select(Note.topic_id, func.count())
    .select_from(NoteRead)
    .join(Note, Note.id == NoteRead.note_id)
    .where(NoteRead.user_id == bindparam("user_id"))
    .group_by(Note.topic_id)
)


def _mastery(
    session: Session, user_id: int, found: dict[CellKey, Cell], library: Library
) -> tuple[TopicMastery, ...]:
    rows = session.connection().execute(_NOTES_READ, {"user_id": user_id})
    read = {topic_id: count for topic_id, count in rows if topic_id is not None}
    per_topic: dict[int, list[Cell]] = {}
    for (_, topic_id), cell in found.items():
        if topic_id is not None:
            per_topic.setdefault(topic_id, []).append(cell)
    mastery = []
    for topic_id, info in library.topics.items():
        parts = per_topic.get(topic_id, [])
        seen = sum(c.seen for c in parts)
        mastery.append(
            TopicMastery(
                info.slug,
                info.title,
                sum(c.questions for c in parts),
                seen,
                sum(c.right for c in parts),
                sum(c.recall_sum for c in parts),
                info.first_question_id,
                info.note_count,
                read.get(topic_id, 0),
            )
        )
    return tuple(sorted(mastery, key=lambda t: t.weakness))


# An answer's day is found from its quarter hour: every time zone's offset from UTC (since the
# 1970s) is a whole number of quarter hours, so a quarter hour lies within one day in any zone.
_QUARTER = timedelta(minutes=15)


def _activity(dialect: str) -> Any:
    """A learner's answers per quarter hour (UTC): how many, and the seconds they took.

    Grouped by the hour's text and the quarter's number, read from the timestamp as it is
    (SQLite keeps UTC text, whose date functions round to the millisecond), so the learner's
    zone is applied to a few rows in Python, whichever zones the database knows.
    """
    answered = PracticeAnswer.answered_at
    if dialect == "postgresql":
        utc = func.timezone("UTC", answered)
        hour = func.to_char(utc, "YYYY-MM-DD HH24")
        quarter = cast(func.to_char(utc, "MI"), Integer) // 15
    else:
        hour = func.substr(answered, 1, 13)
        quarter = cast(func.substr(answered, 15, 2), Integer) // 15
    return (
        select(hour, quarter, func.count(), func.coalesce(func.sum(PracticeAnswer.seconds), 0.0))
        .where(PracticeAnswer.user_id == bindparam("user_id"))
        .group_by(hour, quarter)
    )


# Built once per dialect: every dashboard runs it.
_ACTIVITY = {dialect: _activity(dialect) for dialect in ("postgresql", "sqlite")}


def activity(
    session: Session, user_id: int, zone: str = zones.DEFAULT
) -> tuple[dict[date, int], float]:
    """Count the learner's answers on each day they studied, in their time zone, and sum the
    time they took."""
    connection = session.connection()
    rows = connection.execute(_ACTIVITY[connection.dialect.name], {"user_id": user_id}).all()
    per_day: Counter[date] = Counter()
    for hour, quarter, count, _ in rows:
        start = datetime.fromisoformat(f"{hour}:00").replace(tzinfo=UTC) + quarter * _QUARTER
        per_day[zones.today(start, zone)] += count
    return dict(per_day), float(sum(seconds for *_, seconds in rows))


def dashboard(
    session: Session,
    user_id: int,
    now: datetime,
    weeks: int = 12,
    exams: ExamRecords = NO_EXAMS,
    library: Library | None = None,
    zone: str = zones.DEFAULT,
) -> Dashboard:
    """Gather a learner's dashboard: reviews, mastery, activity, exam scores and readiness.

    A fixed number of queries whatever the history: each reads one learner's rows, grouped.
    `library` is what the content holds (see `app.progress.library`); read here when not given.
    `zone` is the learner's time zone: their review day, the calendar and the streak count
    days there.
    """
    library = library or load_library(session)
    per_day, seconds = activity(session, user_id, zone)
    found = cells(session, user_id, now, library)
    history = exams.history(session, user_id, CHART_SCORES)
    today = zones.today(now, zone)
    return Dashboard(
        review=review_status(session, user_id, now, zone),
        topics=_mastery(session, user_id, found, library),
        weeks=service.calendar(per_day, today, weeks),
        streak_days=service.streak(per_day, today),
        days_studied=len(per_day),
        answers=sum(per_day.values()),
        seconds=seconds + history.seconds,
        exams=history,
        charts=score_charts(history.scores),
        readiness=tuple(readiness(plan, found) for plan in library.plans),
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


def question_marks(session: Session, user_id: int, question_ids: Sequence[int]) -> dict[int, bool]:
    """Whether the learner's latest answer to each of these questions was right (the ones
    never answered are left out)."""
    rows = session.execute(
        select(ReviewCard.question_id, ReviewCard.last_correct).where(
            ReviewCard.user_id == user_id, ReviewCard.question_id.in_(question_ids)
        )
    )
    return dict(rows.all())


def set_summary(session: Session, user_id: int, set_slug: str, related_score: float) -> SetSummary:
    """Gather the learner's result in a set: each question's latest answer, and what to read
    (the sections that teach the most of those got wrong, through links learners see)."""
    qset = session.execute(
        select(QuestionSet.id, QuestionSet.title).where(QuestionSet.slug == set_slug)
    ).one_or_none()
    if qset is None:
        raise NotFound(f"There is no question set called “{set_slug}”.")
    rows = _standing(session, user_id, Question.set_id == qset.id)
    questions = tuple(
        SummaryQuestion(qid, n, render_inline(stem), correct)
        for n, (qid, stem, correct) in enumerate(rows, start=1)
    )
    wrong = [q.id for q in questions if q.correct is False]
    return SetSummary(set_slug, qset.title, questions, _sections_for(session, wrong, related_score))


def _standing(session: Session, user_id: int, *where: Any) -> list[Any]:
    """The questions matching where, in their set's order, with the learner's latest answer
    to each (None when not answered)."""
    return list(
        session.execute(
            select(Question.id, Question.stem_md, ReviewCard.last_correct)
            .outerjoin(
                ReviewCard,
                (ReviewCard.question_id == Question.id) & (ReviewCard.user_id == user_id),
            )
            .where(*where)
            .order_by(Question.position)
        )
    )


def _sections_for(
    session: Session, question_ids: list[int], related_score: float
) -> tuple[SectionRef, ...]:
    if not question_ids:
        return ()
    linked = linked_sections(session, question_ids, related_score).values()
    teaches = Counter(section for sections in linked for section in sections)
    best = sorted(teaches, key=lambda s: (-teaches[s], s.note_title, s.anchor))[:READ_MAX]
    return tuple(sorted(best, key=lambda s: (s.note_title, s.anchor)))


def note_read_at(session: Session, user_id: int, slug: str) -> datetime | None:
    """When the learner read the note, or None if they have not."""
    return session.scalar(
        select(NoteRead.read_at)
        .join(Note, Note.id == NoteRead.note_id)
        .where(NoteRead.user_id == user_id, Note.slug == slug)
    )


def questions_standing(
    session: Session, user_id: int, ids: tuple[int, ...]
) -> tuple[SummaryQuestion, ...]:
    """Each of the questions (in the given order) with the learner's latest answer to it."""
    rows = _standing(session, user_id, Question.id.in_(ids))
    found = {qid: (stem, correct) for qid, stem, correct in rows}
    return tuple(
        SummaryQuestion(qid, n, render_inline(found[qid][0]), found[qid][1])
        for n, qid in enumerate((q for q in ids if q in found), start=1)
    )
