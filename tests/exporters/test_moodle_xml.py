"""Moodle XML export: well-formed, shaped as Moodle's documented question format, and read
back by the Moodle XML importer."""

import xml.etree.ElementTree as ET

from app.db import Database
from app.exporters.moodle_xml import IDNUMBER_MAX, idnumber, write_moodle_xml
from app.exporters.selection import ExportedChoice, ExportedQuestion, read_questions
from tests.exporters.conftest import CODE, QUESTIONS, SPECIALS, exported_question
from tests.factories import import_file


def _quiz(planted) -> ET.Element:  # type: ignore[no-untyped-def]
    with planted.session_scope() as session:
        text = write_moodle_xml(read_questions(session))
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<quiz>')
    return ET.fromstring(text.encode())


def _text(element: ET.Element, path: str) -> str:
    found = element.find(path)
    assert found is not None, path
    return found.text or ""


def test_the_quiz_holds_categories_and_multichoice_questions(planted):
    quiz = _quiz(planted)
    assert quiz.tag == "quiz"
    kinds = [
        (q.get("type"), _text(q, "category/text") if q.get("type") == "category" else "")
        for q in quiz
    ]
    assert [k for k in kinds if k[0] == "category"] == [
        ("category", "$course$/top/Other"),
        ("category", "$course$/top/Net//Ops/Routing: {basics}"),
        ("category", "$course$/top/Net//Ops"),
    ]
    assert [k[0] for k in kinds].count("multichoice") == len(QUESTIONS)


def test_each_question_has_moodle_s_elements(planted):
    questions = {_text(q, "idnumber"): q for q in _quiz(planted) if q.get("type") == "multichoice"}
    assert set(questions) == {q["id"] for q in QUESTIONS}
    for element in questions.values():
        for tag in ("name", "questiontext", "generalfeedback", "correctfeedback"):
            assert element.find(f"{tag}/text") is not None, tag
        assert element.find("questiontext").get("format") == "markdown"  # type: ignore[union-attr]
        assert _text(element, "shuffleanswers") == "true"
        assert _text(element, "defaultgrade") == "1"
        assert all(a.get("format") == "markdown" for a in element.iter("answer"))
    escapes = questions["tricky/escapes"]
    assert _text(escapes, "name/text") == "tricky/escapes"
    assert _text(escapes, "questiontext/text") == QUESTIONS[0]["stem"]
    assert _text(escapes, "generalfeedback/text") == QUESTIONS[0]["explanation"]
    assert [_text(a, "text") for a in escapes.iter("answer")] == [
        c["text"] for c in QUESTIONS[0]["choices"]
    ]
    assert [_text(a, "feedback/text") for a in escapes.iter("answer")] == [
        c.get("feedback", "") for c in QUESTIONS[0]["choices"]
    ]
    assert {feedback.get("format") for feedback in escapes.iter("feedback")} == {"markdown"}


def _read(db: Database) -> list[ExportedQuestion]:
    with db.session_scope() as session:
        return read_questions(session)


def _comparable(questions: list[ExportedQuestion]) -> list[tuple[object, ...]]:
    """What a round trip keeps: text, choices with their feedback, right answers, explanation,
    topic path, and one answer or several."""
    return sorted(
        (q.stem, q.choices, q.explanation, q.topic_path, q.kind == "multi") for q in questions
    )


def test_planted_bank_round_trips_with_choice_feedback(planted, other_db):
    text = write_moodle_xml(_read(planted)).encode()
    report = import_file(other_db, text, "bank.xml", 0.99)
    assert report.warnings == [] and report.counts["questions_created"] == len(QUESTIONS)
    assert _comparable(_read(other_db)) == _comparable(_read(planted))
    feedback = {c.feedback for q in _read(other_db) for c in q.choices}
    assert feedback == {"", SPECIALS, "####not general\n\n#", "ends in \\", CODE}
    again = import_file(other_db, text, "bank.xml", 0.99)
    assert again.counts.get("questions_unchanged") == len(QUESTIONS)


def test_fractions_sum_to_100_for_the_right_answers(planted):
    questions = {_text(q, "idnumber"): q for q in _quiz(planted) if q.get("type") == "multichoice"}
    single = questions["tricky/escapes"]
    assert _text(single, "single") == "true"
    assert [a.get("fraction") for a in single.iter("answer")] == ["100", "0", "0", "0"]
    multi = questions["tricky/multi"]
    assert _text(multi, "single") == "false"
    fractions = [float(a.get("fraction") or "") for a in multi.iter("answer")]
    assert fractions == [33.33333, 33.33333, 33.33333, -50.0, -50.0]
    assert abs(sum(f for f in fractions if f > 0) - 100) < 0.001
    assert sum(f for f in fractions if f < 0) == -100


def test_markup_and_control_characters_stay_text():
    stem = "<b>x</b> & ]]> \x01 <![CDATA[ y"
    choices = (ExportedChoice("a < b", True), ExportedChoice("c & d", False))
    text = write_moodle_xml([exported_question(stem=stem, choices=choices)])
    question = ET.fromstring(text.encode()).findall("question")[1]
    assert _text(question, "questiontext/text") == "<b>x</b> & ]]> \ufffd <![CDATA[ y"
    assert "<b>" not in text


def test_a_long_id_is_cut_with_a_digest():
    long = "s" * 120 + "/" + "k" * 60
    assert len(idnumber(long)) == IDNUMBER_MAX and idnumber(long) != idnumber(long + "x")
    assert idnumber("set/1") == "set/1"
