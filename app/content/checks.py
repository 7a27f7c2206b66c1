"""Checks a bundle must pass before anything of it is written: sizes that fit the columns,
unique question keys, and answer keys that can be answered."""

from app.content.bundle import Bundle, QuestionData
from app.content.errors import InvalidContent
from app.content.markdown import split_sections

SLUG, TITLE, KEY, HEADING, AUTHOR = 120, 200, 60, 300, 200


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


def _fits(line: int, what: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise InvalidContent(
            line, f"the {what} is {len(value)} characters long; at most {limit} fit"
        )
