"""Moodle's Aiken format: a stem, lettered choices and the right letter.

    Which layer fuses kernels?
    A. The builder
    B) The runtime
    ANSWER: A

Aiken has no topics or titles: the questions go into one question set named after the file,
and are matched by their text. Every question that cannot be read is reported with its
line; by default nothing is imported then, and with `skip_bad` the good ones are.
"""

import re
from dataclasses import dataclass, field

from app.content.bundle import Bundle, ChoiceData, QuestionData, Report
from app.importers.errors import ImportRefused
from app.importers.keys import file_set, text_key
from app.importers.text import plain_to_markdown

_CHOICE = re.compile(r"^([A-Z])[.)](?:\s+(.*)|$)")
_ANSWER = re.compile(r"^ANSWER\s*:\s*(.*)$", re.IGNORECASE)
_LOOKS_CHOICE = re.compile(r"^\s*[A-Z][.)][ \t]+\S", re.MULTILINE)
_LOOKS_ANSWER = re.compile(r"^\s*ANSWER:[ \t]*[A-Z][ \t]*$", re.MULTILINE)
SKIP_BAD = "aiken-skip-bad"  # an older name for the format aiken with skip_bad
MAX_LISTED = 20  # problems named in a refusal; the rest are counted


def looks_like(text: str) -> bool:
    """Tell whether text has lettered choices and an 'ANSWER: X' line."""
    return bool(_LOOKS_ANSWER.search(text) and _LOOKS_CHOICE.search(text))


@dataclass
class _Draft:
    line: int
    stem: list[str] = field(default_factory=list)
    choices: list[tuple[int, str]] = field(default_factory=list)
    answer: tuple[int, str] | None = None
    problem: tuple[int, str] | None = None
    gap: bool = False  # a blank line after the choices: a next question may start

    def fail(self, line: int, message: str) -> None:
        self.problem = self.problem or (line, message)


def parse(text: str, file: str, skip_bad: bool = False) -> tuple[Bundle, Report]:
    """Parse an Aiken file into one question set; refuse it if any question is bad, unless
    skip_bad, when the bad ones are reported and left out."""
    report = Report(file=file, format="aiken")
    drafts = _drafts(text)
    qset = file_set(file, drafts[0].line if drafts else 1)
    problems: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for draft in drafts:
        question = _finish(draft, file)
        if question is not None and question.key in seen:
            draft.fail(draft.line, f"the same question is already on line {seen[question.key]}")
        if draft.problem is not None or question is None:
            problems.append(draft.problem or (draft.line, "the question cannot be read"))
            continue
        seen[question.key] = question.line
        qset.questions.append(question)
    if problems and not skip_bad:
        raise ImportRefused(file, problems[0][0], _listed(problems))
    for line, message in problems:
        report.refuse(line, message)
    if not qset.questions:
        raise ImportRefused(
            file, 1, "the file holds no Aiken question (stem, 'A. ...', 'ANSWER: A')"
        )
    report.count("questions", len(qset.questions))
    return Bundle(question_sets=[qset]), report


def _listed(problems: list[tuple[int, str]]) -> str:
    named = "; ".join(f"line {line}: {message}" for line, message in problems[:MAX_LISTED])
    more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
    head = "a question" if len(problems) == 1 else f"{len(problems)} questions"
    return (
        f"{head} cannot be read, so nothing was imported (skipping bad questions, "
        f"--skip-bad, imports the others): {named}{more}"
    )


def _drafts(text: str) -> list[_Draft]:
    """Group the lines into questions, in one pass; a problem stays with its question."""
    drafts: list[_Draft] = []
    draft: _Draft | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.replace("\xa0", " ").strip()
        if not line:
            if draft is not None and draft.choices:
                draft.gap = True
            continue
        if draft is None or (draft.gap and not _CHOICE.match(line) and not _ANSWER.match(line)):
            if draft is not None:
                draft.fail(draft.line, "the question has no 'ANSWER: X' line after its choices")
            draft = _Draft(number)
            drafts.append(draft)
        if answer := _ANSWER.match(line):
            if not draft.stem:
                draft.fail(number, "an 'ANSWER:' line without a question before it")
            draft.answer = (number, answer.group(1).strip())
            draft = None
        elif choice := _CHOICE.match(line):
            _add_choice(draft, number, choice)
        elif draft.choices:
            draft.fail(
                number, "text after the choices: expected a choice like 'C. ...' or 'ANSWER: X'"
            )
        else:
            draft.stem.append(line)
    if draft is not None:
        draft.fail(draft.line, "the question has no 'ANSWER: X' line")
    return drafts


def _add_choice(draft: _Draft, number: int, choice: re.Match[str]) -> None:
    if not draft.stem:
        draft.fail(number, "a choice before any question text")
    expected = chr(ord("A") + len(draft.choices))
    if choice.group(1) != expected:
        draft.fail(number, f"choice {choice.group(1)} where {expected} was expected")
    text = (choice.group(2) or "").strip()
    if not text:
        draft.fail(number, f"choice {choice.group(1)} has no text")
    draft.choices.append((number, text))


def _finish(draft: _Draft, file: str) -> QuestionData | None:
    """Check a draft's choices and answer; return the question (None when it has a problem)."""
    if draft.problem is not None:
        return None
    if len(draft.choices) < 2:
        draft.fail(draft.line, "the question needs at least two choices like 'A. ...'")
        return None
    assert draft.answer is not None
    line, letter = draft.answer
    index = ord(letter.upper()) - ord("A") if len(letter) == 1 else -1
    if not 0 <= index < len(draft.choices):
        letters = f"A-{chr(ord('A') + len(draft.choices) - 1)}"
        draft.fail(line, f"'ANSWER: {letter}' must name one choice letter ({letters})")
        return None
    stem = plain_to_markdown(" ".join(draft.stem))
    return QuestionData(
        key=text_key(stem),
        stem=stem,
        choices=[
            ChoiceData(plain_to_markdown(text), n == index)
            for n, (_, text) in enumerate(draft.choices)
        ],
        explanation="",
        line=draft.line,
        source=f"{file}:{draft.line}",
    )
