"""JSON shapes of a learner's progress."""

from datetime import date, datetime

from pydantic import BaseModel, Field


class ReviewOut(BaseModel):
    due_now: int = Field(description="Questions due for review now")
    due_today: int = Field(description="Questions due before the end of the day (UTC)")
    next_due_at: datetime | None = Field(description="When the next question not yet due is")


class TopicMasteryOut(BaseModel):
    slug: str
    title: str
    questions: int = Field(description="Questions filed directly under the topic")
    seen: int = Field(description="Of those, the ones answered at least once")
    latest_right: int = Field(description="Seen questions whose latest answer was right")
    accuracy: float | None = Field(description="latest_right / seen; null before any answer")
    recall: float | None = Field(description="Mean predicted recall (FSRS) now, 0 to 1")
    mastery: float = Field(description="Expected share of the topic's questions right now")
    practice_url: str | None
    topic_url: str


class DayOut(BaseModel):
    date: date
    answers: int


class ActivityOut(BaseModel):
    answers: int = Field(description="Practice answers ever given")
    days_studied: int
    streak_days: int = Field(description="Days in a row, up to today or yesterday, studied")
    days: list[DayOut] = Field(description="Answers on each day of the last weeks, oldest first")


class ProgressOut(BaseModel):
    review: ReviewOut
    topics: list[TopicMasteryOut] = Field(description="Weakest topic first")
    activity: ActivityOut
