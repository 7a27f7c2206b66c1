"""JSON shapes of a learner's progress."""

from datetime import date, datetime

from pydantic import BaseModel, Field


class ReviewOut(BaseModel):
    due_now: int = Field(description="Questions due for review now, within today's limits")
    due_today: int = Field(
        description="Questions due before the end of the learner's day (in their time zone), "
        "limits aside"
    )
    next_due_at: datetime | None = Field(description="When the next question not yet due is")
    waiting: int = Field(description="Questions due now that today's limits hold back")
    done_today: int = Field(description="Reviews done today, new questions taken up included")
    time_zone: str = Field(description="The learner's time zone, where their day begins")


class TopicMasteryOut(BaseModel):
    slug: str
    title: str
    questions: int = Field(description="Questions filed directly under the topic")
    seen: int = Field(description="Of those, the ones answered at least once")
    latest_right: int = Field(description="Seen questions whose latest answer was right")
    accuracy: float | None = Field(description="latest_right / seen; null before any answer")
    recall: float | None = Field(
        description="Share of the seen questions expected right now, 0 to 1: FSRS recall of "
        "those last answered right, 0 for those last answered wrong"
    )
    mastery: float = Field(description="Expected share of the topic's questions right now")
    measured: bool = Field(
        description="Whether enough questions are answered (3, or all the topic has) to tell"
    )
    notes: int = Field(description="Notes filed under the topic")
    notes_read: int = Field(description="Of those, the ones marked as read")
    practice_url: str | None
    topic_url: str


class DayOut(BaseModel):
    date: date
    answers: int


class ActivityOut(BaseModel):
    answers: int = Field(description="Answers ever given, in practice and in finished exams")
    seconds_studied: float = Field(
        description="Time studied: timed answers (each at most ten minutes) and finished exams"
    )
    days_studied: int = Field(description="Days with an answer, in the learner's time zone")
    streak_days: int = Field(description="Days in a row, up to today or yesterday, studied")
    days: list[DayOut] = Field(
        description="Answers on each day of the last weeks, oldest first; days in the learner's "
        "time zone (`review.time_zone`)"
    )


class ScoreOut(BaseModel):
    title: str
    finished_at: datetime
    percent: float
    pass_mark: int = Field(description="Percent needed to pass that attempt")
    passed: bool
    result_url: str


class ExamsOut(BaseModel):
    attempts: int = Field(description="Finished exam attempts in all")
    scores: list[ScoreOut] = Field(description="The latest finished attempts, oldest first")


class ReadinessOut(BaseModel):
    slug: str
    title: str
    expected_percent: int | None = Field(
        description="Expected score if taken now (unseen questions count as a 1-in-4 guess, "
        "never above the share of latest answers right); null until `needed` are answered"
    )
    pass_mark: int
    ready: bool = Field(description="Whether the expected score reaches the pass mark")
    questions: int = Field(description="Questions the exam draws from")
    seen: int = Field(description="Of those, the ones answered at least once")
    right: int = Field(description="Of the seen ones, those whose latest answer was right")
    needed: int = Field(description="Seen questions needed for a forecast (10, or half the pool)")


class ProgressOut(BaseModel):
    review: ReviewOut
    topics: list[TopicMasteryOut] = Field(description="Weakest topic first")
    activity: ActivityOut
    exams: ExamsOut
    readiness: list[ReadinessOut] = Field(description="Each exam, in the exams page's order")
