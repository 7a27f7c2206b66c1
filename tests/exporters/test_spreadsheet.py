"""CSV export: the agreed columns, a byte-order mark, and formulas never run."""

import csv
import io

import pytest

from app.content.csv_layout import COLUMNS
from app.exporters.errors import NotExportable
from app.exporters.selection import ExportedChoice, read_questions
from app.exporters.spreadsheet import guard, unguard, write_csv
from tests.exporters.conftest import QUESTIONS, exported_question


def _rows(text: str) -> list[dict[str, str]]:
    assert text.startswith("\ufeff")
    return list(csv.DictReader(io.StringIO(text[1:], newline="")))


def test_columns_are_the_agreed_ones():
    assert COLUMNS == (
        "id", "question", "choice_a", "choice_b", "choice_c", "choice_d", "choice_e",
        "choice_f", "choice_g", "choice_h", "right", "explanation", "topic", "reference_url",
        "reference_title",
    )  # fmt: skip
    assert write_csv([]).splitlines() == ["\ufeff" + ",".join(COLUMNS)]


def test_planted_bank_reads_back_cell_for_cell(planted):
    with planted.session_scope() as session:
        rows = {row["id"]: row for row in _rows(write_csv(read_questions(session)))}
    for question in QUESTIONS:
        row = {name: unguard(value) for name, value in rows[question["id"]].items()}
        assert row["question"] == question["stem"]
        texts = [row[f"choice_{letter}"] for letter in "abcdefgh"]
        assert texts == [c["text"] for c in question["choices"]] + [""] * (
            8 - len(question["choices"])
        )
        right = ["ABCDEFGH"[n] for n, c in enumerate(question["choices"]) if c["correct"]]
        assert row["right"] == ",".join(right)
        assert row["explanation"] == question["explanation"]
        assert row["topic"] == question["topic"]
    assert rows["tricky/multi"]["right"] == "A,B,C"
    assert (rows["tricky/code"]["reference_url"], rows["tricky/code"]["reference_title"]) == (
        "https://example.org/doc",
        "The doc",
    )
    assert rows["tricky/code"]["explanation"].count("\n") == 5  # line ends kept, quoted


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("=SUM(A1:A2)", "'=SUM(A1:A2)"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@cmd", "'@cmd"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("'quoted'", "''quoted'"),
        ("plain = text", "plain = text"),
        ("", ""),
    ],
)
def test_formula_like_cells_get_an_apostrophe_that_reading_takes_off(cell, written):
    assert guard(cell) == written
    assert unguard(guard(cell)) == cell


def test_every_cell_is_guarded(planted):
    with planted.session_scope() as session:
        rows = {row["id"]: row for row in _rows(write_csv(read_questions(session)))}
    formulas = rows["tricky/formulas"]
    assert formulas["question"] == "'=SUM(A1:A2) looks like a formula"
    assert [formulas[f"choice_{c}"] for c in "bcde"] == ["'-1", "'+1", "'@cmd", "''quoted'"]
    risky = ("=", "+", "-", "@", "\t", "\r")
    assert not [v for row in rows.values() for v in row.values() if v.startswith(risky)]


def test_more_choices_than_columns_is_refused_by_name():
    choices = tuple(ExportedChoice(str(n), n == 1) for n in range(9))
    with pytest.raises(NotExportable, match="tricky/escapes has 9 choices; CSV holds at most 8"):
        write_csv([exported_question(choices=choices)])
