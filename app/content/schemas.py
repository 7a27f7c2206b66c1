"""JSON shapes of the content API, read straight from the read models (one mapping, here)."""

from dataclasses import fields, is_dataclass
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from app.content.errata import Erratum
from app.content.read_models import NoteLink, ReferenceView
from app.web.forms import RowId


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


def _lifted(data: Any, key: str) -> Any:
    """Merge a nested read model's fields (a view's `topic` or `set`) into the outer shape."""
    if is_dataclass(data) and not isinstance(data, type):
        return {**_fields(data), **_fields(getattr(data, key))}
    return data


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


class TopicRefOut(_Out):
    slug: str
    title: str


class TopicOut(_Out):
    slug: str
    title: str
    question_count: int = Field(description="Questions in this topic and its subtopics")
    note_count: int = Field(description="Notes in this topic and its subtopics")
    children: list["TopicOut"] = []


class QuestionSetOut(_Out):
    slug: str
    title: str
    question_count: int


class QuestionSummaryOut(_Out):
    id: int
    set: str = Field(validation_alias=AliasChoices("set", "set_slug"))
    key: str
    stem_html: str
    topic: TopicRefOut | None


class QuestionPage(_Out):
    total: int
    limit: int
    offset: int
    items: list[QuestionSummaryOut]


class PageOut(_Out):
    number: int = Field(description="This page, from 1")
    pages: int
    total: int = Field(description="Items in the whole list")
    size: int = Field(description="Items a page")


class QuestionSetDetail(QuestionSetOut):
    source_url: str | None = Field(description="Where the set comes from, when it is on the web")
    topic: TopicRefOut | None
    questions: list[QuestionSummaryOut] = Field(description="One page of the set's questions")
    page: PageOut

    @model_validator(mode="before")
    @classmethod
    def _lift(cls, data: Any) -> Any:
        return _lifted(data, "set")


class NoteOut(_Out):
    slug: str
    title: str
    author: str
    topic: TopicRefOut | None


class TopicDetail(TopicOut):
    ancestors: list[TopicRefOut]
    notes: list[NoteOut] = Field(
        description="Notes of the topic and its subtopics, the topic's own first, in tree order"
    )
    questions: list[QuestionSummaryOut] = Field(
        description="One page of the questions of the topic and its subtopics"
    )
    page: PageOut

    @model_validator(mode="before")
    @classmethod
    def _lift(cls, data: Any) -> Any:
        return _lifted(data, "topic")


class ChoiceOut(_Out):
    id: int
    position: int
    html: str


class NoteLinkOut(_Out):
    note: str = Field(validation_alias=AliasChoices("note", "note_slug"))
    note_title: str
    anchor: str
    heading: str
    origin: str = Field(
        description="'explicit' (set by an author) or 'suggested' (by text similarity)"
    )
    score: float
    excerpt: str = Field(description="The start of the section, as plain text")


def note_link_json(link: NoteLink) -> dict[str, object]:
    """Shape a note link as NoteLinkOut does, without validating what a read model holds."""
    return {
        "note": link.note_slug,
        "note_title": link.note_title,
        "anchor": link.anchor,
        "heading": link.heading,
        "origin": link.origin,
        "score": link.score,
        "excerpt": link.excerpt,
    }


class ReferenceOut(_Out):
    """A source behind an answer: a web page and the product version the fact holds for."""

    title: str | None
    url: str
    version: str | None = Field(description="e.g. 'TensorRT 10.x'")


def reference_json(reference: ReferenceView) -> dict[str, object]:
    """Shape a reference as ReferenceOut does."""
    return {"title": reference.title, "url": reference.url, "version": reference.version}


class QuestionOut(_Out):
    """A question as a learner sees it before answering: no correctness, no explanation."""

    id: int
    set: TopicRefOut
    topic: TopicRefOut | None
    kind: str
    position: int
    total: int
    stem: str = Field(
        validation_alias=AliasChoices("stem", "stem_md"), description="Markdown source of the stem"
    )
    stem_html: str
    choices: list[ChoiceOut]


class CheckIn(BaseModel):
    choice_ids: list[RowId] = Field(
        min_length=1, max_length=26, description="The chosen choice ids"
    )


class ErratumOut(BaseModel):
    kind: str = Field(description="'wrong-answer', 'typo', 'outdated' or 'other'")
    label: str
    text: str


def erratum_json(erratum: Erratum) -> dict[str, str]:
    """Shape an erratum as ErratumOut does."""
    return {"kind": erratum.kind, "label": erratum.label, "text": erratum.text}


class CheckOut(BaseModel):
    correct: bool
    selected_ids: list[int]
    correct_choice_ids: list[int]
    explanation: str = Field(description="Markdown source of the explanation")
    explanation_html: str
    notes: list[NoteLinkOut]
    references: list[ReferenceOut] = Field(description="The sources behind the answer")
    errata: list[ErratumOut] = Field(
        description="Known errors in the question, shown once it is answered: one may name "
        "the right answer"
    )


class SectionOut(_Out):
    anchor: str
    heading: str
    level: int
    html: str
    question_ids: list[int]

    @model_validator(mode="before")
    @classmethod
    def _ids(cls, data: Any) -> Any:
        if is_dataclass(data) and not isinstance(data, type):
            return {**_fields(data), "question_ids": [q.id for q in vars(data)["questions"]]}
        return data


class NoteDetail(NoteOut):
    source_url: str | None = Field(description="Where the note comes from, when it is on the web")
    markdown: str
    sections: list[SectionOut]
