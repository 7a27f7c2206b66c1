"""Checks a bundle must pass before anything of it is written: sizes that fit the columns,
unique question keys, answer keys that can be answered, references that are web links, and
text without invisible characters that reorder or hide what it says."""

import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit

from app.content.bundle import DIFFICULTIES, LEVELS, Bundle, QuestionData, ReferenceData, Scope
from app.content.errors import InvalidContent
from app.content.markdown import split_sections

SLUG, TITLE, KEY, HEADING, AUTHOR = 120, 200, 60, 300, 200
URL, REFERENCE_TITLE, VERSION = 2000, 300, 80  # the columns of question_reference
MAX_REFERENCES = 20  # a question's sources; more is a reading list, not a reference
MAX_VERSIONS = 6
MAX_CHOICES = 26  # A to Z
TEXT = 20_000  # a stem, choice, feedback or explanation: a page of text at most
# A product and its version: "TensorRT 10.x", "TensorRT-LLM 1.2", "Triton 25.x"
PRODUCT_VERSION = re.compile(r"[A-Za-z][\w.+-]*( [A-Za-z][\w.+-]*){0,3} \d+(\.(\d+|x))*")
# Spaces, control and invisible formatting characters (which can disguise where a link
# goes), and characters an address must percent-encode.
_NOT_IN_URL = re.compile(
    r'[\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"<>\\^`{|}]'
)

# Bidi embeddings, overrides and isolates (text shown in another order than it is stored),
# and zero-width spaces, joiners and marks (words that look whole but are not).
_INVISIBLE = re.compile("[\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
_JOINERS = "\u200c\u200d"  # ZWNJ, ZWJ: inside emoji sequences and Arabic, Persian, Indic words
_MARKS = "\u200e\u200f"  # LRM, RLM: beside right-to-left words


def hidden_character(text: str) -> tuple[int, str] | None:
    """Return where (from 1) and which invisible character text holds that it may not.

    A joiner may stand between two letters or symbols beyond ASCII (an emoji sequence, a
    Persian or Indic word), a left-to-right or right-to-left mark in text with Hebrew or
    Arabic letters; every other control of the kind is refused.
    """
    for match in _INVISIBLE.finditer(text):
        char, at = match.group(), match.start()
        if char in _JOINERS and _joins(text, at):
            continue
        if char in _MARKS and _right_to_left(text):
            continue
        return at + 1, f"U+{ord(char):04X} ({unicodedata.name(char, 'a format control')})"
    return None


def _joins(text: str, at: int) -> bool:
    """Tell whether the joiner at `at` stands between two visible characters beyond ASCII."""
    around = (text[at - 1] if at else "") + text[at + 1 : at + 2]
    return len(around) == 2 and all(
        ord(c) > 127 and not c.isspace() and not _INVISIBLE.match(c) for c in around
    )


def _right_to_left(text: str) -> bool:
    """Tell whether text holds a Hebrew or Arabic letter (or another right-to-left one)."""
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text if c not in _MARKS)


def visible_text(text: str) -> str:
    """Return text as it shows: without control and format characters, spaces collapsed."""
    kept = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf"))
    return " ".join(kept.split())


def check_bundle(bundle: Bundle) -> None:
    """Refuse, naming file and line, what the database could not hold or a learner answer."""
    for topic in bundle.topics:
        _fits(topic.line, "topic slug", topic.slug, SLUG)
        _fits(topic.line, "topic title", topic.title, TITLE)
        _shown(
            topic.line, f"topic {topic.slug!r}", title=topic.title, description=topic.description
        )
    for qset in bundle.question_sets:
        _fits(qset.line or 1, "question set slug (from its title)", qset.slug, SLUG)
        _fits(qset.line or 1, "question set title", qset.title, TITLE)
        _shown(qset.line or 1, f"question set {qset.slug!r}", title=qset.title)
        seen: dict[str, int] = {}
        for question in qset.questions:
            if question.key in seen:
                raise InvalidContent(question.line or 1, f"question {question.key!r} appears twice")
            seen[question.key] = question.line
            _check_question(question)
    for placement in bundle.placements:
        if placement.references is not None:
            check_references(placement.line, repr(placement.ref), placement.references)
        if placement.scope is not None:
            check_scope(placement.line, repr(placement.ref), placement.scope)
    for note in bundle.notes:
        line = note.line or 1
        _fits(line, "note slug (from its title)", note.slug, SLUG)
        _fits(line, "note title", note.title, TITLE)
        _fits(line, "note author", note.author, AUTHOR)
        _shown(
            line, f"note {note.slug!r}", title=note.title, author=note.author, text=note.markdown
        )
        sections = split_sections(note.markdown).sections
        for section, at in zip(
            sections, note.section_lines or [line] * len(sections), strict=False
        ):
            _fits(at, "section heading", section.heading, HEADING)
            _fits(at, "section anchor", section.anchor, SLUG)
    for blueprint in bundle.blueprints:
        _shown(
            blueprint.line,
            f"exam {blueprint.slug!r}",
            title=blueprint.title,
            description=blueprint.description,
        )
    for erratum in bundle.errata:
        _shown(erratum.line, f"erratum on {erratum.target!r}", text=erratum.text)


@dataclass(frozen=True)
class Problem:
    """What keeps a part of a question from being stored, and which part: "key", "stem",
    "choices", "choice-N", "feedback-N", "explanation", "references", "reference-N",
    "difficulty", "level", "versions" or "accepted"."""

    field: str
    message: str


def _check_question(question: QuestionData) -> None:
    problems = question_problems(question)
    if problems:
        raise InvalidContent(question.line or 1, problems[0].message)
    if question.notes is not None:
        question.notes = list(dict.fromkeys(question.notes))


def question_problems(question: QuestionData) -> list[Problem]:
    """Everything that keeps a question from being stored (imports and the editor alike)."""
    owner = f"question {question.key!r}"
    problems = []
    if (long := _too_long("question number", question.key, KEY)) is not None:
        problems.append(Problem("key", long))
    if not question.stem.strip():
        problems.append(Problem("stem", f"{owner} has no text"))
    if len(question.choices) < 2:
        problems.append(Problem("choices", f"{owner} needs at least 2 choices"))
    elif len(question.choices) > MAX_CHOICES:
        problems.append(Problem("choices", f"{owner} has more than {MAX_CHOICES} choices"))
    right = sum(choice.correct for choice in question.choices)
    if right == 0:
        problems.append(Problem("choices", f"{owner} has no correct choice"))
    if question.kind == "single" and right > 1:
        problems.append(
            Problem(
                "choices",
                f"{owner} takes one answer but marks {right} choices correct "
                "(make it kind 'multi', or mark one)",
            )
        )
    texts = {"stem": question.stem}
    for n, choice in enumerate(question.choices, start=1):
        if not choice.text.strip():
            problems.append(Problem(f"choice-{n}", f"{owner}: choice {n} has no text"))
        texts[f"choice {n}"] = choice.text
        if choice.feedback:
            texts[f"feedback {n}"] = choice.feedback
    texts["explanation"] = question.explanation
    problems += [
        Problem(name.replace(" ", "-"), f"{owner}: {message}")
        for name, text in texts.items()
        if (message := _too_long(name, text, TEXT)) is not None
    ]
    problems += [
        Problem(name.replace(" ", "-"), message) for name, message in _hidden(owner, **texts)
    ]
    if question.references is not None:
        problems += reference_problems(repr(question.key), question.references)
    if question.scope is not None:
        problems += scope_problems(repr(question.key), question.scope)
    return problems


def check_scope(line: int, owner: str, scope: Scope) -> None:
    """Refuse a difficulty or level not on the list, and versions not named as "TensorRT 10.x"."""
    for problem in scope_problems(owner, scope):
        raise InvalidContent(line, problem.message)


def scope_problems(owner: str, scope: Scope) -> list[Problem]:
    """What is wrong with a scope: a difficulty or level not on the list, versions not named
    as "TensorRT 10.x", accepted finding kinds not written as kinds."""
    problems = []
    if scope.difficulty is not None and scope.difficulty not in DIFFICULTIES:
        problems.append(
            Problem("difficulty", f"{owner}: difficulty must be one of {', '.join(DIFFICULTIES)}")
        )
    if scope.level is not None and scope.level not in LEVELS:
        problems.append(Problem("level", f"{owner}: level must be one of {', '.join(LEVELS)}"))
    if len(scope.versions) > MAX_VERSIONS:
        problems.append(Problem("versions", f"{owner}: at most {MAX_VERSIONS} versions"))
    if len(scope.accepted) > MAX_VERSIONS or not all(
        re.fullmatch(r"[a-z]+(-[a-z]+)*", kind) and len(kind) <= 40 for kind in scope.accepted
    ):
        problems.append(
            Problem(
                "accepted",
                f"{owner}: accepted lists at most {MAX_VERSIONS} finding kinds, like 'length-cue'",
            )
        )
    problems += [
        Problem(
            "versions",
            f"{owner}: version {version[:80]!r} must name a product and a version, "
            "like 'TensorRT 10.x' or 'TensorRT-LLM 1.2'",
        )
        for version in scope.versions
        if not PRODUCT_VERSION.fullmatch(version)
    ]
    return problems


def check_references(line: int, owner: str, references: list[ReferenceData]) -> None:
    """Refuse references that are not links to web pages, too long, too many or repeated."""
    for problem in reference_problems(owner, references):
        raise InvalidContent(line, problem.message)


def reference_problems(owner: str, references: list[ReferenceData]) -> list[Problem]:
    """What is wrong with a question's references, each problem named by its reference."""
    if len(references) > MAX_REFERENCES:
        return [
            Problem(
                "references",
                f"question {owner} has {len(references)} references; at most {MAX_REFERENCES}",
            )
        ]
    problems, seen = [], set()
    for number, reference in enumerate(references, start=1):
        field, where = f"reference-{number}", f"question {owner}, reference {number}"
        found = []
        if (problem := url_problem(reference.url)) is not None:
            found.append(f"{where}: the url {problem}")
        elif reference.url in seen:
            found.append(f"{where}: the url {reference.url!r} is cited twice")
        seen.add(reference.url)
        if reference.title is not None and not reference.title.strip():
            found.append(f"{where}: the title is empty (leave it out instead)")
        for what, value, limit in (
            ("title", reference.title or "", REFERENCE_TITLE),
            ("version", reference.version or "", VERSION),
        ):
            if (long := _too_long(f"{where} {what}", value, limit)) is not None:
                found.append(long)
        texts = {"title": reference.title or "", "version": reference.version or ""}
        found += [message for _, message in _hidden(where, **texts)]
        problems += [Problem(field, message) for message in found]
    return problems


def url_problem(url: str) -> str | None:
    """Say what keeps url from being an absolute link to a web page (None when nothing does)."""
    if len(url) > URL:
        return f"is {len(url):,} characters long; at most {URL:,} fit"
    if match := _NOT_IN_URL.search(url):
        return (
            f"holds {match.group()!r} at character {match.start() + 1}: spaces, control "
            "characters and quotes must be percent-encoded"
        )
    if not url.lower().startswith(("https://", "http://")):
        return "must be an absolute address starting with https:// (or http://)"
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port
    except ValueError:
        return "has a malformed host or port"
    if not host:
        return "names no host"
    if parts.username is not None or parts.password is not None:
        return "must not carry a user name or password"
    return None


def _too_long(what: str, value: str, limit: int) -> str | None:
    if len(value) > limit:
        return f"the {what} is {len(value)} characters long; at most {limit} fit"
    return None


def _fits(line: int, what: str, value: str, limit: int) -> None:
    if (message := _too_long(what, value, limit)) is not None:
        raise InvalidContent(line, message)


def _hidden(owner: str, **texts: str) -> list[tuple[str, str]]:
    """(name, message) for each text of owner's that holds an invisible character."""
    found = []
    for name, text in texts.items():
        if (hidden := hidden_character(text)) is not None:
            at, which = hidden
            found.append(
                (
                    name,
                    f"{owner}: the {name} holds the invisible character {which} at character "
                    f"{at}; such characters reorder or hide text, remove it",
                )
            )
    return found


def _shown(line: int, owner: str, **texts: str) -> None:
    """Refuse a text of owner's that holds an invisible character, naming the text and where."""
    for _, message in _hidden(owner, **texts):
        raise InvalidContent(line, message)
