"""Checks a bundle must pass before anything of it is written: sizes that fit the columns,
unique question keys, answer keys that can be answered, and references that are web links."""

import re
from urllib.parse import urlsplit

from app.content.bundle import Bundle, QuestionData, ReferenceData
from app.content.errors import InvalidContent
from app.content.markdown import split_sections

SLUG, TITLE, KEY, HEADING, AUTHOR = 120, 200, 60, 300, 200
URL, REFERENCE_TITLE, VERSION = 2000, 300, 80  # the columns of question_reference
MAX_REFERENCES = 20  # a question's sources; more is a reading list, not a reference
# Spaces, control and invisible formatting characters (which can disguise where a link
# goes), and characters an address must percent-encode.
_NOT_IN_URL = re.compile(
    r'[\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"<>\\^`{|}]'
)


def check_bundle(bundle: Bundle) -> None:
    """Refuse, naming file and line, what the database could not hold or a learner answer."""
    for topic in bundle.topics:
        _fits(topic.line, "topic slug", topic.slug, SLUG)
        _fits(topic.line, "topic title", topic.title, TITLE)
    for qset in bundle.question_sets:
        _fits(qset.line or 1, "question set slug (from its title)", qset.slug, SLUG)
        _fits(qset.line or 1, "question set title", qset.title, TITLE)
        seen: dict[str, int] = {}
        for question in qset.questions:
            if question.key in seen:
                raise InvalidContent(question.line or 1, f"question {question.key!r} appears twice")
            seen[question.key] = question.line
            _check_question(question)
    for placement in bundle.placements:
        if placement.references is not None:
            check_references(placement.line, repr(placement.ref), placement.references)
    for note in bundle.notes:
        line = note.line or 1
        _fits(line, "note slug (from its title)", note.slug, SLUG)
        _fits(line, "note title", note.title, TITLE)
        _fits(line, "note author", note.author, AUTHOR)
        sections = split_sections(note.markdown).sections
        for section, at in zip(
            sections, note.section_lines or [line] * len(sections), strict=False
        ):
            _fits(at, "section heading", section.heading, HEADING)
            _fits(at, "section anchor", section.anchor, SLUG)


def _check_question(question: QuestionData) -> None:
    line = question.line or 1
    _fits(line, "question number", question.key, KEY)
    right = sum(choice.correct for choice in question.choices)
    if right == 0:
        raise InvalidContent(line, f"question {question.key!r} has no correct choice")
    if question.kind == "single" and right > 1:
        raise InvalidContent(
            line,
            f"question {question.key!r} takes one answer but marks {right} choices correct "
            "(make it kind 'multi', or mark one)",
        )
    if question.notes is not None:
        question.notes = list(dict.fromkeys(question.notes))
    if question.references is not None:
        check_references(line, repr(question.key), question.references)


def check_references(line: int, owner: str, references: list[ReferenceData]) -> None:
    """Refuse references that are not links to web pages, too long, too many or repeated."""
    if len(references) > MAX_REFERENCES:
        raise InvalidContent(
            line, f"question {owner} has {len(references)} references; at most {MAX_REFERENCES}"
        )
    seen: set[str] = set()
    for number, reference in enumerate(references, start=1):
        where = f"question {owner}, reference {number}"
        problem = url_problem(reference.url)
        if problem is not None:
            raise InvalidContent(line, f"{where}: the url {problem}")
        if reference.url in seen:
            raise InvalidContent(line, f"{where}: the url {reference.url!r} is cited twice")
        seen.add(reference.url)
        if reference.title is not None and not reference.title.strip():
            raise InvalidContent(line, f"{where}: the title is empty (leave it out instead)")
        _fits(line, f"{where} title", reference.title or "", REFERENCE_TITLE)
        _fits(line, f"{where} version", reference.version or "", VERSION)


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


def _fits(line: int, what: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise InvalidContent(
            line, f"the {what} is {len(value)} characters long; at most {limit} fit"
        )
