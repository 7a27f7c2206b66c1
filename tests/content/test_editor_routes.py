"""The question editor in the browser: who may open it, saving, refusals, the lock, history."""

import pytest
from sqlalchemy import select

from app.content.models import Choice, Question, QuestionRevision
from app.db import Database
from tests.factories import a_question, a_set, editor_form, load, question_id


@pytest.fixture
def qid(db: Database) -> int:
    load(db, a_set(a_question("1")))
    return question_id(db, "1", "basics")


def _form(client, qid: int) -> dict[str, str | list[str]]:
    return editor_form(client, f"/author/questions/{qid}/edit")


def _numbers(db: Database, qid: int) -> list[tuple[int, str]]:
    with db.session_scope() as session:
        return [
            tuple(r)  # type: ignore[misc]
            for r in session.execute(
                select(QuestionRevision.number, QuestionRevision.note)
                .where(QuestionRevision.question_id == qid)
                .order_by(QuestionRevision.number)
            )
        ]


def test_a_guest_is_sent_to_log_in(client, qid):
    response = client.get(f"/author/questions/{qid}/edit", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login")


@pytest.mark.parametrize(
    "path",
    ["/author/questions/{qid}/edit", "/author/questions/{qid}/history"],
)
def test_a_learner_never_sees_an_editor_or_a_history(user_client, qid, path):
    learner = user_client("lee")
    response = learner.get(path.format(qid=qid))
    assert response.status_code == 403
    assert "Choice 1" not in response.text


def test_a_learner_cannot_save_or_restore(user_client, db, qid):
    learner = user_client("lee")
    saved = learner.post(f"/author/questions/{qid}/edit", data={"stem": "Mine now?", "note": "x"})
    restored = learner.post(f"/author/questions/{qid}/history/1/restore", data={"opened": "1"})
    assert (saved.status_code, restored.status_code) == (403, 403)
    assert _numbers(db, qid) == [(1, "Imported from bundle.txt")]


def test_a_missing_question_is_404(user_client):
    author = user_client("ann", role="author")
    assert author.get("/author/questions/999999/edit").status_code == 404
    assert author.get("/author/questions/0/edit").status_code == 404
    assert author.get("/author/questions/abc/history").status_code == 404


def test_an_author_fixes_the_explanation_and_a_revision_is_kept(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author, qid)
    assert form["opened"] == "1" and form["right"] == ["1"]
    form |= {"explanation": "Because choice one is **right**.", "note": "Clearer explanation"}
    response = author.post(f"/author/questions/{qid}/edit", data=form, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].endswith("?done=question-saved")
    assert _numbers(db, qid)[-1] == (2, "Clearer explanation")
    with db.session_scope() as session:
        assert session.get_one(Question, qid).explanation_md == "Because choice one is **right**."
    page = author.get(f"/questions/{qid}")
    assert f'href="/author/questions/{qid}/edit"' in page.text


def test_a_save_that_changes_nothing_keeps_no_revision(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author, qid) | {"note": "Looked again"}
    response = author.post(f"/author/questions/{qid}/edit", data=form, follow_redirects=False)
    assert response.headers["location"].endswith("?done=question-unchanged")
    assert len(_numbers(db, qid)) == 1


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"note": ""}, "note", "the note is required"),
        ({"note": "n" * 201}, "note", "at most 200"),
        ({"stem": "  "}, "stem", "has no text"),
        ({"right": []}, "choices", "has no correct choice"),
        ({"right": ["1", "2"]}, "choices", "takes one answer but marks 2 choices correct"),
        ({"choice-2-text": "", "choice-3-text": ""}, "choices", "needs at least 2 choices"),
        ({"choice-2-text": "Bad\u202eword"}, "choice-2", "invisible character U+202E"),
        ({"reference-1-url": "ftp://example.com/x"}, "reference-1", "must be an absolute address"),
        ({"stem": "x" * 20_001}, "stem", "at most 20000 fit"),
        ({"difficulty": "brutal"}, "difficulty", "difficulty must be one of"),
        ({"versions": "TensorRT"}, "versions", "must name a product and a version"),
        ({"topic": "nowhere"}, "topic", "There is no topic 'nowhere'"),
        ({"opened": "x"}, "opened", "did not say which revision"),
    ],
)
def test_a_refused_save_names_each_problem_beside_its_field_and_keeps_the_text(
    user_client, db, qid, change, field, message
):
    author = user_client("ann", role="author")
    form = _form(author, qid) | {"note": "Try", "explanation": "My careful words."} | change
    response = author.post(f"/author/questions/{qid}/edit", data=form)
    assert response.status_code == 422
    assert f'id="{field}-error"' in response.text
    assert message in response.text.replace("&#39;", "'")
    assert "My careful words." in response.text
    assert len(_numbers(db, qid)) == 1


def test_choices_are_added_moved_removed_and_marked_without_javascript(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author, qid) | {"note": "Reorder"}
    added = author.post(f"/author/questions/{qid}/edit", data=form | {"action": "add-choice"})
    assert added.status_code == 200 and 'name="choice-4-text"' in added.text
    form |= {"choices": "4", "choice-4-text": "Choice 4", "choice-4-feedback": "Close, but no."}
    moved = author.post(f"/author/questions/{qid}/edit", data=form | {"action": "up-4"})
    assert moved.text.index("Choice 4</textarea>") < moved.text.index("Choice 3</textarea>")
    form |= {"choice-1-text": "", "choice-1-feedback": ""}  # emptied: dropped
    form |= {"right": ["2", "4"], "kind": "multi"}
    response = author.post(f"/author/questions/{qid}/edit", data=form, follow_redirects=False)
    assert response.status_code == 303
    with db.session_scope() as session:
        rows = session.execute(
            select(Choice.text_md, Choice.is_correct, Choice.feedback_md)
            .where(Choice.question_id == qid)
            .order_by(Choice.position)
        ).all()
        assert session.get_one(Question, qid).kind == "multi"
    assert [tuple(r) for r in rows] == [
        ("Choice 2", True, ""),
        ("Choice 3", False, ""),
        ("Choice 4", True, "Close, but no."),
    ]


def test_a_preview_renders_the_draft_and_saves_nothing(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author, qid) | {
        "stem": "Is **this** <script>x</script> safe?",
        "action": "preview",
    }
    page = author.post(f"/author/questions/{qid}/edit", data=form)
    assert page.status_code == 200
    assert "<strong>this</strong>" in page.text and "<script>x" not in page.text
    fragment = author.post(
        f"/author/questions/{qid}/edit", data=form, headers={"HX-Request": "true"}
    )
    assert fragment.text.lstrip().startswith('<section id="preview"')
    assert len(_numbers(db, qid)) == 1


def test_a_save_after_someone_else_saved_is_refused_with_the_changes(user_client, db, qid):
    ann, bob = user_client("ann", role="author"), user_client("bob", role="admin")
    ann_form, bob_form = _form(ann, qid), _form(bob, qid)
    bob_form |= {"stem": "Bob's stem?", "note": "Bob's fix"}
    assert bob.post(f"/author/questions/{qid}/edit", data=bob_form).status_code == 200
    ann_form |= {"explanation": "Ann's explanation.", "note": "Ann's fix"}
    response = ann.post(f"/author/questions/{qid}/edit", data=ann_form)
    assert response.status_code == 409
    assert "Someone saved this question since you opened it" in response.text
    assert "Stem: Bob&#39;s stem?" in response.text and "Stem: Question 1?" in response.text
    assert "Ann&#39;s explanation." in response.text  # nothing of hers is lost
    assert 'name="opened" value="2"' in response.text
    assert [n for n, _ in _numbers(db, qid)] == [1, 2]


def test_history_compares_revisions_and_restores_an_old_one(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author, qid) | {"explanation": "Second words.", "note": "Second"}
    author.post(f"/author/questions/{qid}/edit", data=form)
    page = author.get(f"/author/questions/{qid}/history")
    assert page.status_code == 200
    assert "Explanation: Second words." in page.text and "Explanation: Why 1." in page.text
    assert author.get(f"/author/questions/{qid}/history?old=9&new=1").status_code == 404
    stale = author.post(f"/author/questions/{qid}/history/1/restore", data={"opened": "1"})
    assert stale.status_code == 409
    response = author.post(
        f"/author/questions/{qid}/history/1/restore", data={"opened": "2"}, follow_redirects=False
    )
    assert response.status_code == 303
    assert _numbers(db, qid)[-1] == (3, "Restored revision 1")
    with db.session_scope() as session:
        assert session.get_one(Question, qid).explanation_md == "Why 1."
    missing = author.post(f"/author/questions/{qid}/history/7/restore", data={"opened": "3"})
    assert missing.status_code == 404


def test_an_import_in_the_browser_keeps_a_revision_saved_by_the_author(user_client, db):
    from tests.factories import SEED_DIR, SEED_SET

    author = user_client("ann", role="author")
    data = (SEED_DIR / "000_21c8a85df645b7bb.txt").read_bytes()
    response = author.post("/author/import", files={"document": ("bank.txt", data, "text/plain")})
    assert response.status_code == 200
    history = author.get(f"/author/questions/{question_id(db, '1', SEED_SET)}/history")
    assert "Imported from bank.txt" in history.text and "· ann ·" in history.text


def test_an_author_adds_a_question_to_a_set(user_client, db, qid):
    author = user_client("ann", role="author")
    page = author.get("/author/questions/new?set=basics")
    assert page.status_code == 200 and 'name="choice-4-text"' in page.text
    form = {
        "opened": "0",
        "choices": "4",
        "references": "1",
        "stem": "Which is new?",
        "choice-1-text": "This one",
        "choice-2-text": "That one",
        "right": "1",
        "kind": "single",
        "note": "",
    }
    refused = author.post("/author/questions/new?set=basics", data=form)
    assert refused.status_code == 422 and 'id="note-error"' in refused.text
    assert "Which is new?" in refused.text
    response = author.post(
        "/author/questions/new?set=basics",
        data=form | {"note": "A new question"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    new_id = question_id(db, "2", "basics")
    assert response.headers["location"] == f"/author/questions/{new_id}/edit?done=question-added"
    assert _numbers(db, new_id) == [(1, "A new question")]
    listing = author.get("/sets/basics").text
    assert "Which is new?" in listing and 'href="/author/questions/new?set=basics"' in listing
    assert author.get("/author/questions/new?set=nowhere").status_code == 422
    assert author.get("/author/questions/new?set=Bad!").status_code == 422
    assert author.get("/author/questions/new").status_code == 422
    assert user_client("lee").get("/author/questions/new?set=basics").status_code == 403


def test_a_choice_kept_in_place_and_its_feedback_reach_the_learner(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author, qid) | {
        "note": "Feedback",
        "fixed": ["3"],
        "choice-1-feedback": "Yes: the *first* one.",
    }
    assert author.post(f"/author/questions/{qid}/edit", data=form).status_code == 200
    with db.session_scope() as session:
        rows = session.execute(
            select(Choice.keeps_place).where(Choice.question_id == qid).order_by(Choice.position)
        ).scalars()
        assert list(rows) == [False, False, True]
    assert (
        'id="fixed-3" name="fixed" value="3" checked'
        in author.get(f"/author/questions/{qid}/edit").text
    )
    learner = user_client("lee")
    right = learner.post(f"/questions/{qid}", data={"choice": _choice_id(db, qid, 1)})
    assert "Yes: the <em>first</em> one." in right.text
    with db.session_scope() as session:
        from app.content.queries import question

        view = question(session, qid)
    assert [c.fixed for c in view.choices] == [False, False, True]


def _choice_id(db: Database, qid: int, position: int) -> str:
    with db.session_scope() as session:
        return str(
            session.scalar(
                select(Choice.id).where(Choice.question_id == qid, Choice.position == position)
            )
        )
