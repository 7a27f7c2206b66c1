"""What a search returns: plain, immutable results whose highlights are already safe HTML."""

from dataclasses import dataclass

from app.content.read_models import TopicRef


@dataclass(frozen=True)
class NoteHit:
    note_slug: str
    note_title: str
    anchor: str
    heading_html: str  # the section heading, escaped, matched words in <mark>
    snippet_html: str  # a passage of the section, escaped, matched words in <mark>
    topic: TopicRef | None


@dataclass(frozen=True)
class QuestionHit:
    id: int
    set_slug: str
    stem_html: str  # the stem as plain text, escaped, matched words in <mark>
    snippet_html: str  # a passage of its choices and explanation, likewise
    topic: TopicRef | None


@dataclass(frozen=True)
class SearchResults:
    query: str
    terms: tuple[str, ...]  # what was searched for, after cleaning the query
    topic: str | None
    kind: str | None  # "notes", "questions" or None for both
    notes: tuple[NoteHit, ...]
    note_total: int
    questions: tuple[QuestionHit, ...]
    question_total: int
    note_total_exact: bool = True  # False: more than note_total match
    question_total_exact: bool = True
    # False: a kind matched too many to rank; its page holds those with every word in the
    # title (or heading) first, then the others, in the index's order
    ranked: bool = True

    @property
    def total(self) -> int:
        return self.note_total + self.question_total
