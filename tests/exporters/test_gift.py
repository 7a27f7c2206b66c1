"""GIFT export: escaping, weights, categories, and the GIFT importer reading it back."""

import pytest
from sqlalchemy import func, select

from app.content.models import Question, Topic
from app.db import Database
from app.exporters.gift import escape, write_gift
from app.exporters.selection import ExportedChoice, ExportedQuestion, read_questions
from app.importers.gift import parse
from tests.exporters.conftest import CODE, SPECIALS, exported_question
from tests.factories import SHIPPED_SEED_DIR, import_file, load_seed


def _read(db: Database) -> list[ExportedQuestion]:
    with db.session_scope() as session:
        return read_questions(session)


def _comparable(questions: list[ExportedQuestion]) -> list[tuple[object, ...]]:
    """What a GIFT round trip keeps: text, choices with their feedback, right answers,
    explanation, topic path."""
    return sorted(
        (q.stem, q.choices, q.explanation, q.topic_path, q.kind == "multi") for q in questions
    )


def test_every_special_character_is_escaped():
    assert escape("~=#{}:\\") == "\\~\\=\\#\\{\\}\\:\\\\"
    assert escape("line\nnext\r\n") == "line\\nnext\\n"
    assert escape("a \\n b") == "a \\\\n b"  # a backslash before n is text, not a line end


def test_one_right_answer_uses_equals_and_tildes():
    text = write_gift([exported_question()])
    block = text.split("\n\n")[2]
    assert block.splitlines()[0].startswith("::tricky/escapes::[markdown]Escapes\\: \\~ \\= \\#")
    assert [line[:2] for line in block.splitlines()[1:5]] == ["=[", "~[", "~[", "~["]
    assert block.splitlines()[5].startswith("####[markdown]Because \\~ \\= \\# \\{ \\} \\:")


def test_a_choice_s_feedback_follows_it_after_a_hash_escaped():
    block = write_gift([exported_question()]).split("\n\n")[2]
    choices = block.splitlines()[1:5]
    assert choices[0] == "=[markdown]a \\~ b#[markdown]" + escape(SPECIALS)
    assert "#" not in choices[1]
    assert choices[2].endswith("#[markdown]\\#\\#\\#\\#not general\\n\\n\\#")
    assert choices[3].endswith("value \\\\#[markdown]ends in \\\\")


def test_several_right_answers_share_100_and_wrong_ones_minus_100():
    choices = tuple(ExportedChoice(t, t in "abc") for t in "abcde")
    text = write_gift([exported_question(kind="multi", choices=choices, explanation="")])
    marks = [line.split("[markdown]")[0] for line in text.splitlines() if line.startswith("~")]
    assert marks == ["~%33.33333%", "~%33.33333%", "~%33.33333%", "~%-50%", "~%-50%"]
    assert "####" not in text


def test_a_multiple_response_question_with_one_right_answer_stays_one():
    choices = (ExportedChoice("a", True), ExportedChoice("b", False))
    text = write_gift([exported_question(kind="multi", choices=choices)])
    (question,) = parse(text, "x.gift")[0].question_sets[0].questions
    assert question.kind == "multi" and [c.correct for c in question.choices] == [True, False]


def test_category_is_the_topic_path_with_slashes_doubled():
    text = write_gift([exported_question()])
    assert "$CATEGORY: $course$/top/Net//Ops/Routing: {basics}\n" in text


@pytest.mark.parametrize(
    "stem",
    [SPECIALS, CODE, "[html]<b>not html</b>", "ends with a backslash \\", "a\n\n\n\nb", "x -> y"],
)
def test_planted_text_reads_back_unchanged(stem):
    choices = (ExportedChoice("a", True, stem), ExportedChoice(stem, False))
    question = exported_question(stem=stem, explanation=stem, choices=choices)
    bundle, report = parse(write_gift([question]), "x.gift")
    (read,) = bundle.question_sets[0].questions
    assert report.warnings == []
    assert (read.stem, read.explanation) == (stem, stem)
    assert [(c.text, c.correct, c.feedback) for c in read.choices] == [
        ("a", True, stem),
        (stem, False, ""),
    ]
    assert [t.title for t in bundle.topics] == ["Net/Ops", "Routing: {basics}"]


def test_planted_bank_round_trips_through_the_importer(planted, other_db):
    import_file(other_db, write_gift(_read(planted)).encode(), "bank.gift", 0.99)
    assert _comparable(_read(other_db)) == _comparable(_read(planted))
    feedback = {c.feedback for q in _read(other_db) for c in q.choices}
    assert feedback == {"", SPECIALS, "####not general\n\n#", "ends in \\", CODE}


def test_reimporting_the_file_matches_every_question(planted, other_db):
    text = write_gift(_read(planted)).encode()
    import_file(other_db, text, "bank.gift", 0.99)
    report = import_file(other_db, text, "bank.gift", 0.99)
    assert report.counts.get("questions_created", 0) == 0
    assert report.counts.get("questions_updated", 0) == 0
    with other_db.session_scope() as session:
        assert session.scalar(select(func.count(Question.id))) == 5


def test_the_shipped_bank_round_trips_through_the_gift_importer(db, other_db):
    load_seed(db, seed_dir=SHIPPED_SEED_DIR)
    original = _read(db)
    assert len(original) == 383
    report = import_file(other_db, write_gift(original).encode(), "bank.gift", 0.99)
    assert report.warnings == [] and report.counts["questions_created"] == 383
    assert _comparable(_read(other_db)) == _comparable(original)
    with db.session_scope() as session, other_db.session_scope() as copy:
        titles = set(session.scalars(select(Topic.title)))
        assert set(copy.scalars(select(Topic.title))) == titles


def test_a_question_without_a_topic_goes_under_its_set_s_title():
    text = write_gift([exported_question(topic=None, topic_path=())])
    assert "$CATEGORY: $course$/top/Tricky\n" in text
    bundle, _ = parse(text, "x.gift")
    assert [t.title for t in bundle.topics] == ["Tricky"]
