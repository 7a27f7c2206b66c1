"""Saving answers and flags: the most frequent writes, kept lean.

A save first claims its attempt with a conditional UPDATE (`... WHERE status = 'open'`),
so on PostgreSQL a save and a finalisation queue on the row lock and no answer lands after
grading; the claim also refuses an attempt that is missing, someone else's, closed or out
of time. On SQLite one writer thread makes every save, so the statements are built once,
on the tables rather than the ORM classes: a save spends nothing on building expressions,
computing cache keys or the ORM's bulk-update machinery (most of a save's time when
measured), and its question is returned as plain data rather than an ORM object.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.orm import Session

from app.db import UTCDateTime
from app.exams import queries
from app.exams.errors import AttemptClosed, InvalidExamAnswer, NotFound, TimeUp
from app.exams.models import ITEM_TABLE, Attempt
from app.exams.read_models import AttemptHeader, ItemView, TakeView


@dataclass(frozen=True)
class Claimed:
    """An open attempt locked for a change by this transaction: what a save needs of it."""

    id: int
    mode: str


@dataclass(frozen=True)
class Item:
    """One question of an attempt as a save reads and leaves it."""

    id: int
    snapshot: dict[str, Any]
    selected_ids: list[int]
    flagged: bool

    def view(self, attempt: AttemptHeader, position: int) -> ItemView:
        """The question as shown: from what the save read and wrote, without reading it again."""
        return queries.item_view(attempt, position, self.snapshot, self.selected_ids, self.flagged)


_ATTEMPT = cast(Table, Attempt.__table__)
_ITEM = ITEM_TABLE
_CLAIM = (
    update(_ATTEMPT)
    .where(
        _ATTEMPT.c.id == bindparam("b_attempt_id"),
        _ATTEMPT.c.user_id == bindparam("b_user_id"),
        _ATTEMPT.c.status == "open",
    )
    .values(last_saved_at=bindparam("b_now", type_=UTCDateTime))
    .returning(_ATTEMPT.c.mode, _ATTEMPT.c.deadline_at)
)
_OWNER = select(_ATTEMPT.c.user_id).where(_ATTEMPT.c.id == bindparam("b_attempt_id"))
_ITEM_AT = select(_ITEM.c.id, _ITEM.c.snapshot, _ITEM.c.selected_ids, _ITEM.c.flagged).where(
    _ITEM.c.attempt_id == bindparam("b_attempt_id"), _ITEM.c.position == bindparam("b_position")
)
_ANSWER = (
    update(_ITEM)
    .where(_ITEM.c.id == bindparam("b_item_id"))
    .values(
        selected_ids=bindparam("b_selected", type_=_ITEM.c.selected_ids.type),
        answered_at=bindparam("b_answered", type_=UTCDateTime),
        flagged=bindparam("b_flag", type_=_ITEM.c.flagged.type),
    )
)
_FLAG = (
    update(_ITEM)
    .where(_ITEM.c.id == bindparam("b_item_id"))
    .values(flagged=bindparam("b_flag", type_=_ITEM.c.flagged.type))
)


def _claim(
    session: Session, attempt_id: int, user_id: int, now: datetime, grace: timedelta
) -> Claimed:
    """Lock a learner's open attempt for a change, or refuse: missing, closed or out of time.

    One statement on the way that succeeds: the UPDATE hands back what the rules need.
    """
    row = session.execute(
        _CLAIM, {"b_attempt_id": attempt_id, "b_user_id": user_id, "b_now": now}
    ).one_or_none()
    if row is None:
        if session.scalar(_OWNER, {"b_attempt_id": attempt_id}) != user_id:
            raise NotFound("There is nothing here with that number.")
        raise AttemptClosed(attempt_id)
    if row.deadline_at is not None and now > row.deadline_at + grace:
        raise TimeUp(attempt_id)
    return Claimed(attempt_id, row.mode)


def _item(session: Session, attempt: Claimed, position: int) -> Item:
    row = session.execute(_ITEM_AT, {"b_attempt_id": attempt.id, "b_position": position}).first()
    if row is None:
        raise NotFound(f"This exam has no question {position}.")
    return Item(row.id, row.snapshot, row.selected_ids, row.flagged)


def _answer(
    session: Session, item: Item, selected: list[int], flagged: bool, now: datetime
) -> Item:
    """Write an item's choices (answered now, or unanswered when none) and its flag."""
    answered = now if selected else None
    values = {
        "b_item_id": item.id,
        "b_selected": selected,
        "b_answered": answered,
        "b_flag": flagged,
    }
    session.execute(_ANSWER, values)
    return replace(item, selected_ids=selected, flagged=flagged)


def _flag(session: Session, item: Item, flagged: bool) -> Item:
    session.execute(_FLAG, {"b_item_id": item.id, "b_flag": flagged})
    return replace(item, flagged=flagged)


def save_answer(
    session: Session,
    attempt_id: int,
    user_id: int,
    position: int,
    choice_ids: Sequence[int],
    now: datetime,
    grace: timedelta,
) -> Item:
    """Keep the choices of one question (an empty list clears an exam-mode answer)."""
    attempt = _claim(session, attempt_id, user_id, now, grace)
    item = _item(session, attempt, position)
    selected = _checked_choices(item, choice_ids)
    if attempt.mode == "practice":
        if item.selected_ids:
            raise InvalidExamAnswer("This question was answered already; its feedback is shown.")
        if not selected:
            raise InvalidExamAnswer("Choose an answer first.")
    return _answer(session, item, selected, item.flagged, now)


def _checked_choices(item: Item, choice_ids: Sequence[int]) -> list[int]:
    """The chosen ids, once each, refused unless they fit the question."""
    selected = list(dict.fromkeys(choice_ids))
    known = {choice["id"] for choice in item.snapshot["choices"]}
    unknown = [choice_id for choice_id in selected if choice_id not in known]
    if unknown:
        raise InvalidExamAnswer(f"Choice {unknown[0]} is not one of this question's choices.")
    if item.snapshot["kind"] == "single" and len(selected) > 1:
        raise InvalidExamAnswer("This question takes exactly one answer.")
    return selected


def set_flag(
    session: Session,
    attempt_id: int,
    user_id: int,
    position: int,
    flagged: bool,
    now: datetime,
    grace: timedelta,
) -> Item:
    """Flag a question for review before submitting, or take the flag off."""
    attempt = _claim(session, attempt_id, user_id, now, grace)
    return _flag(session, _item(session, attempt, position), flagged)


@dataclass(frozen=True)
class PageSave:
    """What one question's page sends: its choices and its flag, by whom and when."""

    attempt_id: int
    user_id: int
    position: int
    choice_ids: Sequence[int]
    flagged: bool
    now: datetime
    grace: timedelta


def past_deadline(attempt: AttemptHeader, now: datetime) -> bool:
    """Whether `now` is after the attempt's deadline: a save then lands in the grace (and
    counts), a submission then is one the clock forced."""
    return attempt.deadline_at is not None and now > attempt.deadline_at


def save_page(session: Session, save: PageSave) -> tuple[Item, AttemptHeader]:
    """Keep what one question's page holds: its choices and its flag; return the item and the
    attempt as they now stand.

    The save checks the attempt itself (the learner's, open, in time), so a page's save reads
    nothing before it. In practice mode an answered question keeps its first answer (its
    feedback is showing), and a page left without a choice keeps the question unanswered.
    """
    attempt = _claim(session, save.attempt_id, save.user_id, save.now, save.grace)
    item = _item(session, attempt, save.position)
    selected = _checked_choices(item, save.choice_ids)
    if attempt.mode == "exam" or (selected and not item.selected_ids):
        item = _answer(session, item, selected, save.flagged, save.now)
    else:
        item = _flag(session, item, save.flagged)
    return item, queries.header(session, save.attempt_id, save.user_id)


def save_page_and_take(session: Session, save: PageSave) -> TakeView:
    """Save a question's page, then gather it and the navigator as they now stand.

    The saved question is shown from what the save read and wrote; only the marks are read.
    """
    item, attempt = save_page(session, save)
    marks = queries.marks(session, attempt.id)
    return TakeView(
        attempt, item.view(attempt, save.position), marks, attempt.remaining_s(save.now)
    )
