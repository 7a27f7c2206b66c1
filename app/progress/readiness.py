"""Readiness: the score a learner would expect on each exam if they sat it now.

An exam draws its questions from a pool (its sets, or the whole library) and gives each
weighted topic its share of them. The expected score is the mean expected recall over the
questions it could draw: per topic for a weighted exam, then weighted by the topic weights.
A question whose latest answer was right counts with its FSRS retrievability now; one whose
latest answer was wrong counts as 0 (FSRS predicts recall of the answer just shown, not that
the learner knew it); one never seen counts as `UNSEEN_RECALL`, the chance of guessing one of
four choices. The forecast is never above the share of the learner's latest answers on the
pool that were right, and is given only once `needed_answers` of the pool are answered.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import ceil

from app.progress.read_models import Readiness

UNSEEN_RECALL = 0.25
MIN_ANSWERS = 10  # answered questions of a pool before a forecast, or
MIN_SHARE = 0.5  # this share of a smaller pool

CellKey = tuple[str, int | None]  # a question set's slug and a topic id


@dataclass(frozen=True)
class Cell:
    """A learner's standing in the questions of one set filed under one topic."""

    questions: int
    seen: int = 0
    recall_sum: float = 0.0  # expected recall now, summed over the seen ones (wrong ones: 0)
    right: int = 0  # seen ones whose latest answer was right


@dataclass(frozen=True)
class ExamPlan:
    """Where an exam draws from: set slugs (empty: all) and topic subtrees with weights."""

    slug: str
    title: str
    pass_mark: int
    sets: tuple[str, ...]
    topics: tuple[tuple[float, frozenset[int]], ...]


def needed_answers(questions: int) -> int:
    """How many of a pool's questions must be answered before its numbers are shown."""
    return min(MIN_ANSWERS, ceil(MIN_SHARE * questions))


def mean_recall(cells: Iterable[Cell]) -> float | None:
    """Expected share right over the cells' questions, unseen ones at UNSEEN_RECALL."""
    cells = list(cells)
    questions = sum(c.questions for c in cells)
    if not questions:
        return None
    unseen = questions - sum(c.seen for c in cells)
    return (sum(c.recall_sum for c in cells) + UNSEEN_RECALL * unseen) / questions


def expected_score(
    pool: Sequence[Cell], topic_pools: Sequence[tuple[float, Sequence[Cell]]]
) -> float | None:
    """Expected share of points: mean recall per weighted topic, weighted; else over the pool.

    A weighted topic with no questions in the pool has its share drawn from the whole pool,
    as the exam does.
    """
    whole = mean_recall(pool)
    total = sum(weight for weight, _ in topic_pools)
    if whole is None or not total:
        return whole
    means = [(weight, mean_recall(cells)) for weight, cells in topic_pools]
    return sum(weight * (whole if mean is None else mean) for weight, mean in means) / total


def readiness(plan: ExamPlan, cells: Mapping[CellKey, Cell]) -> Readiness:
    """Measure a learner's readiness for one exam from their cells."""
    pool = [c for (set_slug, _), c in cells.items() if not plan.sets or set_slug in plan.sets]
    topic_pools = [
        (
            weight,
            [
                c
                for (set_slug, topic_id), c in cells.items()
                if topic_id in tree and (not plan.sets or set_slug in plan.sets)
            ],
        )
        for weight, tree in plan.topics
    ]
    if plan.topics:  # a weighted exam draws only from its topics
        pool = list({id(c): c for _, found in topic_pools for c in found}.values())
    seen, right = sum(c.seen for c in pool), sum(c.right for c in pool)
    expected = expected_score(pool, topic_pools)
    if expected is not None and seen:
        expected = min(expected, right / seen)
    questions = sum(c.questions for c in pool)
    return Readiness(
        slug=plan.slug,
        title=plan.title,
        pass_mark=plan.pass_mark,
        questions=questions,
        seen=seen,
        expected=expected,
        right=right,
        needed=needed_answers(questions),
    )
