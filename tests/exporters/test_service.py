"""Choosing what to export: sets, topics, formats, file names, and the queries it takes."""

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event, select

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content.models import Question
from app.db import Database
from app.exporters.errors import UnknownFormat, UnknownSelection
from app.exporters.selection import read_questions
from app.exporters.service import FORMATS, export_file, export_for, file_name
from tests.exporters.conftest import read_apkg
from tests.factories import import_long_set


def _ids(db: Database, sets: list[str] | None = None, topic: str | None = None) -> list[str]:
    with db.session_scope() as session:
        return [q.id for q in read_questions(session, sets, topic)]


def test_all_questions_in_set_order(planted):
    assert _ids(planted) == [
        "plain/one",
        "tricky/escapes",
        "tricky/multi",
        "tricky/code",
        "tricky/formulas",
    ]


def test_a_set_or_several(planted):
    assert _ids(planted, ["plain"]) == ["plain/one"]
    assert len(_ids(planted, ["plain", "tricky"])) == 5


def test_a_topic_takes_its_subtopics(planted):
    assert _ids(planted, topic="routing") == ["tricky/escapes", "tricky/multi"]
    assert len(_ids(planted, topic="net")) == 4
    assert _ids(planted, ["plain"], "net") == []


@pytest.mark.parametrize(
    ("sets", "topic", "message"),
    [
        (["nope"], None, "no question set has the slug 'nope'"),
        (["plain", "nope"], None, "no question set has the slug 'nope'"),
        (None, "nope", "no topic has the slug 'nope'"),
    ],
)
def test_an_unknown_set_or_topic_is_named(planted, sets, topic, message):
    with pytest.raises(UnknownSelection, match=message), planted.session_scope() as session:
        read_questions(session, sets, topic)


def test_an_unknown_format_lists_the_known_ones(planted):
    with pytest.raises(UnknownFormat, match="choose one of json, gift, moodle-xml, csv, apkg"):
        with planted.session_scope() as session:
            export_file(session, "xls")


def test_json_keeps_the_chosen_questions_only(planted):
    with planted.session_scope() as session:
        whole = json.loads(export_file(session, "json").text)
        chosen = json.loads(export_file(session, "json", ["plain"]).text)
    assert [q["id"] for q in chosen["questions"]] == ["plain/one"]
    assert {k: v for k, v in chosen.items() if k != "questions"} == {
        k: v for k, v in whole.items() if k != "questions"
    }


def test_file_names_say_what_the_file_holds(planted):
    assert file_name("gift", None, None) == "studyhall-questions.gift"
    assert file_name("csv", ["a", "b"], "t") == "studyhall-questions-a-b-t.csv"
    assert file_name("xml", ['x"; y'], None) == "studyhall-questions-x---y.xml"
    with planted.session_scope() as session:
        exported = export_file(session, "moodle-xml", topic="routing")
    assert exported.filename == "studyhall-questions-routing.xml"
    assert exported.media_type == FORMATS["moodle-xml"].media_type == "application/xml"


def test_only_authors_may_export(planted):
    with planted.session_scope() as session:
        with pytest.raises(PermissionDenied):
            export_for(session, Viewer(1, "reader", "learner"), "gift", [], None)
        assert export_for(session, Viewer(2, "writer", "author"), "gift", [], None).text


@contextmanager
def _statements(db: Database) -> Iterator[list[str]]:
    statements: list[str] = []

    def record(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        if not statement.startswith(("BEGIN", "PRAGMA", "ROLLBACK", "COMMIT", "SAVEPOINT")):
            statements.append(statement)

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(db.engine, "before_cursor_execute", record)


@pytest.mark.parametrize("format", ["gift", "moodle-xml", "csv"])
def test_a_larger_bank_takes_no_more_queries(planted, format):
    def count() -> tuple[int, int]:
        with _statements(planted) as statements, planted.session_scope() as session:
            exported = export_file(session, format)
        return len(statements), len(exported.text)

    small, small_size = count()
    import_long_set(planted, "bulk", 120)
    large, large_size = count()
    assert large_size > small_size * 5  # 125 questions against 5
    assert large == small <= 4


def test_an_anki_deck_of_a_larger_bank_takes_no_more_queries(planted):
    def count() -> tuple[int, int]:
        with _statements(planted) as statements, planted.session_scope() as session:
            exported = export_file(session, "apkg")
        return len(statements), len(read_apkg(exported.data).notes)

    small, notes = count()
    import_long_set(planted, "bulk", 120)
    large, more = count()
    assert (notes, more) == (5, 125)
    assert large == small <= 4


def test_a_question_without_a_topic_is_under_its_set_s(planted):
    with planted.session_scope(write=True) as session:
        question = session.scalars(select(Question).where(Question.key == "one")).one()
        question.topic_id = None
    assert _ids(planted, topic="other") == ["plain/one"]
    assert _ids(planted, topic="net") == [
        "tricky/escapes",
        "tricky/multi",
        "tricky/code",
        "tricky/formulas",
    ]
