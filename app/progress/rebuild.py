"""Rebuild what is derived from learners' answers: the review card of every question answered.

Cards (and the tallies, mastery and reviews read from them) are kept as answers are given.
A database from a release that kept answers but no cards, or one restored from such a
release's backup, has answers without cards; replaying each learner's answers in order gives
the cards they would have had.
"""

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC
from itertools import groupby
from typing import Any

from fsrs import Card, Rating, State
from sqlalchemy import exists, select, update
from sqlalchemy.orm import Session

from app.progress.models import PracticeAnswer, ReviewCard
from app.progress.service import SCHEDULER, card_row, rating, save_cards

BATCH = 500  # cards written per statement

_HAS_CARD = exists().where(
    ReviewCard.user_id == PracticeAnswer.user_id,
    ReviewCard.question_id == PracticeAnswer.question_id,
)


@dataclass(frozen=True)
class Rebuilt:
    """What a rebuild did."""

    cards: int
    answers: int


def cards_missing(session: Session) -> bool:
    """Tell whether some learner has answered a question that has no review card."""
    return session.scalar(select(select(PracticeAnswer.id).where(~_HAS_CARD).exists())) or False


def rebuild_cards(session: Session, progress: Callable[[int], None] | None = None) -> Rebuilt:
    """Make the missing review cards from the answers, in the order they were given.

    Cards that exist are left alone. Answers are rated by their outcome alone, as exam
    answers are (the time an old answer took is not known). The caller commits.
    """
    answers = session.execute(
        select(
            PracticeAnswer.user_id,
            PracticeAnswer.question_id,
            PracticeAnswer.is_correct,
            PracticeAnswer.answered_at,
        )
        .where(~_HAS_CARD)
        .order_by(PracticeAnswer.user_id, PracticeAnswer.question_id, PracticeAnswer.answered_at)
    )
    cards = answered = 0
    for batch in _batches(groupby(answers, key=lambda a: (a.user_id, a.question_id))):
        rows = [
            _replay(user_id, question_id, list(given)) for (user_id, question_id), given in batch
        ]
        save_cards(session, rows)
        cards += len(rows)
        answered += sum(row["reviews"] for row in rows)
        if progress:
            progress(cards)
    return Rebuilt(cards, answered)


def _batches(groups: Iterator[Any]) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for key, given in groups:
        batch.append((key, list(given)))
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _replay(user_id: int, question_id: int, answers: Sequence[Any]) -> dict[str, Any]:
    """A learner's card for a question after their answers to it, oldest first."""
    card = Card(card_id=question_id, due=answers[0].answered_at.astimezone(UTC))
    lapses, grade = 0, Rating.Good
    for answer in answers:
        grade = rating(answer.is_correct)
        lapses += grade == Rating.Again and card.state == State.Review
        card, _ = SCHEDULER.review_card(
            card, grade, review_datetime=answer.answered_at.astimezone(UTC)
        )
    taken_up = answers[1].answered_at if len(answers) > 1 else None
    return card_row(user_id, card, grade, len(answers), lapses, taken_up)


@dataclass(frozen=True)
class Rejudged:
    """Answers to a question whose outcome a new key turns, and the learners who gave them."""

    answers: int
    learners: tuple[int, ...]


def rejudge(session: Session, question_id: int, right_ids: set[int], write: bool) -> Rejudged:
    """Judge every answer to a question again against its right choices (ids); with `write`,
    keep the new outcomes and replay the cards of the learners whose answers turned.

    A replayed card is the card those answers would have made had the key been right from
    the start: a lapse that was the old key's fault is gone, and the schedule follows. The
    answers are rated by outcome alone (Good or Again), as a rebuild rates them.
    """
    rows = session.execute(
        select(
            PracticeAnswer.id,
            PracticeAnswer.user_id,
            PracticeAnswer.selected_ids,
            PracticeAnswer.is_correct,
        ).where(PracticeAnswer.question_id == question_id)
    ).all()
    turned = [
        (row.id, row.user_id, not row.is_correct)
        for row in rows
        if (bool(row.selected_ids) and set(row.selected_ids) == right_ids) != row.is_correct
    ]
    learners = tuple(sorted({user_id for _, user_id, _ in turned}))
    if write and turned:
        session.execute(
            update(PracticeAnswer),
            [{"id": answer_id, "is_correct": now_right} for answer_id, _, now_right in turned],
        )
        replay_cards(session, question_id, learners)
    return Rejudged(len(turned), learners)


def replay_cards(session: Session, question_id: int, user_ids: Sequence[int]) -> None:
    """Make the cards of these learners for a question again from all their answers to it."""
    for start in range(0, len(user_ids), BATCH):
        answers = session.execute(
            select(
                PracticeAnswer.user_id,
                PracticeAnswer.question_id,
                PracticeAnswer.is_correct,
                PracticeAnswer.answered_at,
            )
            .where(
                PracticeAnswer.question_id == question_id,
                PracticeAnswer.user_id.in_(user_ids[start : start + BATCH]),
            )
            .order_by(PracticeAnswer.user_id, PracticeAnswer.answered_at, PracticeAnswer.id)
        )
        rows = [
            _replay(user_id, question_id, list(given))
            for user_id, given in groupby(answers, key=lambda a: a.user_id)
        ]
        if rows:
            save_cards(session, rows)
