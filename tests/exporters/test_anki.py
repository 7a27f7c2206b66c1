"""Anki decks: one note a question, sanitised HTML fields, ids that stay from one export to
the next, and the whole shipped bank."""

import warnings

import pytest
from sqlalchemy import select

from app.content.models import Question
from app.db import Database
from app.exporters.anki import DECK, MODEL_ID, deck_id, write_apkg
from app.exporters.errors import NotExportable
from app.exporters.selection import ExportedChoice, ExportedReference, read_questions
from app.exporters.service import export_file
from tests.exporters.conftest import QUESTIONS, AnkiNote, exported_question, read_apkg
from tests.factories import SHIPPED_SEED_DIR, load_seed


def _export(db: Database, sets: list[str] | None = None, topic: str | None = None) -> bytes:
    with db.session_scope() as session:
        return export_file(session, "apkg", sets, topic).data


def _by_id(notes: list[AnkiNote]) -> dict[str, AnkiNote]:
    return {note.fields["Id"]: note for note in notes}


def test_the_deck_holds_one_note_and_one_card_a_question(planted):
    deck = read_apkg(_export(planted))
    assert "collection.anki2" in deck.names
    assert deck.decks == {deck_id(DECK): "Studyhall"}
    assert deck.models == {MODEL_ID: "Studyhall question"}
    assert len(deck.notes) == len(deck.cards) == len(QUESTIONS)
    assert {did for _, did in deck.cards} == {deck_id(DECK)}
    plain = _by_id(deck.notes)["plain/one"].fields
    assert plain["Question"].strip() == "<p>A plain question?</p>"
    assert plain["Choices"].splitlines() == [
        '<div class="choice"><span class="letter">A.</span>yes</div>',
        '<div class="choice"><span class="letter">B.</span>no</div>',
    ]
    assert "<strong>Right answer: A</strong>" in plain["Answer"] and "yes" in plain["Answer"]
    assert plain["Explanation"].strip() == "<p>Yes.</p>"
    assert plain["Topic"] == "Other"
    assert sorted(_by_id(deck.notes)["plain/one"].tags) == ["other", "plain", "studyhall"]


def test_several_right_answers_sources_and_code_reach_the_back(planted):
    notes = _by_id(read_apkg(_export(planted)).notes)
    multi = notes["tricky/multi"].fields
    assert "Right answers: A, B, C" in multi["Answer"] and "Choose every right" in multi["Choices"]
    code = notes["tricky/code"].fields
    assert code["Source"].startswith('<a href="https://example.org/doc"')
    assert ">The doc</a>" in code["Source"]
    assert "<pre" in code["Question"] and "<code>ctx-&gt;getTensorShape()</code>" in code["Answer"]
    assert notes["tricky/escapes"].fields["Topic"] == "Net/Ops › Routing: {basics}"


def test_a_set_or_a_topic_goes_into_the_same_deck(planted):
    routing = read_apkg(_export(planted, topic="routing"))
    assert sorted(_by_id(routing.notes)) == ["tricky/escapes", "tricky/multi"]
    plain = read_apkg(_export(planted, ["plain"]))
    assert [n.fields["Id"] for n in plain.notes] == ["plain/one"]
    assert routing.decks == plain.decks == {deck_id(DECK): "Studyhall"}


def test_a_second_export_keeps_every_guid_and_the_deck_and_model_ids(planted):
    first = read_apkg(_export(planted))
    with planted.session_scope(write=True) as session:
        question = session.scalars(select(Question).where(Question.key == "one")).one()
        question.stem_md = "A plain question, edited?"
    with planted.session_scope() as session:
        later = read_apkg(write_apkg(read_questions(session), now=4_000_000_000))
    assert [n.guid for n in later.notes] == [n.guid for n in first.notes]
    assert len({n.guid for n in first.notes}) == len(QUESTIONS)
    assert later.decks == first.decks and later.models == first.models
    assert "edited" in _by_id(later.notes)["plain/one"].fields["Question"]


def test_the_whole_shipped_bank_exports(db):
    load_seed(db, seed_dir=SHIPPED_SEED_DIR)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the deck's writer warns of HTML it finds broken
        deck = read_apkg(_export(db))
    assert len(deck.notes) == len(deck.cards) == 383
    assert len({n.guid for n in deck.notes}) == 383
    assert all(n.fields["Question"] and "Right answer" in n.fields["Answer"] for n in deck.notes)


def test_hostile_content_is_sanitised_in_the_deck():
    hostile = exported_question(
        stem='<script>alert(1)</script><img src=x onerror="alert(2)"> Which **one**?',
        choices=(
            ExportedChoice('<b onclick="steal()">bold</b>', True),
            ExportedChoice("<iframe src=https://evil.example></iframe>no", False),
        ),
        explanation="[click](javascript:alert(3)) <style>*{}</style>",
        references=(ExportedReference("javascript:alert(4)", "<em>x</em>"),),
        topic_path=("<i>Topic</i>",),
    )
    (note,) = read_apkg(write_apkg([hostile])).notes
    every = "\x1f".join(note.fields.values()).lower()
    for tag in ("<script", "<img", "<b ", "<iframe", "<style", "<i>", 'href="javascript'):
        assert tag not in every  # what is left of them is text, escaped
    assert "&lt;script&gt;" in note.fields["Question"]
    assert "<strong>one</strong>" in note.fields["Question"]
    assert note.fields["Topic"] == "&lt;i&gt;Topic&lt;/i&gt;"


def test_an_empty_selection_is_refused_rather_than_an_empty_deck(planted):
    with pytest.raises(NotExportable, match="holds no questions"):
        _export(planted, ["plain"], "net")


def test_the_deck_id_comes_from_the_name_alone():
    assert deck_id("Studyhall") == deck_id("Studyhall") != deck_id("Studyhall::Mine")
    assert 1 << 30 <= deck_id("anything") < 1 << 31
