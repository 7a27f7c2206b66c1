"""Moodle's GIFT format: questions separated by blank lines, answers in braces.

    // a comment line
    $CATEGORY: $course$/top/Networking/Routing
    ::Title::[html]Which <b>one</b>? { =right #why ~wrong #why not ####general feedback }
    ::TF:: The sky is blue. {T}
    Which two? { ~%50%one ~%50%two ~%-100%three }

As in Moodle, a '=' answer makes a one-answer question and weights alone a multiple-response
one. Categories become topics and sets (see gift_categories). Questions are matched by title
within their category, untitled ones by their text. The general feedback (`####...`) is the
explanation, and a choice's feedback (`#...`) is the choice's own. Essays, short answers,
numerical, matching, missing-word questions, descriptions and one-answer questions with
several right answers are skipped, each reported with its line.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from app.content.bundle import Bundle, ChoiceData, QuestionData, Report
from app.importers.errors import ImportRefused
from app.importers.gift_categories import Catalogue
from app.importers.markup import FORMATS, to_markdown

# Escaped characters stand in the text as private-use characters while it is parsed.
_ESCAPES = {"\\": "\ue000", "~": "\ue001", "=": "\ue002", "#": "\ue003", "{": "\ue004"}
_ESCAPES |= {"}": "\ue005", ":": "\ue006", "n": "\ue007"}
_ESCAPE = re.compile(r"\\([\\~=#{}:n])")
_RESTORE = str.maketrans({v: k for k, v in _ESCAPES.items()} | {"\ue007": "\n"})
_CATEGORY = re.compile(r"^\s*\$CATEGORY:(.*)$", re.IGNORECASE)
_FORMAT = re.compile(r"^\s*\[(" + "|".join(FORMATS) + r")\]", re.IGNORECASE)
_WEIGHT = re.compile(r"^\s*%(-?\d+(?:\.\d+)?)%")
_TRUE_FALSE = re.compile(r"T|TRUE|F|FALSE")
_CHOICE = re.compile(r"([=~])([^=~]*)")
_LOOKS = re.compile(
    r"^\s*(?:::[^\n]*?::|\$CATEGORY:)|\{\s*(?:[=~][^\n}]*[=~}]|(?:T|TRUE|F|FALSE)\s*\})",
    re.MULTILINE,
)


def looks_like(text: str) -> bool:
    """Tell whether text holds a GIFT title, category or answer block."""
    return bool(_LOOKS.search(text))


@dataclass
class _Block:
    """One question's lines (comments left out) and the number of each."""

    lines: list[str] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    at: int = 0  # the last offset looked up, and the line index it is on
    index: int = 0

    def line(self, text: str, offset: int) -> int:
        """The line of the character at offset in text (the block's lines joined).

        Offsets are mostly asked for in order (a block's choices), so the count goes on from
        the last one: a question of many lines is read once, not once a choice.
        """
        if offset < self.at:
            self.at, self.index = 0, 0
        self.index += text.count("\n", self.at, offset)
        self.at = offset
        return self.numbers[self.index]


@dataclass
class _Skip(Exception):
    """A question of a type Studyhall does not have."""

    reason: str
    what: str  # the kind of question, in a word or two


def parse(text: str, file: str, skip_bad: bool = False) -> tuple[Bundle, Report]:
    """Parse a GIFT file into topics and a question set per category; with skip_bad, a
    question that cannot be read is reported and left out rather than refusing the file."""
    report = Report(file=file, format="gift")
    catalogue = Catalogue(file)
    for item in _blocks(text):
        if isinstance(item, tuple):
            catalogue.category(_restore(item[1]), item[0])
            continue
        try:
            question = _question(item, file, report)
        except _Skip as skip:
            report.skip(item.numbers[0], skip.reason, skip.what)
            continue
        except ImportRefused as exc:
            if not skip_bad:
                raise
            report.refuse(exc.line, exc.message)
            continue
        catalogue.add(question.title, question.data)
    bundle = catalogue.bundle()
    if not bundle.question_sets and not report.warnings:
        raise ImportRefused(file, 1, "the file holds no GIFT question")
    report.count("topics", len(bundle.topics))
    report.count("questions", sum(len(s.questions) for s in bundle.question_sets))
    return bundle, report


def _blocks(text: str) -> Iterator[_Block | tuple[int, str]]:
    """Yield each question's block, and (line, path) for each category, in one pass."""
    block = _Block()
    for number, line in enumerate(text.split("\n"), start=1):
        category = _CATEGORY.match(line)
        if not line.strip() or category:
            if block.lines:
                yield block
                block = _Block()
            if category:
                yield number, category.group(1)
        elif not line.lstrip().startswith("//"):
            block.lines.append(_ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], line))
            block.numbers.append(number)
    if block.lines:
        yield block


def _restore(text: str) -> str:
    return text.translate(_RESTORE)


@dataclass
class _Choice:
    text: str
    weight: float
    feedback: str
    line: int
    marker: str  # "=" or "~"

    def right(self, kind: str) -> bool:
        """In a one-answer question only the '=' answer is right; else a positive weight is."""
        return self.marker == "=" if kind == "single" else self.weight > 0


@dataclass
class _Question:
    title: str | None
    data: QuestionData


def _question(block: _Block, file: str, report: Report) -> _Question:
    """Read one question block, or raise _Skip for a type Studyhall does not have."""
    text = "\n".join(block.lines)
    title, start = _title(text, block, file)
    opened = text.find("{", start)
    if opened < 0:
        raise _Skip(
            "no answer block {...}: a description, which Studyhall does not have", "description"
        )
    closed = text.find("}", opened)
    nested = text.find("{", opened + 1)
    if closed < 0 or 0 <= nested < closed:
        raise ImportRefused(
            file,
            block.line(text, opened),
            "this '{' is not closed by a '}' before the question ends (a blank line ends a "
            "question; write \\{ and \\} for braces in text)",
        )
    if text[closed + 1 :].strip():
        raise _Skip("text after the answer block: a missing-word question", "missing-word")
    stem, format = _format(text[start:opened], "moodle")
    line = block.numbers[0]
    choices, general, kind = _answers(text, opened, closed, block, file, format)
    if not stem.strip():
        raise ImportRefused(file, line, "the question has no text before its answer block")
    return _Question(title, _data(stem, format, choices, general, kind, line, file, report))


def _title(text: str, block: _Block, file: str) -> tuple[str | None, int]:
    """Return the question's title (None without one) and where its text starts."""
    stripped = len(text) - len(text.lstrip())
    if not text.startswith("::", stripped):
        return None, 0
    end = text.find("::", stripped + 2)
    if end < 0:
        raise ImportRefused(
            file, block.line(text, stripped), "the title opened with '::' is not closed with '::'"
        )
    title = " ".join(_restore(text[stripped + 2 : end]).split())
    return title or None, end + 2


def _format(text: str, default: str) -> tuple[str, str]:
    """Split a leading [html], [markdown], [plain] or [moodle] off text."""
    match = _FORMAT.match(text)
    if match is None:
        return text, default
    return text[match.end() :], match.group(1).lower()


def _answers(
    text: str, opened: int, closed: int, block: _Block, file: str, format: str
) -> tuple[list[_Choice], str, str]:
    """Read an answer block into choices, the general feedback and the question's kind."""
    body = text[opened + 1 : closed]
    cut = body.rfind("####")
    general = body[cut + 4 :] if cut >= 0 else ""
    body = body[:cut] if cut >= 0 else body
    if not body.strip():
        raise _Skip("an empty answer block {}: an essay, which Studyhall does not have", "essay")
    if body.lstrip().startswith("#"):
        raise _Skip("{#...}: a numerical question, which Studyhall does not have", "numerical")
    head, _, feedback = body.strip().partition("#")
    if _TRUE_FALSE.fullmatch(head.strip()):
        return _true_false(head.strip(), feedback, block.line(text, opened)), general, "single"
    first = len(body) - len(body.lstrip())
    if body.strip()[:1] not in ("=", "~") and "~" not in body:
        raise _Skip(
            "an answer without '=' or '~': a short-answer question, which Studyhall does not have",
            "short-answer",
        )
    if body.strip()[:1] not in ("=", "~"):
        raise ImportRefused(
            file,
            block.line(text, opened + 1 + first),
            "an answer block holds choices starting with '=' (right) or '~' (wrong), or T or F",
        )
    choices = [_choice(match, text, opened + 1, block) for match in _CHOICE.finditer(body)]
    markers = [choice.marker for choice in choices]
    if "~" not in markers:
        if any("->" in choice.text for choice in choices):
            raise _Skip(
                "'=a -> b' pairs: a matching question, which Studyhall does not have", "matching"
            )
        raise _Skip(
            "only '=' answers: a short-answer question, which Studyhall does not have",
            "short-answer",
        )
    # As in Moodle, a block with a '~' answer is a multiple-choice one: '->' in it is text
    if markers.count("=") > 1:
        raise _Skip(
            "several '=' answers: a one-answer question any of whose right answers scores, "
            "which Studyhall does not have (use ~%50% weights for a multiple-response one)",
            "several right answers",
        )
    # As in Moodle: a '=' answer makes a one-answer question, weights alone a multiple-response one
    return choices, general, "single" if "=" in markers else "multi"


def _choice(match: re.Match[str], text: str, base: int, block: _Block) -> _Choice:
    marker, rest = match.groups()
    weight = _WEIGHT.match(rest)
    value = float(weight.group(1)) if weight else (100.0 if marker == "=" else 0.0)
    answer, _, feedback = rest[weight.end() if weight else 0 :].partition("#")
    return _Choice(answer, value, feedback, block.line(text, base + match.start()), marker)


def _true_false(head: str, feedback: str, line: int) -> list[_Choice]:
    """Two choices, True and False; Moodle's first feedback is for the wrong one."""
    wrong, _, right = feedback.partition("#")
    true = head.upper().startswith("T")
    return [
        _Choice(
            "True", 100.0 if true else 0.0, right if true else wrong, line, "=" if true else "~"
        ),
        _Choice(
            "False", 0.0 if true else 100.0, wrong if true else right, line, "~" if true else "="
        ),
    ]


def _data(
    stem: str,
    format: str,
    choices: list[_Choice],
    general: str,
    kind: str,
    line: int,
    file: str,
    report: Report,
) -> QuestionData:
    """Check the choices and write the question's Markdown."""
    for number, choice in enumerate(choices, start=1):
        if not choice.text.strip():
            raise ImportRefused(file, choice.line, f"choice {number} has no text")
    right = [choice for choice in choices if choice.right(kind)]
    if not right:
        raise ImportRefused(
            file,
            line,
            "none of the choices is right: mark one with '=' or give it a positive %weight%",
        )
    _warn_about_weights(choices, kind, report)
    return QuestionData(
        key="",
        stem=_convert(stem, format),  # its [format] was read already: "[html]" after it is text
        choices=[
            ChoiceData(_markdown(c.text, format), c.right(kind), _markdown(c.feedback, format))
            for c in choices
        ],
        explanation=_markdown(general, format),
        line=line,
        kind=kind,
        source=f"{file}:{line}",
    )


def _warn_about_weights(choices: list[_Choice], kind: str, report: Report) -> None:
    """Say where Moodle's weights mean more than right and wrong, which is what is kept."""
    if kind == "single":
        for choice in choices:
            if choice.marker == "~" and choice.weight > 0:
                report.warn(
                    choice.line,
                    f"a partly right answer ({choice.weight:g}%) in a one-answer question is "
                    "imported as wrong",
                )
        return
    total = sum(choice.weight for choice in choices if choice.weight > 0)
    if abs(total - 100) > 0.01:
        first = next(choice for choice in choices if choice.weight > 0)
        report.warn(
            first.line,
            f"the right choices' weights add up to {total:g}%, not 100%; each is imported as right",
        )


def _markdown(text: str, default: str) -> str:
    return _convert(*_format(text, default))


def _convert(text: str, format: str) -> str:
    if format in ("plain", "moodle"):
        text = " ".join(text.split())  # a line end in the file is a space; \n breaks a line
    return to_markdown(_restore(text), format)
