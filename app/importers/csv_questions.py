"""Questions in a spreadsheet saved as CSV: one question a row, named columns.

    id;question;choice_a;choice_b;choice_c;right;explanation;topic
    q1;Which layer fuses kernels?;The builder;The runtime;;A;The builder does.;TensorRT/Build

Columns (the header row names them, in any order, case and spaces ignored): `question`,
`choice_a` ... `choice_h` (two at least), `right` (the right letters: "B", or "A,C" for a
question with several), and optionally `explanation`, `topic` (a path "Parent/Child" made
into topics as GIFT categories are), `reference_url` with `reference_title`, and `id` (the
key that finds the question again on a re-import; without it, a question is matched by its
text). Cells are plain text: one starting with "=" is text, never a formula. `;` or `,`
separates the cells, whichever the header uses more; a quoted cell may hold line ends.
Every refusal names the line the row starts on and the column at fault.
"""

import csv
import io
import re
from dataclasses import dataclass

from app.content.bundle import Bundle, ChoiceData, QuestionData, ReferenceData, Report
from app.content.csv_layout import CHOICES, COLUMNS, LETTERS
from app.importers.errors import ImportRefused
from app.importers.gift_categories import Catalogue
from app.importers.keys import file_set, text_key, title_key
from app.importers.text import plain_to_markdown

_RIGHT_SPLIT = re.compile(r"[\s,;/+&]+")
_URL = re.compile(r"^https?://\S+$", re.IGNORECASE)

TEMPLATE = (
    "id,question,choice_a,choice_b,choice_c,choice_d,right,explanation,topic,"
    "reference_url,reference_title\r\n"
    "engine-build,Which step turns a network into an optimized engine?,The builder,"
    "The runtime,The parser,The profiler,A,"
    '"The builder optimizes the network for one GPU and writes the engine.",'
    "Examples/Building engines,https://docs.nvidia.com/deeplearning/tensorrt/,"
    "TensorRT documentation\r\n"
    "lower-precision,Which precisions can an engine run layers in?,FP16,INT8,FP64,,"
    '"A,B","FP16 and INT8 are supported;\nFP64 is not.",Examples/Precision,,\r\n'
)


def looks_like(text: str) -> bool:
    """Tell whether text starts with a CSV header naming a `question` and a `right` column."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    if "question" not in first.lower():
        return False
    names = _names(next(csv.reader([first], delimiter=_delimiter(first)), []))
    return "question" in names and "right" in names


@dataclass
class _Row:
    line: int
    cells: dict[str, str]

    def refuse(self, file: str, column: str, message: str) -> ImportRefused:
        return ImportRefused(file, self.line, f"column {column}: {message}")


def parse(text: str, file: str, skip_bad: bool = False) -> tuple[Bundle, Report]:
    """Parse a CSV file of questions, one a row; refuse it at the first row that is wrong,
    or with skip_bad report each such row and leave it out."""
    report = Report(file=file, format="csv")
    text = text.lstrip("\ufeff")
    rows = _rows(text, file, report)
    catalogue = Catalogue(file)
    ids: dict[str, tuple[str, int]] = {}
    keys: dict[tuple[str, str], int] = {}
    good = 0
    for row in rows:
        try:
            data = _question(row, file)
        except ImportRefused as exc:
            if not skip_bad:
                raise
            report.refuse(exc.line, exc.message)
            continue
        good += 1
        catalogue.category(row.cells.get("topic", ""), row.line)
        given = row.cells.get("id", "")
        if given:
            key = title_key(given)
            if key in ids:
                first_id, first_line = ids[key]
                same = "the same id" if first_id == given else f"the id {first_id!r} (same key)"
                raise row.refuse(file, "id", f"{given!r}: {same} is already on line {first_line}")
            ids[key] = (given, row.line)
        qset = catalogue.current or file_set(file)
        key = title_key(given) if given else text_key(data.stem)
        if not given and (qset.slug, key) in keys:
            raise row.refuse(
                file,
                "question",
                f"the same question is already on line {keys[(qset.slug, key)]} under this "
                "topic; give one an id, or change its text",
            )
        keys[(qset.slug, key)] = row.line
        catalogue.add(given or None, data)
    if not rows:
        raise ImportRefused(file, 1, "the file has a header but no question rows")
    report.count("questions", good)
    return catalogue.bundle(), report


def _rows(text: str, file: str, report: Report) -> list[_Row]:
    """Read the header and the rows, each with the line it starts on."""
    header_line = text.split("\n", 1)[0]
    reader = csv.reader(io.StringIO(text), delimiter=_delimiter(header_line), strict=True)
    rows: list[_Row] = []
    start = 1  # the line the row being read starts on
    try:
        header = _header(next(reader, []), file, report)
        start = reader.line_num + 1
        for cells in reader:
            if any(cell.strip() for cell in cells):
                rows.append(_row(header, cells, start, file))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ImportRefused(
            file, start, f"the row cannot be read as CSV ({exc}): is a quote left open?"
        ) from None
    return rows


def _header(cells: list[str], file: str, report: Report) -> list[str]:
    """Check the header's column names; an unknown one is a warning (its cells are ignored)."""
    names = _names(cells)
    for number, name in enumerate(names, start=1):
        if name and name in names[: number - 1]:
            raise ImportRefused(file, 1, f"column {name}: named twice in the header")
        if name not in COLUMNS:
            shown = repr(cells[number - 1].strip()) if name else f"{number} (no name)"
            report.warn(1, f"column {shown} is not one Studyhall reads; its cells are ignored")
    for needed in ("question", "right"):
        if needed not in names:
            raise ImportRefused(file, 1, f"column {needed}: missing from the header")
    if sum(name in CHOICES for name in names) < 2:
        raise ImportRefused(
            file,
            1,
            "column choice_a: the header needs two choice columns at least (choice_a, "
            "choice_b, ...)",
        )
    return names


def _row(header: list[str], cells: list[str], line: int, file: str) -> _Row:
    if len(cells) > len(header):
        raise ImportRefused(
            file,
            line,
            f"column {len(header) + 1}: the row has {len(cells)} cells and the header names "
            f"{len(header)} columns (is a cell holding the separator left unquoted?)",
        )
    cells = cells + [""] * (len(header) - len(cells))  # spreadsheets drop empty last cells
    named = {name: cell.strip() for name, cell in zip(header, cells, strict=True)}
    return _Row(line, {name: value for name, value in named.items() if name in COLUMNS})


def _question(row: _Row, file: str) -> QuestionData:
    """Check one row and make its question."""
    stem = row.cells.get("question", "")
    if not stem:
        raise row.refuse(file, "question", "the question is empty")
    choices = {
        letter: row.cells[column]
        for letter, column in zip(LETTERS, CHOICES, strict=True)
        if row.cells.get(column)
    }
    if len(choices) < 2:
        raise row.refuse(file, "choice_a", "a question needs at least two choices")
    right = _right(row, file, choices)
    return QuestionData(
        key="",
        stem=plain_to_markdown(stem),
        choices=[
            ChoiceData(plain_to_markdown(text), letter in right) for letter, text in choices.items()
        ],
        explanation=plain_to_markdown(row.cells.get("explanation", "")),
        line=row.line,
        kind="multi" if len(right) > 1 else "single",
        source=f"{file}:{row.line}",
        references=_references(row, file),
    )


def _right(row: _Row, file: str, choices: dict[str, str]) -> set[str]:
    """The right letters, each naming a choice that has text."""
    given = row.cells.get("right", "")
    letters = [part.upper() for part in _RIGHT_SPLIT.split(given) if part]
    if not letters:
        raise row.refuse(file, "right", "no right letter (write e.g. B, or A,C)")
    for letter in letters:
        if len(letter) != 1 or letter not in LETTERS:
            raise row.refuse(
                file, "right", f"{letter!r} is not a choice letter (A to H, e.g. B or A,C)"
            )
        if letter not in choices:
            raise row.refuse(
                file, "right", f"{letter} names choice_{letter.lower()}, which is empty"
            )
    return set(letters)


def _references(row: _Row, file: str) -> list[ReferenceData] | None:
    url, title = row.cells.get("reference_url", ""), row.cells.get("reference_title", "")
    if not url:
        if title:
            raise row.refuse(file, "reference_url", "a reference_title needs a reference_url")
        # an emptied cell removes the reference; a file without the column leaves it be
        return [] if "reference_url" in row.cells else None
    if not _URL.match(url):
        raise row.refuse(file, "reference_url", f"{url[:80]!r} is not a web address (http...)")
    return [ReferenceData(url, title or None)]


def _names(cells: list[str]) -> list[str]:
    return ["_".join(cell.strip().lower().split()) for cell in cells]


def _delimiter(header: str) -> str:
    """`;` when the header has more of them than commas (spreadsheets in many languages)."""
    return ";" if header.count(";") > header.count(",") else ","
