"""Read models of a learner's progress, handed to templates and the API."""

from dataclasses import dataclass
from datetime import date, datetime


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


@dataclass(frozen=True)
class TopicMastery:
    """Where a learner stands in one topic (its own questions, not its subtopics')."""

    slug: str
    title: str
    questions: int
    seen: int  # questions answered at least once
    latest_right: int  # of those, the ones whose latest answer was right
    recall_sum: float  # predicted recall now, summed over the topic's review cards
    cards: int
    first_question_id: int | None
    note_count: int

    @property
    def accuracy(self) -> float | None:
        """Share of the seen questions whose latest answer was right."""
        return self.latest_right / self.seen if self.seen else None

    @property
    def recall(self) -> float | None:
        """Mean predicted recall (FSRS retrievability) now, over the questions met."""
        return self.recall_sum / self.cards if self.cards else None

    @property
    def mastery(self) -> float:
        """Share of all the topic's questions the learner is expected to get right now."""
        return self.recall_sum / self.questions if self.questions else 0.0


@dataclass(frozen=True)
class CalendarDay:
    day: date
    answers: int | None  # None for days still to come


@dataclass(frozen=True)
class Dashboard:
    review: ReviewStatus
    topics: tuple[TopicMastery, ...]  # weakest first
    weeks: tuple[tuple[CalendarDay, ...], ...]  # Monday to Sunday, oldest week first
    streak_days: int
    days_studied: int
    answers: int


@dataclass(frozen=True)
class SetTally:
    """A learner's running tally in a question set: questions answered, latest answers right."""

    set_slug: str
    total: int
    answered: int
    right: int


@dataclass(frozen=True)
class SummaryQuestion:
    id: int
    position: int
    stem_html: str
    correct: bool | None  # the latest answer; None when not answered


@dataclass(frozen=True)
class SectionToRead:
    note_slug: str
    note_title: str
    anchor: str
    heading: str


@dataclass(frozen=True)
class SetSummary:
    """A learner's result in a question set, from the latest answer to each question."""

    slug: str
    title: str
    questions: tuple[SummaryQuestion, ...]
    to_read: tuple[SectionToRead, ...]  # the note sections that teach the ones got wrong

    @property
    def right(self) -> int:
        return sum(1 for q in self.questions if q.correct)

    @property
    def answered(self) -> int:
        return sum(1 for q in self.questions if q.correct is not None)

    @property
    def wrong(self) -> tuple[SummaryQuestion, ...]:
        return tuple(q for q in self.questions if q.correct is False)

    @property
    def unanswered(self) -> tuple[SummaryQuestion, ...]:
        return tuple(q for q in self.questions if q.correct is None)
