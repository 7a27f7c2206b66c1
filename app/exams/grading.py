"""Grade an attempt's questions against their snapshots, never against today's content."""

from collections.abc import Sequence
from typing import Any


def grade_item(
    snapshot: dict[str, Any], selected: Sequence[int], partial_credit: bool
) -> tuple[bool, float]:
    """Return (right, points) for a choice of ids: all or nothing, or partial when allowed.

    Partial credit (multiple-response questions only) gives each right choice its share and
    takes one share back per wrong choice, never below zero.
    """
    correct = set(snapshot["correct_ids"])
    chosen = set(selected)
    right = bool(chosen) and chosen == correct
    if right or not partial_credit or snapshot["kind"] != "multi" or not correct:
        return right, 1.0 if right else 0.0
    share = (len(chosen & correct) - len(chosen - correct)) / len(correct)
    return False, round(max(0.0, share), 4)


def percent(points: float, total: int) -> float:
    """Return points out of total as a percent with one decimal."""
    return round(100 * points / total, 1) if total else 0.0
