"""Questions as CSV for spreadsheets: one row a question, UTF-8 with a byte-order mark.

Columns: id, question, choice_a ... choice_h, right (the right choices' letters, "A" or
"A,C"), explanation, topic (its slug), reference_url and reference_title (the first source).
Formula guard: a cell starting with `= + - @`, a tab, a carriage return or an apostrophe gets
one more apostrophe in front, so a spreadsheet shows it as text and never runs it; reading
the file back, one leading apostrophe is taken off every cell that has one (`unguard`).
"""

import csv
import io
from collections.abc import Iterable

from app.content.csv_layout import COLUMNS, LETTERS
from app.exporters.errors import NotExportable
from app.exporters.selection import ExportedQuestion

_GUARDED = ("=", "+", "-", "@", "\t", "\r", "'")


def guard(cell: str) -> str:
    """Put an apostrophe before a cell a spreadsheet could read as a formula (or one that
    starts with an apostrophe already, so taking one off always gives the cell back)."""
    return "'" + cell if cell.startswith(_GUARDED) else cell


def unguard(cell: str) -> str:
    """The cell as it was before `guard`."""
    return cell[1:] if cell.startswith("'") else cell


def write_csv(questions: Iterable[ExportedQuestion]) -> str:
    """Write the questions as CSV rows under a header, starting with a byte-order mark."""
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for question in questions:
        writer.writerow([guard(cell) for cell in _row(question)])
    return out.getvalue()


def _row(question: ExportedQuestion) -> list[str]:
    if len(question.choices) > len(LETTERS):
        raise NotExportable(
            f"question {question.id} has {len(question.choices)} choices; CSV holds at most "
            f"{len(LETTERS)}: export it as GIFT, Moodle XML or JSON"
        )
    texts = [choice.text for choice in question.choices]
    right = [LETTERS[n] for n, choice in enumerate(question.choices) if choice.correct]
    reference = question.references[0] if question.references else None
    return [
        question.id,
        question.stem,
        *texts,
        *[""] * (len(LETTERS) - len(texts)),
        ",".join(right),
        question.explanation,
        question.topic or "",
        reference.url if reference else "",
        (reference.title or "") if reference else "",
    ]
