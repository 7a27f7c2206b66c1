"""Read models handed to templates and the API: plain, immutable, safe to cache.

None of them carries an answer key: grading reads it from the database (see `service.grade`).
"""

from dataclasses import dataclass

from app.content.bundle import Scope
from app.content.errata import Erratum
from app.content.markdown import render


def is_related(origin: str, score: float, threshold: float) -> bool:
    """Tell whether learners see a question-to-note link: an author's, or a suggestion that
    scores at least `threshold` (weaker ones are often off-topic; authors see them all)."""
    return origin == "explicit" or score >= threshold


@dataclass(frozen=True)
class TopicRef:
    slug: str
    title: str


@dataclass(frozen=True)
class TopicSummary:
    slug: str
    title: str
    description_html: str
    question_count: int
    note_count: int
    children: tuple["TopicSummary", ...] = ()
    more_children: int = 0  # direct subtopics left out of `children` (a card shows the first)


@dataclass(frozen=True)
class SetSummary:
    slug: str
    title: str
    question_count: int
    first_question_id: int | None


@dataclass(frozen=True)
class NoteSummary:
    slug: str
    title: str
    author: str
    topic: TopicRef | None


@dataclass(frozen=True)
class QuestionSummary:
    id: int
    set_slug: str
    key: str
    stem_html: str
    topic: TopicRef | None


@dataclass(frozen=True)
class HomeView:
    topics: tuple[TopicSummary, ...]  # the first few top-level topics, as cards
    sets: tuple[SetSummary, ...]  # the first few
    notes: tuple[NoteSummary, ...]  # the first few
    set_count: int = 0
    note_count: int = 0
    topic_count: int = 0  # top-level topics in all


@dataclass(frozen=True)
class PageInfo:
    """Where one page of a long list sits: page `number` of `pages`, items `first` to `last`."""

    number: int
    pages: int
    total: int
    size: int

    @property
    def first(self) -> int:
        return min(self.total, (self.number - 1) * self.size + 1)

    @property
    def last(self) -> int:
        return min(self.total, self.number * self.size)


@dataclass(frozen=True)
class SectionRef:
    """A note section to read, by its note and anchor, with the titles to show."""

    note_slug: str
    note_title: str
    anchor: str
    heading: str


@dataclass(frozen=True)
class TocSection:
    anchor: str
    heading: str
    question_count: int  # questions linked to the section


@dataclass(frozen=True)
class GuideNote:
    slug: str
    title: str
    author: str
    sections: tuple[TocSection, ...]


@dataclass(frozen=True)
class GuidePart:
    """The notes filed directly under one topic of a study guide."""

    topic: TopicRef
    depth: int  # 0 for the guide's own topic, 1 for a subtopic, ...
    notes: tuple[GuideNote, ...]


@dataclass(frozen=True)
class TopicView:
    """A topic as a study guide: what it and all its subtopics hold."""

    topic: TopicSummary
    ancestors: tuple[TopicRef, ...]
    notes: tuple[NoteSummary, ...]  # of the topic and its subtopics, in guide order
    questions: tuple[QuestionSummary, ...]  # one page of those of the topic and its subtopics
    page: PageInfo
    guide: tuple[GuidePart, ...] = ()  # the notes by topic, with their sections


@dataclass(frozen=True)
class SetView:
    set: SetSummary
    source_url: str | None
    topic: TopicRef | None
    questions: tuple[QuestionSummary, ...]  # one page of them
    page: PageInfo


@dataclass(frozen=True)
class ListView:
    """One page of all question sets, notes or top-level topics."""

    items: tuple[SetSummary, ...] | tuple[NoteSummary, ...] | tuple[TopicSummary, ...]
    page: PageInfo


@dataclass(frozen=True)
class LinkedQuestion:
    id: int
    stem_html: str
    origin: str
    score: float

    def related(self, threshold: float) -> bool:
        return is_related(self.origin, self.score, threshold)


@dataclass(frozen=True)
class SectionView:
    anchor: str
    heading: str
    level: int
    html: str
    questions: tuple[LinkedQuestion, ...]
    id: int = 0
    errata: tuple[Erratum, ...] = ()  # open errata, shown on the section

    def related_questions(self, threshold: float) -> tuple[LinkedQuestion, ...]:
        """The questions learners see under the section (see `is_related`)."""
        return tuple(q for q in self.questions if q.related(threshold))


@dataclass(frozen=True)
class NoteView:
    slug: str
    title: str
    author: str
    source_url: str | None
    topic: TopicRef | None
    intro_html: str
    markdown: str
    sections: tuple[SectionView, ...]
    footnotes_html: str = ""


@dataclass(frozen=True)
class ChoiceView:
    id: int
    position: int
    html: str
    fixed: bool = False  # "All of the above" and the like keep their place when shuffled
    feedback_html: str = ""  # the author's word on this choice, shown after answering


@dataclass(frozen=True)
class NoteLink:
    note_slug: str
    note_title: str
    anchor: str
    heading: str
    origin: str
    score: float
    excerpt: str = ""  # the start of the section, as plain text
    section_id: int = 0

    def related(self, threshold: float) -> bool:
        return is_related(self.origin, self.score, threshold)


@dataclass(frozen=True)
class ReferenceView:
    """A source behind a question's answer, shown under its explanation."""

    url: str
    title: str | None
    version: str | None

    @property
    def label(self) -> str:
        return self.title or self.url

    @property
    def is_web(self) -> bool:
        """Tell whether the address may be a link (imports accept only web addresses)."""
        return self.url.lower().startswith(("https://", "http://"))


@dataclass(frozen=True)
class QuestionView:
    id: int
    key: str
    kind: str
    revision: int
    set: TopicRef
    topic: TopicRef | None
    position: int
    total: int
    stem_md: str
    stem_html: str
    explanation_md: str
    choices: tuple[ChoiceView, ...]
    links: tuple[NoteLink, ...]
    references: tuple[ReferenceView, ...]
    previous_id: int | None
    next_id: int | None
    errata: tuple[Erratum, ...] = ()  # open errata, shown on the question
    scope: Scope = Scope()  # what it holds for and asks, shown to authors
    retired: bool = False  # an author retired it: out of practice, set lists and new exams

    def related_links(self, threshold: float) -> tuple[NoteLink, ...]:
        """The note links learners see (see `is_related`)."""
        return tuple(link for link in self.links if link.related(threshold))

    @property
    def explanation_html(self) -> str:
        """The explanation, rendered when a page shows it (after an answer), not on every load."""
        return render(self.explanation_md) if self.explanation_md else ""

    @property
    def stem_inline_html(self) -> str:
        """The stem without its paragraph, to sit inside a heading."""
        return self.stem_html.strip().removeprefix("<p>").removesuffix("</p>")

    @property
    def stem_is_inline(self) -> bool:
        """Tell whether the stem is a single paragraph (so it can be the page's heading)."""
        html = self.stem_html.strip()
        return html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1


@dataclass(frozen=True)
class Grade:
    """A graded answer, from the answer key the database holds at that moment."""

    question_id: int
    revision: int
    selected_ids: tuple[int, ...]
    correct_ids: tuple[int, ...]
    correct: bool


@dataclass(frozen=True)
class SetTally:
    """A learner's running tally in a question set: questions answered, latest answers right."""

    set_slug: str
    total: int
    answered: int
    right: int
