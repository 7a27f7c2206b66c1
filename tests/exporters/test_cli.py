"""`studyhall export --format gift|moodle-xml|csv|json [--set S]... [--topic T] [-o FILE]`."""

import json
import xml.etree.ElementTree as ET

import click
import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.db import Database
from tests.exporters.conftest import DOCUMENT, read_apkg
from tests.factories import import_file


@pytest.fixture
def run(cli_env, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, list(args))


@pytest.fixture
def content(cli_env):  # type: ignore[no-untyped-def]
    database = Database(cli_env.database_url)
    import_file(database, json.dumps(DOCUMENT).encode(), "planted.json", 0.99)
    yield database
    database.dispose()


def said(result) -> str:  # type: ignore[no-untyped-def]
    return " ".join(click.unstyle(result.output).split())


def test_gift_to_standard_output(run, content):
    result = run("export", "--format", "gift")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("::[markdown]") == len(DOCUMENT["questions"])


def test_moodle_xml_of_one_set_to_a_file(run, content, tmp_path):
    result = run("export", "-f", "moodle-xml", "--set", "plain", "-o", "plain.xml")
    assert result.exit_code == 0, result.output
    assert "Wrote plain.xml" in said(result) and result.stdout == ""
    quiz = ET.parse(tmp_path / "plain.xml").getroot()
    assert [q.findtext("idnumber") for q in quiz.iter("question") if q.findtext("idnumber")] == [
        "plain/one"
    ]


def test_csv_of_a_topic_starts_with_a_byte_order_mark(run, content, tmp_path):
    result = run("export", "--format", "csv", "--topic", "routing", "-o", "r.csv")
    assert result.exit_code == 0, result.output
    data = (tmp_path / "r.csv").read_bytes()
    assert data.startswith(b"\xef\xbb\xbfid,question,choice_a")
    assert data.count(b"tricky/") == 2


def test_json_stays_the_default(run, content):
    result = run("export")
    assert result.exit_code == 0 and json.loads(result.stdout)["format"] == "studyhall.content/1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "xls"], "Unknown export format 'xls'; choose one of json, gift, moodle-xml, csv, apkg."),
        (["--format", "gift", "--set", "nope"], "Nothing exported: no question set has the slug 'nope'"),
        (["--format", "csv", "--topic", "[red]x"], "Nothing exported: no topic has the slug '[red]x'"),
    ],
)  # fmt: skip
def test_bad_choices_exit_2_with_a_message_and_write_nothing(run, content, tmp_path, args, message):
    result = run("export", *args, "-o", "out.txt")
    assert result.exit_code == 2
    assert message in said(result)
    assert not (tmp_path / "out.txt").exists()


def test_content_the_format_cannot_hold_exits_1(run, content):
    nine = {
        **DOCUMENT,
        "questions": [
            {
                "id": "plain/wide",
                "set": "plain",
                "stem": "Nine?",
                "choices": [{"text": str(n), "correct": n == 0} for n in range(9)],
            }
        ],
    }
    import_file(content, json.dumps(nine).encode(), "nine.json", 0.99)
    result = run("export", "--format", "csv")
    assert result.exit_code == 1
    assert "question plain/wide has 9 choices; CSV holds at most 8" in said(result)
    assert run("export", "--format", "gift").exit_code == 0


def test_an_anki_deck_of_a_topic_to_a_file(run, content, tmp_path):
    result = run("export", "--format", "apkg", "--topic", "routing", "-o", "routing.apkg")
    assert result.exit_code == 0, result.output
    assert "Wrote routing.apkg" in said(result) and result.stdout == ""
    deck = read_apkg((tmp_path / "routing.apkg").read_bytes())
    assert sorted(n.fields["Id"] for n in deck.notes) == ["tricky/escapes", "tricky/multi"]


def test_an_anki_deck_is_never_written_to_standard_output(run, content):
    result = run("export", "--format", "apkg")
    assert result.exit_code == 2 and result.stdout == ""
    assert "An Anki deck is a binary file: name the file to write with -o FILE." in said(result)


def test_an_empty_anki_deck_is_refused(run, content, tmp_path):
    result = run("export", "-f", "apkg", "--set", "plain", "--topic", "net", "-o", "none.apkg")
    assert result.exit_code == 1
    assert "the selection holds no questions" in said(result)
    assert not (tmp_path / "none.apkg").exists()
