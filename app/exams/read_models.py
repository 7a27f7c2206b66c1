"""Read models the exam pages and API show: plain and immutable.

Before an exam-mode attempt is submitted none of them carries a right answer or an
explanation: `ItemView.feedback` is filled only in practice mode, for answered questions.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from app.content.read_models import (
    ChoiceView,
    NoteLink,
    PageInfo,
    ReferenceView,
    TopicRef,
    TopicSummary,
)


@dataclass(frozen=True)
class BlueprintSummary:
    slug: str
    title: str
    description_html: str
    question_count: int
    time_limit_s: int | None
    pass_mark: int
    mode: str
    open_attempt_id: int | None = None
    topics: tuple[tuple[str, int], ...] = ()  # (topic title, questions drawn from it)


@dataclass(frozen=True)
class AttemptHeader:
    id: int
    user_id: int
    title: str
    mode: str
    status: str
    blueprint_slug: str | None
    question_count: int
    pass_mark: int
    started_at: datetime
    deadline_at: datetime | None
    submitted_at: datetime | None
    percent: float | None
    passed: bool | None

    @property
    def is_open(self) -> bool:
        return self.status == "open"

    def remaining_s(self, now: datetime) -> int | None:
        """Whole seconds left before the deadline (None when untimed, 0 when past)."""
        if self.deadline_at is None:
            return None
        return max(0, int((self.deadline_at - now).total_seconds()))

    def ran_out(self, now: datetime, grace: timedelta) -> bool:
        """Whether the time and its grace are over (an open attempt then awaits finalising)."""
        return self.deadline_at is not None and now > self.deadline_at + grace


@dataclass(frozen=True)
class OpenAttempt:
    """An attempt a learner has open: how far they got, the time left, where to go on."""

    id: int
    title: str
    answered: int
    question_count: int
    remaining_s: int | None  # None when untimed
    resume_position: int


@dataclass(frozen=True)
class NavItem:
    position: int
    answered: bool
    flagged: bool


@dataclass(frozen=True)
class Feedback:
    correct: bool
    correct_ids: tuple[int, ...]
    explanation_html: str
    links: tuple[NoteLink, ...]  # every link the question had; learners see the related ones
    references: tuple[ReferenceView, ...] = ()

    def related_links(self, threshold: float) -> tuple[NoteLink, ...]:
        """The note links learners see (see `is_related`)."""
        return tuple(link for link in self.links if link.related(threshold))


@dataclass(frozen=True)
class ItemView:
    position: int
    kind: str
    stem_html: str
    topic: TopicRef | None
    choices: tuple[ChoiceView, ...]
    selected_ids: tuple[int, ...]
    flagged: bool
    feedback: Feedback | None = None


@dataclass(frozen=True)
class TakeView:
    attempt: AttemptHeader
    item: ItemView
    nav: tuple[NavItem, ...]
    remaining_s: int | None

    @property
    def answered(self) -> int:
        return sum(1 for n in self.nav if n.answered)


@dataclass(frozen=True)
class ReviewItem:
    position: int
    kind: str
    stem_html: str
    topic: TopicRef | None
    choices: tuple[ChoiceView, ...]
    selected_ids: tuple[int, ...]
    correct_ids: tuple[int, ...]
    correct: bool
    points: float
    flagged: bool
    explanation_html: str
    links: tuple[NoteLink, ...]  # every link the question had; learners see the related ones
    question_id: int | None
    references: tuple[ReferenceView, ...] = ()

    def related_links(self, threshold: float) -> tuple[NoteLink, ...]:
        """The note links learners see (see `is_related`)."""
        return tuple(link for link in self.links if link.related(threshold))

    @property
    def state(self) -> str:
        """How the question went: right, partly right, wrong, or unanswered (left blank)."""
        if not self.selected_ids:
            return "unanswered"
        if self.correct:
            return "right"
        return "partly right" if self.points else "wrong"

    @property
    def chosen(self) -> tuple[ChoiceView, ...]:
        return tuple(c for c in self.choices if c.id in self.selected_ids)

    @property
    def keyed(self) -> tuple[ChoiceView, ...]:
        return tuple(c for c in self.choices if c.id in self.correct_ids)

    def is_shown(self, show: str) -> bool:
        """Whether the review's filter (all, wrong, unanswered or flagged) shows this item."""
        if show == "all":
            return True
        if show == "flagged":
            return self.flagged
        if show == "wrong":
            return self.state in ("wrong", "partly right")
        return self.state == show


@dataclass(frozen=True)
class TopicScore:
    slug: str | None
    title: str
    correct: float
    total: int
    percent: float


@dataclass(frozen=True)
class RegradeNote:
    """An attempt a regrade changed, as its learner sees it."""

    attempt_id: int
    title: str
    regraded_at: datetime
    old_percent: float
    new_percent: float
    old_passed: bool
    new_passed: bool


@dataclass(frozen=True)
class ResultView:
    attempt: AttemptHeader
    score: float
    percent: float
    passed: bool
    timed_out: bool
    time_used_s: int
    topics: tuple[TopicScore, ...]  # weakest first
    items: tuple[ReviewItem, ...]
    regrades: tuple[RegradeNote, ...] = ()  # oldest first

    def shown(self, show: str) -> tuple[ReviewItem, ...]:
        """The items a filter of the review shows (all, wrong, unanswered or flagged)."""
        return tuple(item for item in self.items if item.is_shown(show))

    def count(self, show: str) -> int:
        return len(self.shown(show))

    @property
    def missed(self) -> tuple[ReviewItem, ...]:
        """The questions not fully right, answered or not, in the order they were shown."""
        return tuple(item for item in self.items if not item.correct)

    @property
    def missed_question_ids(self) -> tuple[int, ...]:
        """The bank's ids of the missed questions still in it, each once."""
        ids = (item.question_id for item in self.missed if item.question_id is not None)
        return tuple(dict.fromkeys(ids))

    @property
    def missed_topics(self) -> tuple[TopicScore, ...]:
        """The topics with a question not fully right, weakest first."""
        return tuple(t for t in self.topics if t.slug is not None and t.correct < t.total)


@dataclass(frozen=True)
class SummaryView:
    attempt: AttemptHeader
    nav: tuple[NavItem, ...]
    remaining_s: int | None

    @property
    def unanswered(self) -> tuple[int, ...]:
        return tuple(n.position for n in self.nav if not n.answered)

    @property
    def flagged(self) -> tuple[int, ...]:
        return tuple(n.position for n in self.nav if n.flagged)


@dataclass(frozen=True)
class ExamsView:
    """The exams page: a page of exams, the learner's latest attempts, and the topics a custom
    exam is built from (as deep as fits; `topic_total` tells how many there are in all)."""

    blueprints: tuple[BlueprintSummary, ...]
    page: PageInfo
    history: tuple[AttemptHeader, ...]
    topics: tuple[tuple[int, TopicSummary], ...]
    topic_total: int
