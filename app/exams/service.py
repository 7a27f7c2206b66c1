"""Exam rules: draw a paper (sample, shuffle, snapshot), sit it (fix the deadline), submit,
finalise.

Services add and flush; the request commits. Every rule about time takes `now`, so the
clock is the server's and tests move it by hand. Finalising is one conditional UPDATE
(`... WHERE status = 'open'`): any number of submits and sweeps racing each other close an
attempt once. Starting counts against the learner's quota (open custom exams, exams started
in a day). Saving answers and flags lives in `answers`.
"""

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    CursorResult,
    and_,
    bindparam,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.content.blueprints import ExamBlueprint
from app.exams import sampling
from app.exams.allowances import time_multiplier
from app.exams.errors import NotFound, QuotaReached
from app.exams.grading import grade_item, percent
from app.exams.models import ITEM_TABLE, Attempt, AttemptItem
from app.progress.service import Answer, record_exam


@dataclass(frozen=True)
class Started:
    attempt_id: int
    resumed: bool


@dataclass(frozen=True)
class Quota:
    """How many attempts one learner may start: custom ones open at once, any in 24 hours."""

    open_custom: int
    per_day: int


DAY = timedelta(days=1)


@dataclass(frozen=True)
class ExamSpec:
    """What an attempt is drawn from and how it runs: a blueprint's, or a custom one's."""

    title: str
    question_ids: tuple[int, ...]  # the pool to draw from, or (weights) per topic
    count: int
    time_limit_s: int | None
    pass_mark: int
    mode: str
    shuffle_questions: bool = True
    shuffle_choices: bool = True
    partial_credit: bool = False
    topic_pools: tuple[tuple[float, tuple[int, ...]], ...] = ()
    reasoning: int = 0  # percent of the draw, at least, from reasoning_ids where there are some
    reasoning_ids: frozenset[int] = frozenset()  # the questions that apply or analyse


def _due(attempt: Attempt, now: datetime, grace: timedelta) -> bool:
    return attempt.deadline_at is not None and now > attempt.deadline_at + grace


@dataclass(frozen=True)
class Paper:
    """An exam drawn for one sitting: its rules, its blueprint and its questions as copied.

    Drawing reads the content (the pool, the questions, their choices and links) and writes
    nothing, so a request draws in a read and only the sitting itself is a write: the one
    writer spends no time on the content. The command line and tests draw and sit in one
    session: `sit(session, ..., blueprint_paper(session, slug), ...)`.
    """

    spec: ExamSpec
    blueprint_id: int | None  # None: a custom exam
    questions: list[tuple[int, dict[str, Any]]]  # question id and snapshot, in order

    @property
    def slot(self) -> str | None:
        """One open attempt per catalogue exam; custom exams have no slot."""
        return f"exam:{self.blueprint_id}" if self.blueprint_id is not None else None


def blueprint_paper(session: Session, slug: str, rng: random.Random | None = None) -> Paper:
    """Draw a blueprint's exam."""
    blueprint = session.scalars(
        select(ExamBlueprint).where(ExamBlueprint.slug == slug)
    ).one_or_none()
    if blueprint is None:
        raise NotFound(f"There is no exam called “{slug}”.")
    spec = sampling.blueprint_spec(session, blueprint)
    return paper(session, spec, rng, blueprint_id=blueprint.id)


def paper(
    session: Session,
    spec: ExamSpec,
    rng: random.Random | None = None,
    *,
    blueprint_id: int | None = None,
) -> Paper:
    """Draw an exam from a spec: sample its questions and copy them as they are now."""
    rng = rng or random.Random()
    drawn = sampling.snapshots(session, sampling.draw(spec, rng), spec.shuffle_choices, rng)
    return Paper(spec, blueprint_id, drawn)


def sit(
    session: Session,
    user_id: int,
    drawn: Paper,
    now: datetime,
    grace: timedelta,
    *,
    quota: Quota | None = None,
) -> Started:
    """Start an attempt at a drawn exam in its slot (one open attempt each), or resume the
    one open there, leaving the paper unused.

    Custom exams have no slot: a learner may keep several open, up to the quota. A new
    attempt (never a resumed one) counts against the quota; None (the CLI, tests) has none.
    """
    slot, spec = drawn.slot, drawn.spec
    existing = _open_in_slot(session, user_id, slot) if slot is not None else None
    if existing is not None and finalise_if_due(session, existing, now, grace):
        existing = None
    if existing is not None:
        return Started(existing.id, resumed=True)
    if quota is not None:
        _check_quota(session, user_id, quota, now, grace, custom=slot is None)
    attempt = {
        "user_id": user_id,
        "blueprint_id": drawn.blueprint_id,
        "open_slot": slot,
        "title": spec.title,
        "mode": spec.mode,
        "status": "open",
        "pass_mark": spec.pass_mark,
        "partial_credit": spec.partial_credit,
        "question_count": len(drawn.questions),
        "started_at": now,
        "deadline_at": _deadline(session, user_id, spec, now),
    }
    try:
        with session.begin_nested():  # a second tab may have started the same exam meanwhile
            attempt_id = session.execute(
                insert(Attempt).values(attempt).returning(Attempt.id)
            ).scalar_one()
            session.execute(
                insert(AttemptItem),
                [
                    {
                        "attempt_id": attempt_id,
                        "position": n,
                        "question_id": qid,
                        "snapshot": snapshot,
                        "selected_ids": [],
                        "flagged": False,
                    }
                    for n, (qid, snapshot) in enumerate(drawn.questions, start=1)
                ],
            )
    except IntegrityError:
        twin = _open_in_slot(session, user_id, slot) if slot is not None else None
        if twin is None:
            raise
        return Started(twin.id, resumed=True)
    return Started(attempt_id, resumed=False)


def _check_quota(
    session: Session, user_id: int, quota: Quota, now: datetime, grace: timedelta, *, custom: bool
) -> None:
    """Refuse a new attempt past the learner's quota, saying when one is free again.

    The learner's row is locked first (PostgreSQL; SQLite runs one write at a time), so two
    starts at once count each other rather than both seeing room for one more.
    """
    session.execute(select(User.id).where(User.id == user_id).with_for_update())
    if custom:
        _refuse_past_open_custom(session, user_id, quota, now, grace)
    recent = session.scalars(
        select(Attempt.started_at)
        .where(Attempt.user_id == user_id, Attempt.started_at > now - DAY)
        .order_by(Attempt.started_at.desc())
        .limit(quota.per_day)
    ).all()
    if len(recent) >= quota.per_day:
        wait = max(1, math.ceil((recent[-1] + DAY - now).total_seconds()))
        raise QuotaReached(
            f"You have started {quota.per_day} exams in the last 24 hours, as many as you may. "
            f"You can start another in {_in_words(wait)}; your open exams can be resumed now.",
            retry_after_s=wait,
        )


def _refuse_past_open_custom(
    session: Session, user_id: int, quota: Quota, now: datetime, grace: timedelta
) -> None:
    """Refuse a custom exam while the learner has the most open; those whose time ran out
    are finalised first, so they no longer count (the sweep may not have come by yet)."""
    due = session.scalars(select(Attempt).where(Attempt.user_id == user_id, overdue(now, grace)))
    for attempt in due.all():
        finalise(session, attempt, now, timed_out=True)
    still_open = session.scalar(
        select(func.count(Attempt.id)).where(
            Attempt.user_id == user_id, Attempt.status == "open", Attempt.open_slot.is_(None)
        )
    )
    if (still_open or 0) >= quota.open_custom:
        raise QuotaReached(
            f"You have {quota.open_custom} custom exams open, as many as you may have at "
            "once. Finish or submit one of them (see Your attempts) to start another."
        )


def _in_words(seconds: int) -> str:
    hours, minutes = seconds // 3600, -(-(seconds % 3600) // 60)
    if hours:
        return f"{hours} hour{'s' * (hours != 1)}" + (f" {minutes} min" if minutes else "")
    return f"{max(minutes, 1)} minute{'s' * (minutes > 1)}"


def _deadline(session: Session, user_id: int, spec: ExamSpec, now: datetime) -> datetime | None:
    if not spec.time_limit_s:
        return None
    return now + timedelta(seconds=spec.time_limit_s * time_multiplier(session, user_id))


def _open_in_slot(session: Session, user_id: int, slot: str) -> Attempt | None:
    return session.scalars(
        select(Attempt).where(Attempt.user_id == user_id, Attempt.open_slot == slot)
    ).one_or_none()


def _changed(session: Session, statement: Any) -> int:
    """Run a conditional UPDATE and return how many rows it changed."""
    result = session.execute(statement, execution_options={"synchronize_session": False})
    assert isinstance(result, CursorResult)
    return result.rowcount


def finalise(session: Session, attempt: Attempt, now: datetime, *, timed_out: bool) -> bool:
    """Close an open attempt and grade it; False when someone else closed it first.

    Timed out, it counts as submitted at its deadline with what was saved by then (an
    untimed one the sweep closes, at its last save). Its answered questions then count in
    the learner's progress like any other answer.
    """
    last = attempt.deadline_at or attempt.last_saved_at or attempt.started_at
    finished = last if timed_out else now
    closed = _changed(
        session,
        update(Attempt)
        .where(Attempt.id == attempt.id, Attempt.status == "open")
        .values(
            status="expired" if timed_out else "submitted", submitted_at=finished, open_slot=None
        ),
    )
    if closed != 1:
        session.expire(attempt)
        return False
    # Saves write items with plain UPDATEs: read the rows themselves, never objects an
    # earlier job of the same batch left in the session.
    items = session.connection().execute(_ITEMS_TO_GRADE, {"b_attempt_id": attempt.id}).all()
    grades = [
        (item, *grade_item(item.snapshot, item.selected_ids, attempt.partial_credit))
        for item in items
    ]
    if grades:
        session.connection().execute(
            _GRADE_ITEM,
            [{"b_item_id": item.id, "b_correct": ok, "b_points": pts} for item, ok, pts in grades],
        )
    points = sum(pts for _, _, pts in grades)
    share = percent(points, len(items))
    session.execute(
        update(Attempt)
        .where(Attempt.id == attempt.id)
        .values(score=points, percent=share, passed=share >= attempt.pass_mark)
        .execution_options(synchronize_session=False)
    )
    record_exam(session, attempt.user_id, _answers(grades, finished), finished)
    session.expire(attempt)
    return True


_ITEM = ITEM_TABLE
_ITEMS_TO_GRADE = select(
    _ITEM.c.id, _ITEM.c.question_id, _ITEM.c.snapshot, _ITEM.c.selected_ids, _ITEM.c.answered_at
).where(_ITEM.c.attempt_id == bindparam("b_attempt_id"))
_GRADE_ITEM = (
    update(_ITEM)
    .where(_ITEM.c.id == bindparam("b_item_id"))
    .values(is_correct=bindparam("b_correct"), points=bindparam("b_points"))
)


def _answers(grades: Sequence[tuple[Any, bool, float]], finished: datetime) -> list[Answer]:
    """The graded items a learner answered, as answers for their progress."""
    return [
        Answer(
            question_id=item.question_id,
            question_revision=item.snapshot.get("revision", 1),
            selected_ids=item.selected_ids,
            is_correct=bool(correct),
            answered_at=item.answered_at or finished,
            source="exam",
        )
        for item, correct, _ in grades
        if item.question_id is not None and item.selected_ids
    ]


def finalise_if_due(session: Session, attempt: Attempt, now: datetime, grace: timedelta) -> bool:
    """Finalise an open attempt whose deadline and grace have passed; tell whether it did."""
    return (
        attempt.status == "open"
        and _due(attempt, now, grace)
        and finalise(session, attempt, now, timed_out=True)
    )


def overdue(now: datetime, grace: timedelta, idle: timedelta | None = None) -> ColumnElement[bool]:
    """Open attempts past their deadline and grace; with `idle`, untimed ones left that long."""
    timed_out = Attempt.deadline_at < now - grace
    if idle is not None:
        last = func.coalesce(Attempt.last_saved_at, Attempt.started_at)
        timed_out = or_(timed_out, and_(Attempt.deadline_at.is_(None), last < now - idle))
    return and_(Attempt.status == "open", timed_out)


def sweep(session: Session, now: datetime, grace: timedelta, idle: timedelta | None = None) -> int:
    """Finalise every attempt past its deadline and grace, and every untimed one left `idle`
    without a save; return how many this call closed."""
    due = session.scalars(select(Attempt).where(overdue(now, grace, idle)).order_by(Attempt.id))
    return sum(1 for attempt in due.all() if finalise(session, attempt, now, timed_out=True))


def submit(session: Session, attempt_id: int, user_id: int, now: datetime, grace: timedelta) -> str:
    """Submit an attempt; return its status ('expired' when time had run out already).

    Submitting twice (a second tab, a double click) is not an error: it was submitted.
    """
    attempt = session.get(Attempt, attempt_id)
    if attempt is None or attempt.user_id != user_id:
        raise NotFound("There is nothing here with that number.")
    if attempt.status == "open":
        finalise(session, attempt, now, timed_out=_due(attempt, now, grace))
    return session.scalars(select(Attempt.status).where(Attempt.id == attempt_id)).one()


def finalise_due(session: Session, attempt_id: int, now: datetime, grace: timedelta) -> bool:
    """Finalise one attempt if its time and grace ran out (on any access to it)."""
    attempt = session.get(Attempt, attempt_id)
    return attempt is not None and finalise_if_due(session, attempt, now, grace)
