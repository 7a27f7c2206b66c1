"""Item statistics in SQL: set-based, a handful of statements whatever the number of questions.

Exams count the answered items of closed attempts (submitted, or closed when time ran out);
practice counts the answers given on question and review pages (`source = 'practice'`), not
the copies a finished exam leaves in the learner's history. Sums come back per question and
per choice; the few divisions and the square root are left to Python.
"""

from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Integer, Select, Table, case, func, select, true
from sqlalchemy.orm import Session

from app.content.models import Choice, Question, QuestionSet, Topic
from app.exams.models import ITEM_TABLE, Attempt
from app.progress.models import PracticeAnswer

CLOSED = ("submitted", "expired")
_ITEM = ITEM_TABLE
_ATTEMPT = cast(Table, Attempt.__table__)
_ANSWER = cast(Table, PracticeAnswer.__table__)


@dataclass(frozen=True)
class Sums:
    """One question's responses from one source: counts and the sums a correlation needs."""

    responses: int
    right: int
    rest: float = 0.0  # Σ rest score (exams)
    right_rest: float = 0.0  # Σ rest score of the right responses (exams)
    rest_squares: float = 0.0  # Σ rest score² (exams)
    median_seconds: float | None = None  # practice


@dataclass(frozen=True)
class Picks:
    """How many responses chose one choice, and how many of the stronger half did (exams)."""

    picks: int
    stronger: int = 0


def _elements(dialect: str, column: Any) -> Any:
    """The ids in a JSON array column, one row each: the way each database unnests one."""
    if dialect == "postgresql":
        values = func.json_array_elements_text(column).table_valued("value")
        return values, values.c.value.cast(Integer)
    values = func.json_each(column).table_valued("value")
    return values, values.c.value


def _exam_responses(only: int | None) -> Any:
    """Each answered item of a closed attempt: right (1/0) and the rest of its attempt's score."""
    scope = [] if only is None else [_ITEM.c.question_id == only]
    return (
        select(
            _ITEM.c.question_id.label("qid"),
            _ITEM.c.attempt_id.label("aid"),
            _ITEM.c.selected_ids.label("sel"),
            case((_ITEM.c.is_correct.is_(True), 1), else_=0).label("x"),
            (_ATTEMPT.c.score - func.coalesce(_ITEM.c.points, 0.0)).label("y"),
        )
        .join_from(_ITEM, _ATTEMPT, _ATTEMPT.c.id == _ITEM.c.attempt_id)
        .where(
            _ATTEMPT.c.status.in_(CLOSED),
            _ITEM.c.question_id.is_not(None),
            _ITEM.c.answered_at.is_not(None),
            *scope,
        )
        .subquery("r")
    )


def exam_sums_statement(only: int | None = None) -> Select[Any]:
    """Per question: responses, right ones, Σy, Σxy, Σy² (x right, y rest score)."""
    r = _exam_responses(only)
    return select(
        r.c.qid,
        func.count(),
        func.sum(r.c.x),
        func.sum(r.c.y),
        func.sum(r.c.x * r.c.y),
        func.sum(r.c.y * r.c.y),
    ).group_by(r.c.qid)


def exam_picks_statement(dialect: str, only: int | None = None) -> Select[Any]:
    """Per question and choice: the responses that chose it, and those of the stronger half.

    The stronger half is the floor(n/2) responses with the highest rest score (ties go to the
    earlier attempt), so an odd middle response belongs to neither half.
    """
    r = _exam_responses(only)
    ranked = select(
        r.c.qid,
        r.c.sel,
        func.row_number().over(partition_by=r.c.qid, order_by=(r.c.y.desc(), r.c.aid)).label("rk"),
        func.count().over(partition_by=r.c.qid).label("n"),
    ).subquery("ranked")
    values, choice_id = _elements(dialect, ranked.c.sel)
    stronger = case((ranked.c.rk * 2 <= ranked.c.n, 1), else_=0)
    return (
        select(ranked.c.qid, choice_id, func.count(), func.sum(stronger))
        .select_from(ranked)
        .join(values, true())
        .group_by(ranked.c.qid, choice_id)
    )


def _practice(only: int | None) -> list[Any]:
    scope = [] if only is None else [_ANSWER.c.question_id == only]
    return [_ANSWER.c.source == "practice", *scope]


def practice_sums_statement(only: int | None = None) -> Select[Any]:
    """Per question: practice answers, right ones, and the median seconds of the timed ones.

    The median is the middle row (or the mean of the two middle rows) by row_number: one
    window query that SQLite and PostgreSQL run alike.
    """
    where = _practice(only)
    totals = (
        select(
            _ANSWER.c.question_id.label("qid"),
            func.count().label("n"),
            func.sum(case((_ANSWER.c.is_correct.is_(True), 1), else_=0)).label("right"),
        )
        .where(*where)
        .group_by(_ANSWER.c.question_id)
        .subquery("totals")
    )
    timed = (
        select(
            _ANSWER.c.question_id.label("qid"),
            _ANSWER.c.seconds,
            func.row_number()
            .over(partition_by=_ANSWER.c.question_id, order_by=_ANSWER.c.seconds)
            .label("rk"),
            func.count().over(partition_by=_ANSWER.c.question_id).label("n"),
        )
        .where(*where, _ANSWER.c.seconds.is_not(None))
        .subquery("timed")
    )
    # the middle rank(s): 2·rk is n+1 for odd n, n or n+2 for even n
    median = (
        select(timed.c.qid, func.avg(timed.c.seconds).label("seconds"))
        .where(timed.c.rk * 2 >= timed.c.n, timed.c.rk * 2 <= timed.c.n + 2)
        .group_by(timed.c.qid)
        .subquery("median")
    )
    return select(totals.c.qid, totals.c.n, totals.c.right, median.c.seconds).join_from(
        totals, median, median.c.qid == totals.c.qid, isouter=True
    )


def practice_picks_statement(dialect: str, only: int | None = None) -> Select[Any]:
    """Per question and choice: the practice answers that chose it."""
    values, choice_id = _elements(dialect, _ANSWER.c.selected_ids)
    return (
        select(_ANSWER.c.question_id, choice_id, func.count())
        .select_from(_ANSWER)
        .join(values, true())
        .where(*_practice(only))
        .group_by(_ANSWER.c.question_id, choice_id)
    )


def exam_sums(session: Session, only: int | None = None) -> dict[int, Sums]:
    """Sum the exam responses of every question (or of one)."""
    rows = session.execute(exam_sums_statement(only))
    return {
        qid: Sums(int(n), int(right or 0), float(y or 0), float(xy or 0), float(yy or 0))
        for qid, n, right, y, xy, yy in rows
    }


def exam_picks(session: Session, only: int | None = None) -> dict[tuple[int, int], Picks]:
    """Count the exam responses choosing each choice, and those of the stronger half."""
    statement = exam_picks_statement(session.get_bind().dialect.name, only)
    return {
        (qid, int(cid)): Picks(int(n), int(upper or 0))
        for qid, cid, n, upper in session.execute(statement)
    }


def practice_sums(session: Session, only: int | None = None) -> dict[int, Sums]:
    """Count the practice answers of every question (or of one), with their median time."""
    return {
        qid: Sums(int(n), int(right or 0), median_seconds=None if med is None else float(med))
        for qid, n, right, med in session.execute(practice_sums_statement(only))
    }


def practice_picks(session: Session, only: int | None = None) -> dict[tuple[int, int], Picks]:
    """Count the practice answers choosing each choice."""
    statement = practice_picks_statement(session.get_bind().dialect.name, only)
    return {(qid, int(cid)): Picks(int(n)) for qid, cid, n in session.execute(statement)}


@dataclass(frozen=True)
class QuestionRow:
    id: int
    set_slug: str
    set_title: str
    ordinal: int
    topic_slug: str | None
    topic_title: str | None
    stem_md: str
    kind: str


@dataclass(frozen=True)
class ChoiceRow:
    question_id: int
    id: int
    position: int
    text_md: str
    is_correct: bool


def questions(session: Session, only: int | None = None) -> list[QuestionRow]:
    """Read every question (or one) with its set and topic, in set then set order."""
    scope = [] if only is None else [Question.id == only]
    rows = session.execute(
        select(
            Question.id,
            QuestionSet.slug,
            QuestionSet.title,
            Question.ordinal,
            Topic.slug,
            Topic.title,
            Question.stem_md,
            Question.kind,
        )
        .join(QuestionSet, QuestionSet.id == Question.set_id)
        .outerjoin(Topic, Topic.id == Question.topic_id)
        .where(*scope)
        .order_by(QuestionSet.title, Question.position, Question.id)
    )
    return [QuestionRow(*row) for row in rows]


def choices(session: Session, only: int | None = None) -> dict[int, list[ChoiceRow]]:
    """Read the choices of every question (or of one), in their order, by question."""
    scope = [] if only is None else [Choice.question_id == only]
    found: dict[int, list[ChoiceRow]] = {}
    rows = session.execute(
        select(Choice.question_id, Choice.id, Choice.position, Choice.text_md, Choice.is_correct)
        .where(*scope)
        .order_by(Choice.question_id, Choice.position)
    )
    for row in rows:
        found.setdefault(row.question_id, []).append(ChoiceRow(*row))
    return found
