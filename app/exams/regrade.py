"""Regrade after a key fix: judge again, with a question's right choices as they are now, the
graded attempts that held it and the answers learners gave to it.

An attempt keeps a snapshot of each question with the ids of the choices it showed; a save
updates choices in place, so a choice keeps its id and the new key maps onto every snapshot
by id (a choice added since was never shown, one dropped since is no longer right). A dry
run (`preview`) writes nothing. A regrade (`run`) keeps who ran it, when and with which
revision, then goes through the attempts a batch at a time, one unit of work per batch,
keeping each changed attempt's score and outcome before and after; last it judges the
answers again (`rebuild.rejudge`). It changes only what differs from the new key, so
running it again changes nothing. Attempts still open get the new key in their snapshot and
are graded with it when they close.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from app.accounts.errors import PermissionDenied
from app.accounts.models import User
from app.accounts.service import Viewer
from app.content.errors import NotFound
from app.content.models import Choice, Question, QuestionRevision, QuestionSet
from app.db import Database
from app.exams.grading import grade_item, percent
from app.exams.models import ITEM_TABLE, Attempt, Regrade, RegradeAttempt
from app.exams.read_models import RegradeNote
from app.progress.rebuild import rejudge

BATCH = 500  # attempts per unit of work
GRADED = ("submitted", "expired")


@dataclass(frozen=True)
class Counts:
    """What a regrade changes (a dry run) or changed."""

    attempts: int  # graded attempts whose score changes
    flipped: int  # of those, the ones that pass where they failed, or the other way
    answers: int  # answers (practice and exam) whose outcome turns


@dataclass(frozen=True)
class PastRegrade:
    regraded_at: datetime
    author: str | None
    revision: int
    counts: Counts


@dataclass(frozen=True)
class Preview:
    """The dry run of a question's regrade, and the regrades run before."""

    question_id: int
    key: str
    set_title: str
    stem: str
    revision: int
    graded: int  # graded attempts that held the question
    counts: Counts
    past: tuple[PastRegrade, ...]


@dataclass(frozen=True)
class _Change:
    attempt_id: int
    old_score: float
    new_score: float
    old_percent: float
    new_percent: float
    old_passed: bool
    new_passed: bool


def _may_regrade(actor: Viewer) -> None:
    if not actor.may("author"):
        raise PermissionDenied("Only authors can regrade questions.")


def _question(session: Session, question_id: int) -> Question:
    question = session.get(Question, question_id)
    if question is None:
        raise NotFound("There is no question with that number.")
    return question


def right_ids(session: Session, question_id: int) -> set[int]:
    """The ids of the question's right choices as they are now."""
    statement = select(Choice.id).where(Choice.question_id == question_id, Choice.is_correct)
    return set(session.scalars(statement))


def latest_revision(session: Session, question_id: int) -> int:
    """The number of the question's newest revision (whose key a regrade applies)."""
    number = select(func.max(QuestionRevision.number))
    return session.scalar(number.where(QuestionRevision.question_id == question_id)) or 0


def _graded(session: Session, question_id: int) -> int:
    holding = _holding(question_id).where(Attempt.status.in_(GRADED)).subquery()
    return session.scalar(select(func.count()).select_from(holding)) or 0


def _holding(question_id: int) -> Any:
    """The attempts that hold the question, in id order."""
    item = ITEM_TABLE
    return (
        select(Attempt.id)
        .where(Attempt.id.in_(select(item.c.attempt_id).where(item.c.question_id == question_id)))
        .order_by(Attempt.id)
    )


def _judge(
    session: Session, question_id: int, right: set[int], after: int, limit: int
) -> tuple[list[_Change], list[dict[str, Any]], int | None]:
    """Judge the next `limit` attempts after id `after` that hold the question.

    Return the attempts whose score changes, the item rows to write, and the last attempt's
    id (None when there are no more).
    """
    ids = list(session.scalars(_holding(question_id).where(Attempt.id > after).limit(limit)))
    if not ids:
        return [], [], None
    item = ITEM_TABLE
    attempts = {
        a.id: a
        for a in session.execute(
            select(
                Attempt.id,
                Attempt.status,
                Attempt.score,
                Attempt.percent,
                Attempt.passed,
                Attempt.pass_mark,
                Attempt.partial_credit,
                func.count(item.c.id).label("size"),
            )
            .join(item, item.c.attempt_id == Attempt.id)
            .where(Attempt.id.in_(ids))
            .group_by(Attempt.id)
        )
    }
    rows = session.execute(
        select(item.c.id, item.c.attempt_id, item.c.snapshot, item.c.selected_ids, item.c.points)
        .where(item.c.question_id == question_id, item.c.attempt_id.in_(ids))
        .order_by(item.c.attempt_id, item.c.position)
    )
    writes: list[dict[str, Any]] = []
    gained: dict[int, float] = {}
    for row in rows:
        attempt = attempts[row.attempt_id]
        snapshot = row.snapshot
        key = sorted(c["id"] for c in snapshot["choices"] if c["id"] in right)
        graded = attempt.status in GRADED
        ok, points = grade_item(
            {**snapshot, "correct_ids": key}, row.selected_ids, attempt.partial_credit
        )
        moved = graded and points != (row.points or 0.0)
        if sorted(snapshot["correct_ids"]) == key and not moved:
            continue
        if moved:
            gained[row.attempt_id] = gained.get(row.attempt_id, 0.0) + points - (row.points or 0.0)
        writes.append(
            {
                "b_id": row.id,
                "b_snapshot": {**snapshot, "correct_ids": key},
                "b_points": points if graded else row.points,
                "b_correct": ok if graded else None,
            }
        )
    changes = [_change(attempts[aid], delta) for aid, delta in gained.items()]
    return [c for c in changes if c.new_score != c.old_score], writes, ids[-1]


def _change(attempt: Any, delta: float) -> _Change:
    old = attempt.score or 0.0
    new = round(old + delta, 4)
    share = percent(new, attempt.size)
    return _Change(
        attempt.id,
        old,
        new,
        attempt.percent or 0.0,
        share,
        bool(attempt.passed),
        share >= attempt.pass_mark,
    )


def _batches(session: Session, question_id: int, right: set[int]) -> Iterator[list[_Change]]:
    after: int | None = 0
    while after is not None:
        changes, _, after = _judge(session, question_id, right, after, BATCH)
        yield changes


def preview(session: Session, actor: Viewer, question_id: int) -> Preview:
    """What regrading a question with its key as it is now would change; writes nothing."""
    _may_regrade(actor)
    question = _question(session, question_id)
    right = right_ids(session, question_id)
    changes = [c for batch in _batches(session, question_id, right) for c in batch]
    graded = _graded(session, question_id)
    answers = rejudge(session, question_id, right, write=False).answers
    return Preview(
        question.id,
        question.key,
        session.get_one(QuestionSet, question.set_id).title,
        question.stem_md,
        latest_revision(session, question_id),
        graded,
        _counts(changes, answers),
        _past(session, question_id),
    )


def _counts(changes: list[_Change], answers: int) -> Counts:
    flipped = sum(c.old_passed != c.new_passed for c in changes)
    return Counts(len(changes), flipped, answers)


def _past(session: Session, question_id: int) -> tuple[PastRegrade, ...]:
    rows = session.execute(
        select(Regrade, User.username)
        .outerjoin(User, User.id == Regrade.user_id)
        .where(Regrade.question_id == question_id)
        .order_by(Regrade.id.desc())
    )
    return tuple(
        PastRegrade(r.regraded_at, name, r.revision, Counts(r.attempts, r.flipped, r.answers))
        for r, name in rows
    )


def begin(session: Session, actor: Viewer, question_id: int, now: datetime) -> int:
    """Keep a new regrade of a question (who, when, which revision); return its id."""
    _may_regrade(actor)
    _question(session, question_id)
    regrade = Regrade(
        question_id=question_id,
        revision=latest_revision(session, question_id),
        user_id=actor.id,
        regraded_at=now,
        attempts=0,
        flipped=0,
        answers=0,
    )
    session.add(regrade)
    session.flush()
    return regrade.id


def _lock(session: Session, question_id: int) -> None:
    # Takes turns with editor saves and other regrades of the question on PostgreSQL (SQLite
    # writes one at a time): a batch judges with one key and sees what the one before wrote.
    session.execute(select(Question.id).where(Question.id == question_id).with_for_update())


_WRITE_ITEM = (
    update(ITEM_TABLE)
    .where(ITEM_TABLE.c.id == bindparam("b_id"))
    .values(
        snapshot=bindparam("b_snapshot"),
        points=bindparam("b_points"),
        is_correct=bindparam("b_correct"),
    )
)


def regrade_batch(session: Session, regrade_id: int, question_id: int, after: int) -> int | None:
    """Regrade the next batch of attempts after id `after`; return the id to go on after
    (None when done)."""
    _lock(session, question_id)
    right = right_ids(session, question_id)
    changes, writes, last = _judge(session, question_id, right, after, BATCH)
    if writes:
        session.connection().execute(_WRITE_ITEM, writes)
    if changes:
        session.execute(
            update(Attempt),
            [
                {
                    "id": c.attempt_id,
                    "score": c.new_score,
                    "percent": c.new_percent,
                    "passed": c.new_passed,
                }
                for c in changes
            ],
        )
        session.execute(
            insert(RegradeAttempt), [{"regrade_id": regrade_id, **vars(c)} for c in changes]
        )
        counts = _counts(changes, 0)
        session.execute(
            update(Regrade)
            .where(Regrade.id == regrade_id)
            .values(
                attempts=Regrade.attempts + counts.attempts,
                flipped=Regrade.flipped + counts.flipped,
            )
        )
    return last


def finish(session: Session, regrade_id: int, question_id: int) -> Counts:
    """Judge the question's answers again, replay the cards they turn; return what changed."""
    _lock(session, question_id)
    answers = rejudge(session, question_id, right_ids(session, question_id), write=True).answers
    regrade = session.get_one(Regrade, regrade_id)
    regrade.answers = answers
    session.flush()
    return Counts(regrade.attempts, regrade.flipped, answers)


async def run(db: Database, actor: Viewer, question_id: int, now: datetime) -> Counts:
    """Regrade a question: keep the regrade, its batches of attempts, then its answers, each
    in a unit of work of its own; return what changed."""
    regrade_id = await db.write(begin, actor, question_id, now)
    after: int | None = 0
    while after is not None:
        after = await db.write(regrade_batch, regrade_id, question_id, after)
    return await db.write(finish, regrade_id, question_id)


def regrade_notes(
    session: Session,
    user_id: int,
    *,
    attempt_id: int | None = None,
    since: datetime | None = None,
) -> tuple[RegradeNote, ...]:
    """A learner's attempts that regrades changed (one attempt's, or those since a moment),
    oldest first."""
    statement = (
        select(
            RegradeAttempt.attempt_id,
            Attempt.title,
            Regrade.regraded_at,
            RegradeAttempt.old_percent,
            RegradeAttempt.new_percent,
            RegradeAttempt.old_passed,
            RegradeAttempt.new_passed,
        )
        .join(Regrade, Regrade.id == RegradeAttempt.regrade_id)
        .join(Attempt, Attempt.id == RegradeAttempt.attempt_id)
        .where(Attempt.user_id == user_id)
        .order_by(Regrade.regraded_at, RegradeAttempt.id)
    )
    if attempt_id is not None:
        statement = statement.where(RegradeAttempt.attempt_id == attempt_id)
    if since is not None:
        statement = statement.where(Regrade.regraded_at >= since)
    return tuple(RegradeNote(*row) for row in session.execute(statement))
