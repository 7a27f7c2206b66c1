"""JSON shapes of the exams API. Before submission none of them holds a right answer."""

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from app.content.schemas import ReferenceOut, TopicRefOut
from app.web.forms import RowId


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class ExamOut(_Out):
    slug: str
    title: str
    description_html: str
    question_count: int
    time_limit_s: int | None = Field(description="Seconds allowed; null when untimed")
    pass_mark: int = Field(description="Percent needed to pass")
    mode: str = Field(description="'exam' (feedback at the end) or 'practice' (after each one)")
    open_attempt_id: int | None = Field(description="The caller's open attempt at this exam")


class NavOut(_Out):
    position: int
    answered: bool
    flagged: bool


class AttemptOut(BaseModel):
    id: int
    title: str
    exam: str | None = Field(description="Slug of the exam; null for a custom exam")
    mode: str
    status: str = Field(description="'open', 'submitted', or 'expired' (time ran out)")
    question_count: int
    pass_mark: int
    started_at: datetime
    deadline_at: datetime | None
    submitted_at: datetime | None
    remaining_s: int | None = Field(description="Seconds left, by the server's clock")
    percent: float | None
    passed: bool | None
    questions: list[NavOut] = Field(description="Each question's state (open attempts)")


class ChoiceOut(_Out):
    id: int
    html: str


class NoteLinkOut(_Out):
    """A note section teaching the question: an author's link, or a suggestion scoring at
    least the related threshold (shown as "Related")."""

    note: str = Field(validation_alias="note_slug")
    note_title: str
    anchor: str
    heading: str
    origin: str = Field(
        description="'explicit' (set by an author) or 'suggested' (by text similarity)"
    )


class FeedbackOut(_Out):
    correct: bool
    correct_ids: list[int]
    explanation_html: str
    links: list[NoteLinkOut]
    references: list[ReferenceOut]


class AttemptQuestionOut(_Out):
    position: int
    kind: str = Field(description="'single' (one answer) or 'multi' (every right answer)")
    stem_html: str
    topic: TopicRefOut | None
    choices: list[ChoiceOut] = Field(description="In the order shown to this learner")
    selected_ids: list[int]
    flagged: bool
    feedback: FeedbackOut | None = Field(description="Practice mode only, once answered")


class AnswerIn(BaseModel):
    choice_ids: list[RowId] = Field(
        max_length=26, description="The chosen choice ids; an empty list clears the answer"
    )


class FlagIn(BaseModel):
    flagged: bool


class TopicScoreOut(_Out):
    slug: str | None
    title: str
    correct: float
    total: int
    percent: float


class ReviewItemOut(_Out):
    position: int
    question_id: int | None
    kind: str
    stem_html: str
    topic: TopicRefOut | None
    choices: list[ChoiceOut]
    selected_ids: list[int]
    correct_ids: list[int]
    correct: bool
    points: float
    flagged: bool
    explanation_html: str
    links: list[NoteLinkOut]
    references: list[ReferenceOut] = Field(description="The sources behind the answer")


class ResultOut(BaseModel):
    attempt: AttemptOut
    score: float
    percent: float
    passed: bool
    timed_out: bool
    time_used_s: int
    topics: list[TopicScoreOut] = Field(description="Weakest first")
    items: list[ReviewItemOut]
