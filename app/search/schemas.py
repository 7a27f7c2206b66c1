"""JSON shapes of the search API, read straight from the search's read models."""

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from app.content.schemas import TopicRefOut
from app.search.queries import TOTAL_CAP

_CAP = f"{TOTAL_CAP:,}"
_HIGHLIGHT = "Escaped text, safe as HTML, with the matched words in <mark> elements"


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class NoteHitOut(_Out):
    note: str = Field(validation_alias=AliasChoices("note", "note_slug"))
    note_title: str
    anchor: str = Field(description="The section's anchor in the note")
    heading_html: str = Field(description=f"The section heading. {_HIGHLIGHT}")
    snippet_html: str = Field(description=f"A passage of the section. {_HIGHLIGHT}")
    topic: TopicRefOut | None


class QuestionHitOut(_Out):
    id: int
    set: str = Field(validation_alias=AliasChoices("set", "set_slug"))
    stem_html: str = Field(description=f"The question's stem. {_HIGHLIGHT}")
    snippet_html: str = Field(description=f"A passage of its choices and explanation. {_HIGHLIGHT}")
    topic: TopicRefOut | None


class SearchOut(_Out):
    query: str
    terms: list[str] = Field(description="What was searched for, after cleaning the query")
    topic: str | None
    type: str
    note_total: int = Field(
        description=f"Matching note sections, beyond those listed too, counted up to {_CAP}"
    )
    note_total_exact: bool = Field(description="False when more than note_total match")
    notes: list[NoteHitOut] = Field(description="The best matching note sections, best first")
    question_total: int = Field(
        description=f"Matching questions, beyond those listed too, counted up to {_CAP}"
    )
    question_total_exact: bool = Field(description="False when more than question_total match")
    questions: list[QuestionHitOut] = Field(description="The best matching questions, best first")
    ranked: bool = Field(
        description=(
            f"False when a kind matched more than {_CAP}: too many to rank, so its list holds "
            "those with every word in the title first, then the others (add a word to narrow "
            "the search)"
        )
    )
