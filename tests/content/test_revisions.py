"""Revisions: every import that changes a question keeps one; one that changes nothing none."""

from sqlalchemy import select

from app.content import revisions
from app.content.bundle import ChoiceData, Placement, ReferenceData, TopicData
from app.content.models import QuestionRevision
from app.db import Database
from app.migrate import upgrade
from tests.factories import SEED_DIR, a_question, a_set, import_file, load, question_id
from tests.test_migrations import _add_content

QA_SEED = SEED_DIR / "000_21c8a85df645b7bb.txt"


def _revisions(db: Database, qid: int) -> list[tuple[int, int | None, str]]:
    with db.session_scope() as session:
        rows = session.execute(
            select(QuestionRevision.number, QuestionRevision.author_id, QuestionRevision.note)
            .where(QuestionRevision.question_id == qid)
            .order_by(QuestionRevision.number)
        )
        return [tuple(row) for row in rows]


def test_an_import_keeps_a_revision_of_each_question_it_writes(db):
    import_file(db, QA_SEED.read_bytes(), "seed/000.txt")
    qid = question_id(db, "1")
    assert _revisions(db, qid) == [(1, None, "Imported from seed/000.txt")]
    with db.session_scope() as session:
        kept = revisions.content_of(session, qid, 1)
        assert kept == revisions.snapshots(session, [qid])[qid]
    assert kept is not None and kept["choices"][0]["feedback"] == ""


def test_a_reimport_that_changes_nothing_keeps_no_revision(db):
    import_file(db, QA_SEED.read_bytes(), "seed/000.txt")
    import_file(db, QA_SEED.read_bytes(), "seed/000-again.txt")
    assert _revisions(db, question_id(db, "1")) == [(1, None, "Imported from seed/000.txt")]


def test_an_edit_by_import_keeps_a_new_revision_of_the_edited_question_only(db):
    load(db, a_set(a_question("1"), a_question("2")))
    load(db, a_set(a_question("1", stem="Which one, now?"), a_question("2")))
    first, second = question_id(db, "1", "basics"), question_id(db, "2", "basics")
    assert [number for number, *_ in _revisions(db, first)] == [1, 2]
    assert [number for number, *_ in _revisions(db, second)] == [1]
    with db.session_scope() as session:
        old = revisions.content_of(session, first, 1)
        new = revisions.content_of(session, first, 2)
    assert old is not None and new is not None
    changes = [
        (line.change, line.text) for line in revisions.diff(old, new) if line.change != "same"
    ]
    assert changes == [("removed", "Stem: Question 1?"), ("added", "Stem: Which one, now?")]


def test_feedback_references_topic_and_scope_are_part_of_a_revision(db):
    load(db, a_set(a_question("1")))
    question = a_question("1", references=[ReferenceData("https://docs.example.com/a", "A")])
    question.choices[0] = ChoiceData("Choice 1", True, "Right: it is the first.")
    load(db, a_set(question))
    bundle = a_set(question)
    bundle.topics = [TopicData("engines", "Engines")]
    bundle.placements = [Placement("question", "basics/1", "engines", 1)]
    load(db, bundle)
    qid = question_id(db, "1", "basics")
    assert [number for number, *_ in _revisions(db, qid)] == [1, 2, 3]
    with db.session_scope() as session:
        content = revisions.content_of(session, qid, 3)
    assert content is not None
    assert content["topic"] == "engines"
    assert content["choices"][0]["feedback"] == "Right: it is the first."
    assert content["references"] == [
        {"url": "https://docs.example.com/a", "title": "A", "version": None}
    ]


def test_the_migration_keeps_each_existing_question_as_its_revision_1(empty_url):
    upgrade(empty_url, "0023")
    _add_content(empty_url, 1, "calibrator")
    upgrade(empty_url)
    db = Database(empty_url)
    try:
        assert _revisions(db, 1) == [(1, None, "As it stood before revisions were kept")]
        with db.session_scope() as session:
            assert revisions.content_of(session, 1, 1) == revisions.snapshots(session, [1])[1]
    finally:
        db.dispose()
