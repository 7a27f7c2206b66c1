"""The editor's service: saves keep revisions, refusals write nothing, the lock holds in a race."""

import threading

import pytest
from sqlalchemy import text

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content import editor, revisions
from app.content.bundle import ChoiceData
from app.content.editor import Draft, DraftRefused, EditConflict
from app.content.models import Question
from app.db import Database
from tests.factories import a_question, a_set, load, question_id

AUTHOR = Viewer(id=1, username="ann", role="author")


@pytest.fixture
def qid(db: Database, make_user) -> int:
    make_user("ann", role="author")
    load(db, a_set(a_question("1")))
    return question_id(db, "1", "basics")


def _draft(db: Database, qid: int) -> Draft:
    with db.session_scope() as session:
        return editor.open_question(session, AUTHOR, qid).draft


def _save(db: Database, qid: int, draft: Draft, opened: int, note: str = "Fix") -> int:
    with db.session_scope(write=True) as session:
        return editor.save_question(session, AUTHOR, qid, draft, opened, note)


def test_opening_shows_the_newest_revision_and_the_findings(db, qid):
    with db.session_scope() as session:
        editing = editor.open_question(session, AUTHOR, qid)
    assert (editing.number, editing.draft.stem, editing.set_slug) == (1, "Question 1?", "basics")
    assert "no-reference" in {finding.kind for finding in editing.findings}


def test_a_learner_may_not_open_or_save(db, qid):
    learner = Viewer(id=1, username="lee", role="learner")
    with db.session_scope() as session, pytest.raises(PermissionDenied):
        editor.open_question(session, learner, qid)
    with db.session_scope(write=True) as session, pytest.raises(PermissionDenied):
        editor.save_question(session, learner, qid, Draft(), 1, "x")


def test_a_save_keeps_a_revision_with_who_and_why_and_bumps_the_learners_revision(db, qid):
    draft = _draft(db, qid)
    draft.choices.append(ChoiceData("Choice 4", False, "No: it is the fourth."))
    assert _save(db, qid, draft, 1, "Another distractor") == 2
    with db.session_scope() as session:
        (newest, *_) = revisions.history(session, qid)
        assert (newest.number, newest.author, newest.note) == (2, "ann", "Another distractor")
        assert session.get_one(Question, qid).revision == 2  # answers record the change
        kept = revisions.content_of(session, qid, 2)
    assert kept is not None and kept["choices"][-1]["feedback"] == "No: it is the fourth."


def test_a_refused_draft_writes_nothing_and_names_every_problem(db, qid):
    draft = _draft(db, qid)
    draft.stem, draft.choices[0].correct, draft.level = "", False, "guess"
    with pytest.raises(DraftRefused) as refused:
        _save(db, qid, draft, 1, "")
    assert [p.field for p in refused.value.problems] == ["note", "stem", "choices", "level"]
    with db.session_scope() as session:
        assert [r.number for r in revisions.history(session, qid)] == [1]


def test_the_import_and_the_editor_refuse_by_the_same_rules(db, qid):
    from app.content.checks import question_problems

    draft = _draft(db, qid)
    draft.choices[1].correct = True  # two right in a single-answer question
    data = draft.question("1", "", [])
    with pytest.raises(DraftRefused) as refused:
        _save(db, qid, draft, 1)
    assert refused.value.problems == question_problems(data)


def test_a_stale_save_is_refused_with_the_changes_since(db, qid):
    first = _draft(db, qid)
    first.explanation = "Newer words."
    _save(db, qid, first, 1)
    with pytest.raises(EditConflict) as conflict:
        _save(db, qid, _draft(db, qid), 1)
    assert (conflict.value.opened, conflict.value.latest) == (1, 2)
    assert ("added", "Explanation: Newer words.") in [
        (line.change, line.text) for line in conflict.value.changes
    ]


def test_two_saves_racing_from_one_revision_keep_one_and_refuse_the_other(db, qid):
    """The first save holds its transaction open while the second starts from the same
    revision: the second waits for it, then is refused (never a second revision 2)."""
    holding, outcome = threading.Event(), {}
    first, second = _draft(db, qid), _draft(db, qid)
    first.explanation, second.explanation = "First words.", "Second words."

    def save_first() -> None:
        with db.session_scope(write=True) as session:
            outcome["first"] = editor.save_question(session, AUTHOR, qid, first, 1, "First")
            holding.set()
            release.wait(10)

    def save_second() -> None:
        holding.wait(10)
        started.set()
        try:
            outcome["second"] = _save(db, qid, second, 1, "Second")
        except EditConflict as exc:
            outcome["second"] = exc

    release, started = threading.Event(), threading.Event()
    threads = [threading.Thread(target=save_first), threading.Thread(target=save_second)]
    for thread in threads:
        thread.start()
    started.wait(10)
    _until_a_save_waits(db)
    release.set()
    for thread in threads:
        thread.join(20)
    assert outcome["first"] == 2
    assert isinstance(outcome["second"], EditConflict)
    with db.session_scope() as session:
        assert [r.note for r in revisions.history(session, qid)] == [
            "First",
            "Imported from bundle.txt",
        ]
        assert session.get_one(Question, qid).explanation_md == "First words."


def _until_a_save_waits(db: Database) -> None:
    """On PostgreSQL, wait until the second save waits for the first one's lock (on SQLite it
    waits to begin: writes take turns there)."""
    if db.engine.dialect.name != "postgresql":
        return
    waiting = text(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND datname = current_database()"
    )
    for _ in range(200):
        with db.engine.connect() as conn:
            if conn.execute(waiting).scalar():
                return
        threading.Event().wait(0.05)
    raise AssertionError("the second save never waited for the first")


def test_restoring_saves_the_old_content_as_a_new_revision(db, qid):
    draft = _draft(db, qid)
    draft.stem = "Changed?"
    _save(db, qid, draft, 1)
    with db.session_scope(write=True) as session:
        assert editor.restore_revision(session, AUTHOR, qid, 1, 2, "") == 3
    with db.session_scope() as session:
        assert revisions.history(session, qid)[0].note == "Restored revision 1"
        assert session.get_one(Question, qid).stem_md == "Question 1?"
