"""The "Questions and Answers" page format (one question set per file).

    <Set title> — Questions and Answers
    Question 1: <stem>
    - <option>
    - <option> (Correct answer)
    Correct answer: <option text>
    <explanation paragraph>

Scraped pages end with the set title and the first stem repeated, with no options: that
tail is dropped and reported.
"""

import re
from dataclasses import dataclass, field

from app.content.bundle import Bundle, ChoiceData, QuestionData, QuestionSetData, Report
from app.content.markdown import slugify
from app.importers.errors import ImportRefused
from app.importers.text import plain_to_markdown

TITLE_SUFFIX = " — Questions and Answers"
_QUESTION = re.compile(r"^Question\s+(\d+)\s*[:.]\s*(.*)$")
_OPTION = re.compile(r"^[-*•]\s+(.*)$")
_MARKER = re.compile(r"\s*\(Correct answer\)\s*$", re.IGNORECASE)
_DECLARED = re.compile(r"^Correct answer\s*:\s*(.*)$", re.IGNORECASE)


def looks_like(text: str) -> bool:
    """Tell whether text starts with a Q&A title line."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    return first.strip().endswith(TITLE_SUFFIX.strip()) and "Question" in text


@dataclass
class _Draft:
    number: str
    line: int
    stem: list[str]
    options: list[tuple[int, str, bool]] = field(default_factory=list)
    declared: tuple[int, str] | None = None
    explanation: list[str] = field(default_factory=list)


def parse(text: str, file: str) -> tuple[Bundle, Report]:
    """Parse a Q&A page into a bundle holding one question set."""
    lines = [line.replace("\xa0", " ").rstrip() for line in text.split("\n")]
    report = Report(file=file, format="qa")
    start, title = _title(lines, file)
    tail_start = _scraped_tail(lines, title)
    drafts: list[_Draft] = []
    for index in range(start + 1, tail_start):
        _feed(drafts, lines[index], index + 1, file, report)
    if tail_start < len(lines):
        report.warn(
            tail_start + 1,
            f"dropped lines {tail_start + 1}-{_last_text_line(lines)}: the page's repeated "
            "title and first question (scraped tail), not a question",
        )
        report.count("dropped_lines", _last_text_line(lines) - tail_start)
    if not drafts:
        raise ImportRefused(file, start + 1, "no 'Question 1: ...' line follows the title")
    qset = QuestionSetData(slug=slugify(title), title=title, source=file, line=start + 1)
    seen: dict[str, int] = {}
    for draft in drafts:
        if draft.number in seen:
            raise ImportRefused(
                file,
                draft.line,
                f"Question {draft.number} appears twice (first on line {seen[draft.number]})",
            )
        seen[draft.number] = draft.line
        qset.questions.append(_finish(draft, file, report))
    report.count("questions", len(qset.questions))
    return Bundle(question_sets=[qset]), report


def _title(lines: list[str], file: str) -> tuple[int, str]:
    for index, line in enumerate(lines):
        if line.strip():
            if not line.strip().endswith(TITLE_SUFFIX.strip()):
                raise ImportRefused(
                    file, index + 1, f"the title line must end with '{TITLE_SUFFIX}'"
                )
            title = line.strip()[: -len(TITLE_SUFFIX.strip())].strip()
            if not title:
                raise ImportRefused(file, index + 1, "the title line has no title")
            return index, title
    raise ImportRefused(file, 1, "the file is empty")


def _scraped_tail(lines: list[str], title: str) -> int:
    """Return the index where the repeated title begins a tail with no options, or len(lines)."""
    for index in range(len(lines) - 1, 0, -1):
        if lines[index].strip() == title:
            rest = [line for line in lines[index + 1 :] if line.strip()]
            if len(rest) <= 1 and not any(_OPTION.match(line) for line in rest):
                return index
            break
    return len(lines)


def _last_text_line(lines: list[str]) -> int:
    return max(i + 1 for i, line in enumerate(lines) if line.strip())


def _feed(drafts: list[_Draft], line: str, number: int, file: str, report: Report) -> None:
    stripped = line.strip()
    if not stripped:
        return
    if match := _QUESTION.match(stripped):
        drafts.append(_Draft(match.group(1), number, [match.group(2).strip()]))
        return
    if not drafts:
        raise ImportRefused(file, number, "expected 'Question 1: ...' before this line")
    draft = drafts[-1]
    if (match := _OPTION.match(stripped)) and draft.declared is None:
        text = match.group(1)
        marked = bool(_MARKER.search(text))
        draft.options.append((number, _MARKER.sub("", text).strip(), marked))
    elif match := _DECLARED.match(stripped):
        if draft.declared is not None:
            raise ImportRefused(
                file, number, f"Question {draft.number} has two 'Correct answer:' lines"
            )
        draft.declared = (number, match.group(1).strip())
    elif draft.options or draft.declared:
        draft.explanation.append(stripped)
    else:
        draft.stem.append(stripped)


def _finish(draft: _Draft, file: str, report: Report) -> QuestionData:
    label = f"Question {draft.number}"
    if len(draft.options) < 2:
        raise ImportRefused(file, draft.line, f"{label} needs at least two '- option' lines")
    marked = [(line, text) for line, text, is_marked in draft.options if is_marked]
    if not marked:
        raise ImportRefused(file, draft.line, f"{label} has no option marked '(Correct answer)'")
    if len(marked) > 1:
        raise ImportRefused(
            file,
            marked[1][0],
            f"{label} has more than one option marked '(Correct answer)' "
            f"(lines {', '.join(str(line) for line, _ in marked)})",
        )
    _check_declared(draft, marked[0][1], label, file, report)
    if not draft.explanation:
        report.warn(draft.line, f"{label} has no explanation")
    return QuestionData(
        key=draft.number,
        stem=plain_to_markdown(" ".join(draft.stem)),
        choices=[ChoiceData(plain_to_markdown(text), m) for _, text, m in draft.options],
        explanation=plain_to_markdown(" ".join(draft.explanation)),
        line=draft.line,
        source=f"{file}:{draft.line}",
    )


def _check_declared(draft: _Draft, marked: str, label: str, file: str, report: Report) -> None:
    if draft.declared is None:
        report.warn(draft.line, f"{label} has no 'Correct answer:' line; the marked option is used")
        return
    line, declared = draft.declared
    texts = [text for _, text, _ in draft.options]
    if _norm(declared) not in {_norm(text) for text in texts}:
        raise ImportRefused(
            file, line, f"{label}: 'Correct answer: {declared}' matches none of its options"
        )
    if _norm(declared) != _norm(marked):
        raise ImportRefused(
            file,
            line,
            f"{label}: 'Correct answer:' names a different option than the one marked "
            "'(Correct answer)'",
        )


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()
