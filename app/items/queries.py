"""Item statistics in SQL: set-based, a handful of statements whatever the number of questions.

Exams count the answered items of closed attempts (submitted, or closed when time ran out);
practice counts the answers given on question and review pages (`source = 'practice'`), not
the copies a finished exam leaves in the learner's history. Each source is read in one pass:
its responses are unnested into one row per chosen id and grouped by (question, choice); a
response's first chosen id carries its per-response sums, so a question's totals are the sums
of its choices' rows. The median time is one more pass, over the timed practice answers.
The few divisions and the square root are left to Python.
"""

from collections.abc import Iterable
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


@dataclass(frozen=True)
class Tally:
    """A source's counts: per question its sums, per (question, choice id) its picks."""

    sums: dict[int, Sums]
    picks: dict[tuple[int, int], Picks]


def _elements(dialect: str, column: Any) -> tuple[Any, Any, Any]:
    """Unnest a JSON array of ids, the way each database does it: the function to join, the
    id column, and whether the row holds the array's first element."""
    if dialect == "postgresql":
        values = (
            func.json_array_elements_text(column)
            .table_valued("value", with_ordinality="n")
            .render_derived(name="chosen")
        )
        return values, values.c.value.cast(Integer), case((values.c.n == 1, 1), else_=0)
    values = func.json_each(column).table_valued("value", "key")
    return values, values.c.value, case((values.c.key == 0, 1), else_=0)


def exam_statement(dialect: str, only: int | None = None) -> Select[Any]:
    """Per question and chosen id: picks, picks by the stronger half, and (on each response's
    first id) the count, Σx, Σy, Σxy and Σy², x being right (1/0) and y the rest score.

    The stronger half is the floor(n/2) responses with the highest rest score (ties go to the
    earlier attempt), so an odd middle response belongs to neither half.
    """
    scope = [] if only is None else [_ITEM.c.question_id == only]
    qid = _ITEM.c.question_id
    rest = _ATTEMPT.c.score - func.coalesce(_ITEM.c.points, 0.0)
    ranked = (
        select(
            qid.label("qid"),
            _ITEM.c.selected_ids.label("sel"),
            case((_ITEM.c.is_correct.is_(True), 1), else_=0).label("x"),
            rest.label("y"),
            func.row_number()
            .over(partition_by=qid, order_by=(rest.desc(), _ITEM.c.attempt_id))
            .label("rk"),
            func.count().over(partition_by=qid).label("n"),
        )
        .join_from(_ITEM, _ATTEMPT, _ATTEMPT.c.id == _ITEM.c.attempt_id)
        .where(
            _ATTEMPT.c.status.in_(CLOSED),
            qid.is_not(None),
            _ITEM.c.answered_at.is_not(None),
            *scope,
        )
        .subquery("ranked")
    )
    values, choice_id, first = _elements(dialect, ranked.c.sel)
    x, y = ranked.c.x, ranked.c.y
    return (
        select(
            ranked.c.qid,
            choice_id,
            func.count(),
            func.sum(case((ranked.c.rk * 2 <= ranked.c.n, 1), else_=0)),
            func.sum(first),
            func.sum(first * x),
            func.sum(first * y),
            func.sum(first * x * y),
            func.sum(first * y * y),
        )
        .select_from(ranked)
        .join(values, true())
        .group_by(ranked.c.qid, choice_id)
    )


def _practice(only: int | None) -> list[Any]:
    scope = [] if only is None else [_ANSWER.c.question_id == only]
    return [_ANSWER.c.source == "practice", *scope]


def practice_statement(dialect: str, only: int | None = None) -> Select[Any]:
    """Per question and chosen id: picks, and (on each answer's first id) the count and the
    right ones."""
    values, choice_id, first = _elements(dialect, _ANSWER.c.selected_ids)
    right = case((_ANSWER.c.is_correct.is_(True), 1), else_=0)
    return (
        select(
            _ANSWER.c.question_id, choice_id, func.count(), func.sum(first), func.sum(first * right)
        )
        .select_from(_ANSWER)
        .join(values, true())
        .where(*_practice(only))
        .group_by(_ANSWER.c.question_id, choice_id)
    )


def median_statement(only: int | None = None) -> Select[Any]:
    """Per question: the median seconds of the timed practice answers.

    The middle row, or the mean of the two middle rows, by row_number: one window query
    that SQLite and PostgreSQL run alike. 2·rk is n+1 for odd n, n or n+2 for even n.
    """
    timed = (
        select(
            _ANSWER.c.question_id.label("qid"),
            _ANSWER.c.seconds,
            func.row_number()
            .over(partition_by=_ANSWER.c.question_id, order_by=_ANSWER.c.seconds)
            .label("rk"),
            func.count().over(partition_by=_ANSWER.c.question_id).label("n"),
        )
        .where(*_practice(only), _ANSWER.c.seconds.is_not(None))
        .subquery("timed")
    )
    return (
        select(timed.c.qid, func.avg(timed.c.seconds))
        .where(timed.c.rk * 2 >= timed.c.n, timed.c.rk * 2 <= timed.c.n + 2)
        .group_by(timed.c.qid)
    )


def _add(totals: dict[int, list[float]], qid: int, values: Iterable[Any]) -> None:
    found = totals.setdefault(qid, [0.0] * 5)
    for n, value in enumerate(values):
        found[n] += float(value or 0)


def exam_tally(session: Session, only: int | None = None) -> Tally:
    """Count the exam responses of every question (or of one), and each choice's picks."""
    statement = exam_statement(session.get_bind().dialect.name, only)
    picks: dict[tuple[int, int], Picks] = {}
    totals: dict[int, list[float]] = {}
    for qid, cid, count, stronger, *sums in session.execute(statement):
        picks[(qid, int(cid))] = Picks(int(count), int(stronger or 0))
        _add(totals, qid, sums)
    return Tally(
        {qid: Sums(int(n), int(x), y, xy, yy) for qid, (n, x, y, xy, yy) in totals.items()}, picks
    )


def practice_tally(session: Session, only: int | None = None) -> Tally:
    """Count the practice answers of every question (or of one), each choice's picks, and
    the median time of the timed ones."""
    statement = practice_statement(session.get_bind().dialect.name, only)
    picks: dict[tuple[int, int], Picks] = {}
    totals: dict[int, list[float]] = {}
    for qid, cid, count, *counts in session.execute(statement):
        picks[(qid, int(cid))] = Picks(int(count))
        _add(totals, qid, counts)
    medians: dict[int, Any] = dict(session.execute(median_statement(only)).all())
    found = {
        qid: Sums(int(n), int(right), median_seconds=_seconds(medians.get(qid)))
        for qid, (n, right, *_) in totals.items()
    }
    return Tally(found, picks)


def _seconds(value: Any) -> float | None:
    return None if value is None else float(value)


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
