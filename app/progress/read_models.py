"""Read models of a learner's progress, handed to templates and the API."""

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class ReviewStatus:
    """How many of a learner's questions are due for review now, today, and when the next are."""

    due_now: int
    due_today: int  # due before the end of the day (UTC), those due now included
    next_due_at: datetime | None  # the first one not yet due

    @property
    def later_today(self) -> int:
        return self.due_today - self.due_now


@dataclass(frozen=True)
class ReviewOutcome:
    """A review card after an answer: its state and when it is due next."""

    state: int
    due_at: datetime
    stability: float | None
    difficulty: float | None
