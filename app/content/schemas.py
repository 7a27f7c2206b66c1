"""JSON shapes of the content API."""

from pydantic import BaseModel, Field


class TopicOut(BaseModel):
    slug: str
    title: str
    question_count: int = Field(description="Questions in this topic and its subtopics")
    note_count: int = Field(description="Notes in this topic and its subtopics")
    children: list["TopicOut"] = []


class TopicRefOut(BaseModel):
    slug: str
    title: str


class QuestionSetOut(BaseModel):
    slug: str
    title: str
    question_count: int


class QuestionSummaryOut(BaseModel):
    id: int
    set: str
    key: str
    stem_html: str
    topic: TopicRefOut | None


class QuestionPage(BaseModel):
    total: int
    limit: int
    offset: int
    items: list[QuestionSummaryOut]


class QuestionSetDetail(QuestionSetOut):
    source: str
    topic: TopicRefOut | None
    questions: list[QuestionSummaryOut]


class TopicDetail(TopicOut):
    ancestors: list[TopicRefOut]
    notes: list["NoteOut"]
    questions: list[QuestionSummaryOut]


class ChoiceOut(BaseModel):
    id: int
    position: int
    html: str


class NoteLinkOut(BaseModel):
    note: str
    note_title: str
    anchor: str
    heading: str
    origin: str = Field(
        description="'explicit' (set by an author) or 'suggested' (by text similarity)"
    )
    score: float


class QuestionOut(BaseModel):
    """A question as a learner sees it before answering: no correctness, no explanation."""

    id: int
    set: TopicRefOut
    topic: TopicRefOut | None
    kind: str
    position: int
    total: int
    stem: str = Field(description="Markdown source of the stem")
    stem_html: str
    choices: list[ChoiceOut]


class CheckIn(BaseModel):
    choice_ids: list[int] = Field(min_length=1, max_length=26, description="The chosen choice ids")


class CheckOut(BaseModel):
    correct: bool
    selected_ids: list[int]
    correct_choice_ids: list[int]
    explanation: str = Field(description="Markdown source of the explanation")
    explanation_html: str
    notes: list[NoteLinkOut]


class NoteOut(BaseModel):
    slug: str
    title: str
    author: str
    topic: TopicRefOut | None


class SectionOut(BaseModel):
    anchor: str
    heading: str
    level: int
    html: str
    question_ids: list[int]


class NoteDetail(NoteOut):
    source: str
    markdown: str
    sections: list[SectionOut]


class ErrorOut(BaseModel):
    detail: str


class HealthOut(BaseModel):
    status: str
    database: str
