"""Item statistics in SQL: set-based, a handful of statements whatever the number of questions.

Exams count the answered items of closed attempts (submitted, or closed when time ran out);
practice counts the answers given on question and review pages (`source = 'practice'`), not
the copies a finished exam leaves in the learner's history.

Each source is read in one pass grouped by question and by the chosen ids as stored (their
JSON text: a few distinct values per question), so a pass returns a few rows per question
and Python spreads each row's count over the ids it names. No JSON is unnested and no window
runs over the answers; on SQLite each pass walks a covering index (`SQLITE_INDEXES`) rather
than the table.

The stronger half of an exam's takers is ranked over attempts, not answers: the better half
of the closed attempts of the same exam (one blueprint; custom exams together) by percent,
ties to the earlier attempt; a first small statement finds where each exam's half ends.
Practice times are counted to the whole second, and the median is read from those counts.
The few divisions and the square root are left to Python.
"""

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Select,
    Table,
    Text,
    case,
    func,
    literal,
    literal_column,
    select,
    type_coerce,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.orm import Session

from app.content.models import Choice, Question, QuestionSet, Topic
from app.exams.models import ITEM_TABLE, Attempt
from app.progress.models import PracticeAnswer

CLOSED = ("submitted", "expired")
_ITEM = ITEM_TABLE
_ATTEMPT = cast(Table, Attempt.__table__)
_ANSWER = cast(Table, PracticeAnswer.__table__)
# Indexes SQLite alone has (PostgreSQL groups by hashing, and has no B-tree for JSON): each
# holds one pass's columns in its group order. Migration 0031 makes them; alembic's model
# comparison leaves them be.
SQLITE_INDEXES = ("ix_exam_attempt_item_statistics", "ix_practice_answer_statistics")


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


def _chosen(dialect: str, column: Any) -> ColumnElement[str]:
    """The chosen ids as stored, to group by: PostgreSQL compares JSON only as text; on
    SQLite the column is text already, and a CAST would keep its index from serving."""
    return sql_cast(column, Text) if dialect == "postgresql" else type_coerce(column, Text)


# Attempts are ranked by percent, ties to the earlier attempt; no percent ranks last.
_PERCENT = func.coalesce(_ATTEMPT.c.percent, -1.0)
_CLOSED = _ATTEMPT.c.status.in_(CLOSED)


def cuts_statement() -> Select[Any]:
    """Per exam (blueprint; custom exams together): the percent and id of the last attempt
    of its stronger half, the floor(n/2) best of its n closed attempts (no row for an exam
    with a single attempt: it has no stronger half)."""
    exam = _ATTEMPT.c.blueprint_id
    ranked = (
        select(
            exam.label("exam"),
            _PERCENT.label("percent"),
            _ATTEMPT.c.id,
            func.row_number()
            .over(partition_by=exam, order_by=(_PERCENT.desc(), _ATTEMPT.c.id))
            .label("rk"),
            func.count().over(partition_by=exam).label("n"),
        )
        .where(_CLOSED)
        .subquery("ranked")
    )
    r = ranked.c
    return select(r.exam, r.percent, r.id).where(r.rk * 2 <= r.n, (r.rk + 1) * 2 > r.n)


def _stronger(cuts: Iterable[tuple[int | None, float, int]]) -> ColumnElement[int]:
    """1 for an attempt ranked at or above its exam's cut, else 0."""
    a = _ATTEMPT.c
    whens = [
        (
            (a.blueprint_id.is_(None) if exam is None else a.blueprint_id == exam)
            & ((_PERCENT > percent) | ((_PERCENT == percent) & (a.id <= last))),
            1,
        )
        for exam, percent, last in cuts
    ]
    return case(*whens, else_=0) if whens else literal(0)


def exam_statement(
    dialect: str, cuts: Iterable[tuple[int | None, float, int]], only: int | None = None
) -> Select[Any]:
    """Per question, chosen ids and right or not: the responses, those from the stronger
    half, Σy and Σy², y being the rest score (the attempt's score less this item's points)."""
    scope = [] if only is None else [_ITEM.c.question_id == only]
    chosen = _chosen(dialect, _ITEM.c.selected_ids)
    rest = _ATTEMPT.c.score - func.coalesce(_ITEM.c.points, 0.0)
    return (
        select(
            _ITEM.c.question_id,
            chosen,
            _ITEM.c.is_correct,
            func.count(),
            func.sum(_stronger(cuts)),
            func.sum(rest),
            func.sum(rest * rest),
        )
        .select_from(_ITEM)
        # `+ 0` keeps SQLite from driving the join from the attempts, which reads the items
        # in attempt order and sorts them all again for the grouping
        .join(_ATTEMPT, _ATTEMPT.c.id == _ITEM.c.attempt_id + 0)
        .where(_CLOSED, _ITEM.c.question_id.is_not(None), _ITEM.c.answered_at.is_not(None), *scope)
        .group_by(_ITEM.c.question_id, chosen, _ITEM.c.is_correct)
    )


# written out rather than bound, so SQLite sees that the partial index covers the statement
_PRACTICE = _ANSWER.c.source == literal_column("'practice'")


def practice_statement(dialect: str, only: int | None = None) -> Select[Any]:
    """Per question, chosen ids and right or not: the answers."""
    scope = [] if only is None else [_ANSWER.c.question_id == only]
    chosen = _chosen(dialect, _ANSWER.c.selected_ids)
    return (
        select(_ANSWER.c.question_id, chosen, _ANSWER.c.is_correct, func.count())
        .where(_PRACTICE, *scope)
        .group_by(_ANSWER.c.question_id, chosen, _ANSWER.c.is_correct)
    )


def times_statement(only: int | None = None) -> Select[Any]:
    """Per question and number of seconds (the time an answer took, to the whole second):
    the answers that took it."""
    scope = [] if only is None else [_ANSWER.c.question_id == only]
    seconds = func.round(_ANSWER.c.seconds)
    return (
        select(_ANSWER.c.question_id, seconds, func.count())
        .where(_PRACTICE, _ANSWER.c.seconds.is_not(None), *scope)
        .group_by(_ANSWER.c.question_id, seconds)
    )


def _ids(stored: str) -> tuple[int, ...]:
    """The choice ids of a stored list (each tally reads every distinct list once)."""
    return tuple(int(n) for n in json.loads(stored))


def _add(totals: dict[int, list[float]], qid: int, values: Iterable[Any]) -> None:
    found = totals.setdefault(qid, [0.0] * 5)
    for n, value in enumerate(values):
        found[n] += float(value or 0)


def exam_tally(session: Session, only: int | None = None) -> Tally:
    """Count the exam responses of every question (or of one), and each choice's picks."""
    cuts = [(exam, percent, last) for exam, percent, last in session.execute(cuts_statement())]
    statement = exam_statement(session.get_bind().dialect.name, cuts, only)
    ids, totals = cache(_ids), dict[int, list[float]]()
    picks, stronger_picks = Counter[tuple[int, int]](), Counter[tuple[int, int]]()
    for qid, chosen, right, count, stronger, rest, squares in session.execute(statement):
        x = 1 if right else 0
        _add(totals, qid, (count, x * count, rest, x * rest, squares))
        for cid in ids(chosen):
            picks[(qid, cid)] += count
            stronger_picks[(qid, cid)] += int(stronger or 0)
    return Tally(
        {qid: Sums(int(n), int(x), y, xy, yy) for qid, (n, x, y, xy, yy) in totals.items()},
        {key: Picks(n, stronger_picks[key]) for key, n in picks.items()},
    )


def practice_tally(session: Session, only: int | None = None) -> Tally:
    """Count the practice answers of every question (or of one), each choice's picks, and
    the median time of the timed ones."""
    statement = practice_statement(session.get_bind().dialect.name, only)
    ids, totals, picks = cache(_ids), dict[int, list[float]](), Counter[tuple[int, int]]()
    for qid, chosen, right, count in session.execute(statement):
        _add(totals, qid, (count, count if right else 0))
        for cid in ids(chosen):
            picks[(qid, cid)] += count
    times: dict[int, dict[float, int]] = {}
    for qid, seconds, count in session.execute(times_statement(only)):
        times.setdefault(qid, {})[float(seconds)] = count
    found = {
        qid: Sums(int(n), int(right), median_seconds=median(times.get(qid, {})))
        for qid, (n, right, *_) in totals.items()
    }
    return Tally(found, {key: Picks(n) for key, n in picks.items()})


def median(counts: dict[float, int]) -> float | None:
    """The median of values given with how often each occurs: the middle value, or the mean
    of the two middle values; None without any."""
    n = sum(counts.values())
    if not n:
        return None
    middle, found, seen = ((n - 1) // 2, n // 2), list[float](), 0
    for value in sorted(counts):
        seen += counts[value]  # the values ranked below `seen` are known
        while len(found) < 2 and middle[len(found)] < seen:
            found.append(value)
        if len(found) == 2:
            break
    return (found[0] + found[1]) / 2


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
