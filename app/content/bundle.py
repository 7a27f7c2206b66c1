"""The content bundle every importer produces and the content service loads, with its report."""

from dataclasses import dataclass, field


@dataclass
class ChoiceData:
    text: str
    correct: bool
    feedback: str = ""  # shown to a learner who chose it, after the answer
    fixed: bool = False  # keeps its place when the choices are shuffled


@dataclass
class ReferenceData:
    """A source behind a question's answer: a web page and the product version it is for."""

    url: str
    title: str | None = None
    version: str | None = None


DIFFICULTIES = ("easy", "medium", "hard")
LEVELS = ("recall", "apply", "analyse")  # a fact; using it in a case; judging a situation


@dataclass(frozen=True)
class Scope:
    """What a question holds for and asks: the product versions whose behaviour it describes
    ("TensorRT 10.x"), how hard it is, the thinking it takes (recall, apply, analyse), and the
    kinds of `check-content` finding an author accepted for it (a question kept as written)."""

    versions: tuple[str, ...] = ()
    difficulty: str | None = None
    level: str | None = None
    accepted: tuple[str, ...] = ()


@dataclass
class QuestionData:
    key: str
    stem: str
    choices: list[ChoiceData]
    explanation: str
    line: int = 0
    kind: str = "single"
    source: str = ""
    topic: str | None = None
    notes: list[str] | None = None  # explicit links as "note-slug#anchor"; None leaves them be
    references: list[ReferenceData] | None = None  # None leaves them be
    scope: Scope | None = None  # None leaves it be


@dataclass
class QuestionSetData:
    slug: str
    title: str
    source: str = ""
    topic: str | None = None
    questions: list[QuestionData] = field(default_factory=list)
    line: int = 0


@dataclass
class NoteData:
    slug: str
    title: str
    markdown: str
    author: str = ""
    source: str = ""
    topic: str | None = None
    line: int = 0
    section_lines: list[int] = field(default_factory=list)  # where each section's heading is


@dataclass
class TopicData:
    slug: str
    title: str
    parent: str | None = None
    description: str = ""
    line: int = 0


@dataclass
class Placement:
    """Puts content that may come from another file under a topic, and links it to notes."""

    kind: str  # "question", "question_set" or "note"
    ref: str  # "set-slug/key", "set-slug" or "note-slug"
    topic: str | None
    line: int
    notes: list[str] | None = None
    references: list[ReferenceData] | None = None
    scope: Scope | None = None


@dataclass
class BlueprintData:
    """An exam blueprint: how many questions from where, how long, and the pass mark."""

    slug: str
    title: str
    question_count: int
    time_limit_s: int | None = None
    pass_mark: int = 70
    mode: str = "exam"
    description: str = ""
    shuffle_questions: bool = True
    shuffle_choices: bool = True
    partial_credit: bool = False
    sets: list[str] = field(default_factory=list)
    topics: dict[str, float] = field(default_factory=dict)
    reasoning: int = 0  # percent of questions, at least, that ask to apply or analyse
    line: int = 0


@dataclass
class ErratumData:
    """A known slip in the content, shown on it until an author resolves it."""

    target: str  # "set-slug/key" for a question, "note-slug#anchor" for a note section
    kind: str
    text: str
    line: int = 0


@dataclass
class MediaData:
    """An image a question shows, stored once by the SHA-256 of its bytes."""

    sha256: str
    name: str
    content_type: str
    data: bytes
    line: int = 0


@dataclass
class Bundle:
    topics: list[TopicData] = field(default_factory=list)
    question_sets: list[QuestionSetData] = field(default_factory=list)
    notes: list[NoteData] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    blueprints: list[BlueprintData] = field(default_factory=list)
    errata: list[ErratumData] = field(default_factory=list)
    media: list[MediaData] = field(default_factory=list)


@dataclass
class Notice:
    line: int
    message: str


@dataclass
class Report:
    file: str
    format: str
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[Notice] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # by what was left out

    def warn(self, line: int, message: str) -> None:
        self.warnings.append(Notice(line, message))

    def count(self, name: str, by: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + by

    def skip(self, line: int, reason: str, what: str) -> None:
        """Leave out a question of a kind Studyhall does not have (what: "essay"), saying why."""
        self.warn(line, f"skipped: {reason}")
        self.count("skipped")
        self.skipped[what] = self.skipped.get(what, 0) + 1

    def refuse(self, line: int, reason: str) -> None:
        """Leave out a question that cannot be read, when the good ones are imported anyway."""
        self.warn(line, f"refused: {reason}")
        self.count("refused")
