"""Read models of a learner's progress, handed to templates and the API."""

from dataclasses import dataclass
from datetime import date, datetime
from math import floor
from typing import Any, Protocol

from sqlalchemy.orm import Session

from app.content.read_models import SectionRef
from app.progress.limits import Limits

TOPIC_MIN_ANSWERS = 3  # answered questions of a topic (or all it has) before its numbers show


@dataclass(frozen=True)
class ReviewStatus:
    """What a learner's review queue serves now, within the day's limits, and what waits."""

    due_now: int  # due now and within today's limits: the one count pages show
    due_today: int  # due before the end of the learner's day, limits aside
    next_due_at: datetime | None  # the first one not yet due
    reviews: int = 0  # of due_now, the reviews (served before the new ones)
    waiting: int = 0  # due now but past today's limits: they wait for tomorrow
    done_today: int = 0  # reviews done today, new questions taken up included
    held_by: str | None = None  # the limit holding `waiting` back: "reviews" or "new"
    limits: Limits = Limits()
    time_zone: str = "UTC"  # the learner's, where their day begins and ends

    @property
    def new(self) -> int:
        """Of due_now, the new questions (see `app.progress.limits`)."""
        return self.due_now - self.reviews

    @property
    def done_for_today(self) -> bool:
        """Whether the day's limits hold back everything that is due."""
        return self.due_now == 0 and self.waiting > 0


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
    recall_sum: float  # expected recall now, summed over its cards (latest answer wrong: 0)
    first_question_id: int | None
    note_count: int
    notes_read: int = 0

    @property
    def accuracy(self) -> float | None:
        """Share of the seen questions whose latest answer was right."""
        return self.latest_right / self.seen if self.seen else None

    @property
    def recall(self) -> float | None:
        """Share of the seen questions expected right now: FSRS retrievability of the ones
        last answered right, 0 for the ones last answered wrong."""
        return self.recall_sum / self.seen if self.seen else None

    @property
    def mastery(self) -> float:
        """Share of all the topic's questions the learner is expected to get right now."""
        return self.recall_sum / self.questions if self.questions else 0.0

    @property
    def needed(self) -> int:
        """Answered questions needed before the topic's numbers are shown."""
        return min(TOPIC_MIN_ANSWERS, self.questions)

    @property
    def measured(self) -> bool:
        """Whether enough of the topic's questions are answered to say how it stands."""
        return self.seen > 0 and self.seen >= self.needed

    @property
    def weakness(self) -> tuple[bool, float, float, str]:
        """Sort key, weakest first: measured topics by recall now, then the unmeasured ones."""
        if not self.measured:
            return (True, 0.0, 0.0, self.title)
        return (False, self.recall or 0.0, self.accuracy or 0.0, self.title)


@dataclass(frozen=True)
class CalendarDay:
    day: date
    answers: int | None  # None for days still to come


@dataclass(frozen=True)
class ExamScore:
    """A finished exam attempt: one point of the score history."""

    attempt_id: int
    title: str
    finished_at: datetime
    percent: float
    pass_mark: int
    passed: bool


@dataclass(frozen=True)
class ExamHistory:
    """A learner's finished exams: the latest scores (oldest first), how many, how long."""

    scores: tuple[ExamScore, ...]
    attempts: int
    seconds: float


class ExamRecords(Protocol):
    """What progress asks of the exams feature, which it cannot import (exams import progress).

    The application hands the exams' implementation over at start-up.
    """

    def history(self, session: Session, user_id: int, limit: int) -> ExamHistory: ...

    def export(self, session: Session, user_id: int) -> list[dict[str, Any]]: ...

    def in_open_exam(self, session: Session, user_id: int, question_id: int) -> bool: ...


class NoExams:
    """The exam records of an application without exams: none."""

    def history(self, session: Session, user_id: int, limit: int) -> ExamHistory:
        return ExamHistory((), 0, 0.0)

    def export(self, session: Session, user_id: int) -> list[dict[str, Any]]:
        return []

    def in_open_exam(self, session: Session, user_id: int, question_id: int) -> bool:
        return False


NO_EXAMS = NoExams()


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    score: ExamScore


@dataclass(frozen=True)
class ScoreChart:
    """One exam's score history laid out for an SVG drawn on the server (coordinates in pixels)."""

    title: str  # the exam's
    width: int
    height: int
    left: float  # the plot area's edges
    right: float
    top: float
    bottom: float
    grid: tuple[tuple[float, int], ...]  # (y, percent) of each horizontal guide
    points: tuple[ChartPoint, ...]
    line: str  # the polyline through the scores, "x,y x,y ..."
    pass_line: str  # the polyline through each attempt's pass mark
    pass_y: float  # where the latest pass mark is, for its label


@dataclass(frozen=True)
class Readiness:
    """The expected score on an exam if taken now, next to its pass mark."""

    slug: str
    title: str
    pass_mark: int  # percent
    questions: int  # in the pool the exam draws from
    seen: int  # of those, the ones the learner answered
    expected: float | None  # share of points expected, 0 to 1; None for an empty pool
    right: int = 0  # of the seen ones, those whose latest answer was right
    needed: int = 0  # answered questions of the pool needed before a forecast

    @property
    def enough(self) -> bool:
        """Whether enough of the pool is answered for a forecast."""
        return self.expected is not None and self.seen > 0 and self.seen >= self.needed

    @property
    def expected_percent(self) -> int | None:
        """The forecast in whole percent, rounded down; None without enough answers."""
        if not self.enough or self.expected is None:
            return None
        return floor(self.expected * 100 + 1e-9)

    @property
    def ready(self) -> bool:
        return self.expected_percent is not None and self.expected_percent >= self.pass_mark


@dataclass(frozen=True)
class Dashboard:
    review: ReviewStatus
    topics: tuple[TopicMastery, ...]  # weakest first
    weeks: tuple[tuple[CalendarDay, ...], ...]  # Monday to Sunday, oldest week first
    streak_days: int
    days_studied: int
    answers: int
    seconds: float = 0.0  # time studied: timed answers and finished exams
    exams: ExamHistory = ExamHistory((), 0, 0.0)
    charts: tuple[ScoreChart, ...] = ()  # one per exam, the one sat last first
    readiness: tuple[Readiness, ...] = ()

    @property
    def topic_min_answers(self) -> int:
        return TOPIC_MIN_ANSWERS

    @property
    def chart(self) -> ScoreChart | None:
        """The chart of the exam sat last, if any."""
        return self.charts[0] if self.charts else None

    @property
    def empty(self) -> bool:
        """True before the learner's first answer or exam."""
        return not self.answers and not self.exams.attempts


@dataclass(frozen=True)
class SummaryQuestion:
    id: int
    position: int
    stem_html: str
    correct: bool | None  # the latest answer; None when not answered


@dataclass(frozen=True)
class SetSummary:
    """A learner's result in a question set, from the latest answer to each question."""

    slug: str
    title: str
    questions: tuple[SummaryQuestion, ...]
    to_read: tuple[SectionRef, ...]  # the note sections that teach the ones got wrong

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


@dataclass(frozen=True)
class NoteStanding:
    """Whether a learner read a note: when they marked it (or scrolled to its end), if they did."""

    slug: str
    read_at: datetime | None
