"""Read queries behind the progress pages and API; each reads one learner's rows only."""

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import Integer, bindparam, case, cast, func, literal, select
from sqlalchemy.orm import Session

from app.content.blueprints import ExamBlueprint
from app.content.errors import NotFound
from app.content.markdown import render_inline
from app.content.models import Note, NoteSection, Question, QuestionNoteLink, QuestionSet, Topic
from app.content.queries import topic_subtrees
from app.db import UTCDateTime
from app.progress import service
from app.progress.chart import score_chart
from app.progress.models import NoteRead, PracticeAnswer, ReviewCard
from app.progress.read_models import (
    Dashboard,
    ExamRecords,
    NoExams,
    ReviewStatus,
    SectionToRead,
    SetSummary,
    SetTally,
    SummaryQuestion,
    TopicMastery,
)
from app.progress.readiness import Cell, CellKey, ExamPlan, readiness

CHART_SCORES = 30  # the latest exam scores the chart shows
NO_EXAMS = NoExams()


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


def cells(
    session: Session, user_id: int, now: datetime
) -> tuple[dict[CellKey, Cell], dict[int, int]]:
    """Measure the learner in each (set, topic) of the library; also each topic's first question.

    A learner has one card per question they answered, holding the outcome of the latest
    answer, so this reads the learner's cards and never their whole answer history. The
    days since each card's review come from SQL as numbers: a dashboard reads every card.
    """
    counts = session.execute(
        select(
            Question.set_id,
            QuestionSet.slug,
            Question.topic_id,
            func.count(Question.id),
            func.min(Question.id),
        )
        .join(QuestionSet, QuestionSet.id == Question.set_id)
        .group_by(Question.set_id, QuestionSet.slug, Question.topic_id)
    ).all()
    slugs = {set_id: slug for set_id, slug, *_ in counts}
    firsts: dict[int, int] = {}
    for _, _, topic_id, _, first in counts:
        if topic_id is not None:
            firsts[topic_id] = min(first, firsts.get(topic_id, first))
    sums: dict[CellKey, list[float]] = {}  # seen, right, recall summed
    cards = select(
        Question.set_id,
        Question.topic_id,
        ReviewCard.last_correct,
        ReviewCard.stability,
        _days_since(session, ReviewCard.last_review_at, now),
    ).join(Question, Question.id == ReviewCard.question_id)
    for set_id, topic_id, right, stability, days in session.execute(
        cards.where(ReviewCard.user_id == user_id)
    ):
        found = sums.setdefault((slugs[set_id], topic_id), [0, 0, 0.0])
        found[0] += 1
        found[1] += right
        found[2] += service.recall(stability, days)
    cells = {}
    for _, slug, topic_id, questions, _ in counts:
        seen, right, recall = sums.get((slug, topic_id), (0, 0, 0.0))
        cells[(slug, topic_id)] = Cell(questions, int(seen), recall, int(right))
    return cells, firsts


def _days_since(session: Session, column: Any, now: datetime) -> Any:
    """Whole days from a timestamp column to now, in SQL (NULL when the column is)."""
    if session.get_bind().dialect.name == "postgresql":
        moment = literal(now, UTCDateTime)
        return cast(func.floor(func.extract("epoch", moment - column) / 86400), Integer)
    # SQLite keeps UTC timestamps as text in this format
    stamp = now.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return cast(func.julianday(stamp) - func.julianday(column), Integer)


def topic_mastery(session: Session, user_id: int, now: datetime) -> tuple[TopicMastery, ...]:
    """Measure the learner in every topic that has questions of its own, weakest first."""
    return _mastery(session, user_id, *cells(session, user_id, now))


def _mastery(
    session: Session, user_id: int, found: dict[CellKey, Cell], firsts: dict[int, int]
) -> tuple[TopicMastery, ...]:
    notes = select(func.count(Note.id)).where(Note.topic_id == Topic.id).scalar_subquery()
    read = (
        select(func.count(NoteRead.id))
        .join(Note, Note.id == NoteRead.note_id)
        .where(Note.topic_id == Topic.id, NoteRead.user_id == user_id)
        .scalar_subquery()
    )
    per_topic: dict[int, list[Cell]] = {}
    for (_, topic_id), cell in found.items():
        if topic_id is not None:
            per_topic.setdefault(topic_id, []).append(cell)
    topics = session.execute(
        select(Topic.id, Topic.slug, Topic.title, notes, read).where(Topic.id.in_(per_topic))
    ).all()
    mastery = []
    for topic_id, slug, title, note_count, notes_read in topics:
        parts = per_topic[topic_id]
        seen = sum(c.seen for c in parts)
        mastery.append(
            TopicMastery(
                slug,
                title,
                sum(c.questions for c in parts),
                seen,
                sum(c.right for c in parts),
                sum(c.recall_sum for c in parts),
                seen,
                firsts.get(topic_id),
                note_count,
                notes_read,
            )
        )
    return tuple(sorted(mastery, key=lambda t: (t.mastery, t.accuracy or 0.0, t.title)))


def exam_plans(session: Session) -> tuple[ExamPlan, ...]:
    """List the exams with the sets and topic subtrees each draws from."""
    rows = session.execute(
        select(
            ExamBlueprint.slug,
            ExamBlueprint.title,
            ExamBlueprint.pass_mark,
            ExamBlueprint.sets,
            ExamBlueprint.topics,
        ).order_by(ExamBlueprint.position, ExamBlueprint.slug)
    ).all()
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


def _day(session: Session, column: Any) -> Any:
    """The UTC calendar day of a timestamp column, in SQL."""
    if session.get_bind().dialect.name == "postgresql":
        return func.date(func.timezone("UTC", column))
    return func.date(column)  # SQLite keeps UTC timestamps as text


def activity(session: Session, user_id: int) -> tuple[dict[date, int], float]:
    """Count the learner's answers on each day (UTC) they studied, and sum the time they took."""
    day = _day(session, PracticeAnswer.answered_at)
    rows = session.execute(
        select(day, func.count(), func.coalesce(func.sum(PracticeAnswer.seconds), 0.0))
        .where(PracticeAnswer.user_id == user_id)
        .group_by(day)
    ).all()
    per_day = {date.fromisoformat(str(value)): count for value, count, _ in rows}
    return per_day, float(sum(seconds for *_, seconds in rows))


def answers_per_day(session: Session, user_id: int) -> dict[date, int]:
    """Count the learner's answers on each day (UTC) they studied."""
    return activity(session, user_id)[0]


def dashboard(
    session: Session,
    user_id: int,
    now: datetime,
    weeks: int = 12,
    exams: ExamRecords = NO_EXAMS,
) -> Dashboard:
    """Gather a learner's dashboard: reviews, mastery, activity, exam scores and readiness.

    A fixed number of queries whatever the history: each reads one learner's rows, grouped.
    """
    per_day, seconds = activity(session, user_id)
    found, firsts = cells(session, user_id, now)
    history = exams.history(session, user_id, CHART_SCORES)
    today = now.astimezone(UTC).date()
    return Dashboard(
        review=review_status(session, user_id, now),
        topics=_mastery(session, user_id, found, firsts),
        weeks=service.calendar(per_day, today, weeks),
        streak_days=service.streak(per_day, today),
        days_studied=len(per_day),
        answers=sum(per_day.values()),
        seconds=seconds + history.seconds,
        exams=history,
        chart=score_chart(history.scores),
        readiness=tuple(readiness(plan, found) for plan in exam_plans(session)),
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
    rows = session.execute(
        select(Question.id, Question.stem_md, ReviewCard.last_correct)
        .outerjoin(
            ReviewCard,
            (ReviewCard.question_id == Question.id) & (ReviewCard.user_id == user_id),
        )
        .where(Question.id.in_(ids))
    ).all()
    found = {qid: (stem, correct) for qid, stem, correct in rows}
    return tuple(
        SummaryQuestion(qid, n, render_inline(found[qid][0]), found[qid][1])
        for n, qid in enumerate((q for q in ids if q in found), start=1)
    )
