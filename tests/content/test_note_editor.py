"""The note editor: sections renamed, moved, added and removed keep their anchors and links;
refusals, the lock, history and restore; learners kept out; the JSON API."""

import json
from html import unescape

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.content.errata import ProblemReport
from app.content.markdown import split_sections
from app.content.models import Note, NoteRevision, NoteSection, QuestionNoteLink
from app.db import Database
from tests.accounts.test_token_scopes import _make_token, script  # noqa: F401
from tests.factories import (
    a_note,
    a_question,
    a_set,
    exported,
    import_file,
    load,
    question_id,
    tags,
)

NOTE = "Intro words.\n\n## Engines\n\nBuild an engine.\n\n## Precision\n\nUse FP16.\n"
EDIT = "/author/notes/guide/edit"


@pytest.fixture
def qid(db: Database) -> int:
    load(db, a_note(NOTE))
    load(db, a_set(a_question("1", notes=["guide#precision"])))
    return question_id(db, "1", "basics")


def _form(client: TestClient) -> dict[str, str]:
    """The editor's form as the browser sends it."""
    page = client.get(EDIT)
    assert page.status_code == 200
    fields = {
        str(t["name"]): t.get("value") or ""
        for t in tags(page.text, "input")
        if t.get("name") and t.get("type") != "submit"
    }
    html = page.text
    for name in ["intro"] + [f"section-{n}-body" for n in range(1, int(fields["sections"]) + 1)]:
        start = html.index(">", html.index(f'name="{name}"')) + 1
        fields[name] = unescape(html[start : html.index("</textarea>", start)])
    return fields


def _sections(db: Database) -> list[tuple[str, str]]:
    with db.session_scope() as session:
        rows = session.execute(
            select(NoteSection.anchor, NoteSection.heading).order_by(NoteSection.position)
        )
        return [(a, h) for a, h in rows]


def _revisions(db: Database) -> list[tuple[int, str]]:
    with db.session_scope() as session:
        rows = session.execute(
            select(NoteRevision.number, NoteRevision.note).order_by(NoteRevision.number)
        )
        return [(n, t) for n, t in rows]


def _linked_anchor(db: Database, qid: int) -> str:
    with db.session_scope() as session:
        return session.execute(
            select(NoteSection.anchor)
            .join(QuestionNoteLink, QuestionNoteLink.section_id == NoteSection.id)
            .where(QuestionNoteLink.question_id == qid)
        ).scalar_one()


def test_a_guest_logs_in_and_a_learner_is_refused_everywhere(client, user_client, db, qid):
    assert client.get(EDIT, follow_redirects=False).status_code == 303
    learner = user_client("lee")
    for path in (EDIT, "/author/notes/guide/history"):
        assert learner.get(path).status_code == 403
    posted = learner.post(EDIT, data={"opened": "1", "title": "Mine", "note": "x"})
    restored = learner.post("/author/notes/guide/history/1/restore", data={"opened": "1"})
    assert (posted.status_code, restored.status_code) == (403, 403)
    assert "Edit this note" not in learner.get("/notes/guide").text
    assert _revisions(db) == [(1, "Imported from bundle.txt")]


def test_a_missing_note_is_404(user_client, qid):
    author = user_client("ann", role="author")
    assert author.get("/author/notes/nothing/edit").status_code == 404
    assert author.get("/author/notes/nothing/history").status_code == 404


def test_renamed_and_moved_the_section_keeps_its_anchor_and_its_question(user_client, db, qid):
    author = user_client("ann", role="author")
    assert 'href="/author/notes/guide/edit">Edit this note' in author.get("/notes/guide").text
    form = _form(author)
    assert form["section-2-anchor"] == "precision" and form["opened"] == "1"
    moved = author.post(EDIT, data=form | {"action": "up-2"})
    assert moved.status_code == 200
    assert 'name="section-1-anchor" value="precision"' in moved.text  # in the form only
    assert _sections(db)[0] == ("engines", "Engines")
    form |= {
        "section-1-anchor": "precision",
        "section-1-heading": "Reduced precision",
        "section-1-body": "Use FP16 or INT8.",
        "section-2-anchor": "engines",
        "section-2-heading": "Engines",
        "section-2-body": "Build an engine.",
        "note": "Precision first",
    }
    saved = author.post(EDIT, data=form, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"].endswith("done=note-saved")
    assert _sections(db) == [("precision", "Reduced precision"), ("engines", "Engines")]
    assert _linked_anchor(db, qid) == "precision"
    page = author.get("/notes/guide").text
    assert 'id="precision"' in page and "Reduced precision" in page
    assert page.index('id="precision"') < page.index('id="engines"')
    assert "Use FP16 or INT8." in page and f"/questions/{qid}" in page
    question = author.get(f"/questions/{qid}").text
    assert "/notes/guide#precision" in question
    with db.session_scope() as session:
        body = session.scalars(select(Note.body_md)).one()
    assert "## Reduced precision {#precision}" in body
    assert [s.anchor for s in split_sections(body).sections] == ["precision", "engines"]
    assert _revisions(db)[-1] == (2, "Precision first")


def test_an_added_section_gets_a_unique_anchor_from_its_heading(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author)
    added = author.post(EDIT, data=form | {"action": "add-section"})
    assert 'name="section-3-heading"' in added.text
    form |= {"sections": "3", "section-3-heading": "Engines!", "section-3-body": "More."}
    response = author.post(EDIT, data=form | {"note": "More on engines"}, follow_redirects=False)
    assert response.status_code == 303
    assert _sections(db)[-1] == ("engines-2", "Engines!")


def test_removing_a_linked_section_is_refused_naming_the_questions(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author) | {"note": "Drop it"}
    refused = author.post(EDIT, data=form | {"action": "remove-2"})
    assert refused.status_code == 422
    assert "cannot be removed while questions link to it (Basics, question 1)" in unescape(
        refused.text
    )
    assert 'name="section-2-anchor" value="precision"' in refused.text  # still in the form
    # a form that leaves it out (no JavaScript, or a stale page) is refused on save
    dropped = form | {"sections": "1"}
    saved = author.post(EDIT, data=dropped)
    assert saved.status_code == 422 and "cannot be removed" in unescape(saved.text)
    removed = author.post(EDIT, data=form | {"action": "remove-1"})  # no question on it
    assert 'name="section-1-anchor" value="precision"' in removed.text
    unlinked = form | {
        "sections": "1",
        "section-1-anchor": "precision",
        "section-1-heading": "Precision",
        "section-1-body": "Use FP16.",
    }
    assert author.post(EDIT, data=unlinked, follow_redirects=False).status_code == 303
    assert _sections(db) == [("precision", "Precision")]
    assert _linked_anchor(db, qid) == "precision"


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"note": ""}, "note", "the note is required"),
        ({"section-1-heading": "  "}, "section-1-heading", "Section 1 needs a heading."),
        ({"section-2-heading": "engines"}, "section-2-heading", "Sections 1 and 2 are both headed"),
        ({"section-1-heading": "h" * 301}, "section-1-heading", "at most 300 fit"),
        ({"section-1-body": "x" * 20_001}, "section-1-body", "at most 20000 fit"),
        ({"section-1-body": "a\n\n## Sneaky"}, "section-1-body", "would start a section"),
        ({"section-1-body": "```\ncode"}, "section-1-body", "does not close"),
        ({"title": ""}, "title", "The note needs a title."),
        ({"section-1-anchor": "Not valid"}, "sections", "anchor is not valid"),
        ({"opened": "x"}, "opened", "did not say which revision"),
    ],
)
def test_a_refused_save_says_why_beside_the_field_and_saves_nothing(
    user_client, db, qid, change, field, message
):
    author = user_client("ann", role="author")
    form = _form(author) | {"note": "Try", "intro": "My careful words."} | change
    response = author.post(EDIT, data=form)
    assert response.status_code == 422
    assert f'id="{field}-error"' in response.text
    assert message in unescape(response.text)
    assert "My careful words." in response.text
    assert _revisions(db) == [(1, "Imported from bundle.txt")]
    assert _sections(db) == [("engines", "Engines"), ("precision", "Precision")]


def test_a_preview_renders_the_draft_and_saves_nothing(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author) | {"section-1-body": "Is **this** <script>x</script> safe?"}
    page = author.post(EDIT, data=form | {"action": "preview"})
    assert page.status_code == 200
    assert "<strong>this</strong>" in page.text and "<script>x" not in page.text
    fragment = author.post(EDIT, data=form | {"action": "preview"}, headers={"HX-Request": "true"})
    assert fragment.text.lstrip().startswith('<section id="preview"')
    assert _revisions(db) == [(1, "Imported from bundle.txt")]


def test_a_stale_save_is_refused_with_what_changed(user_client, db, qid):
    ann, bob = user_client("ann", role="author"), user_client("bob", role="admin")
    ann_form, bob_form = _form(ann), _form(bob)
    bob_form |= {"section-1-body": "Bob's engines.", "note": "Bob's fix"}
    assert bob.post(EDIT, data=bob_form).status_code == 200
    ann_form |= {"section-2-body": "Ann's precision.", "note": "Ann's fix"}
    response = ann.post(EDIT, data=ann_form)
    assert response.status_code == 409
    text = unescape(response.text)
    assert "Someone saved this note since you opened it" in text and "Bob's engines." in text
    assert "Ann's precision." in text and 'name="opened" value="2"' in text
    assert _revisions(db)[-1] == (2, "Bob's fix")


def test_an_unchanged_save_keeps_no_revision(user_client, db, qid):
    author = user_client("ann", role="author")
    response = author.post(EDIT, data=_form(author) | {"note": "Looked"}, follow_redirects=False)
    assert response.headers["location"].endswith("done=note-unchanged")
    assert len(_revisions(db)) == 1


def test_history_compares_and_restores_keeping_anchors(user_client, db, qid):
    author = user_client("ann", role="author")
    form = _form(author) | {"section-2-heading": "Lower precision", "note": "Rename"}
    assert author.post(EDIT, data=form, follow_redirects=False).status_code == 303
    history = author.get("/author/notes/guide/history")
    assert history.status_code == 200
    text = unescape(history.text)
    assert "Rename" in text and "ann" in text and "## Lower precision {#precision}" in text
    assert author.get("/author/notes/guide/history?old=9").status_code == 404
    restored = author.post(
        "/author/notes/guide/history/1/restore", data={"opened": "2"}, follow_redirects=False
    )
    assert restored.status_code == 303
    assert _sections(db) == [("engines", "Engines"), ("precision", "Precision")]
    assert _revisions(db)[-1] == (3, "Restored revision 1")
    assert _linked_anchor(db, qid) == "precision"
    stale = author.post("/author/notes/guide/history/2/restore", data={"opened": "2"})
    assert stale.status_code == 409


def test_an_author_token_reads_and_saves_a_note_with_the_lock(user_client, script, db, qid):  # noqa: F811
    api: TestClient = script(_make_token(user_client("ann", role="author"), "author"))
    found = api.get("/api/v1/author/notes/guide")
    assert found.status_code == 200
    body = found.json()
    assert body["revision"] == 1
    sections = body["content"]["sections"]
    assert [s["anchor"] for s in sections] == ["engines", "precision"]
    sections[1]["heading"] = "Quantised precision"
    content = body["content"] | {"sections": [sections[1], sections[0]]}
    saved = api.put(
        "/api/v1/author/notes/guide", json={"revision": 1, "note": "API", "content": content}
    )
    assert saved.status_code == 200 and saved.json()["revision"] == 2
    assert _sections(db) == [("precision", "Quantised precision"), ("engines", "Engines")]
    stale = api.put(
        "/api/v1/author/notes/guide", json={"revision": 1, "note": "x", "content": content}
    )
    assert stale.status_code == 409 and stale.json()["latest"] == 2
    content["sections"] = [sections[0]]  # drops the linked section
    refused = api.put(
        "/api/v1/author/notes/guide", json={"revision": 2, "note": "", "content": content}
    )
    assert refused.status_code == 422
    assert [p["field"] for p in refused.json()["problems"]] == ["note", "sections"]
    learner = script(_make_token(user_client("lee"), "practise"))
    assert learner.get("/api/v1/author/notes/guide").status_code == 403
    valid = {"revision": 2, "note": "Mine", "content": body["content"]}
    assert learner.put("/api/v1/author/notes/guide", json=valid).status_code == 403
    assert _revisions(db)[-1] == (2, "API")


def test_a_section_with_only_suggested_links_and_a_report_can_be_removed(user_client, db, qid):
    with db.session_scope(write=True) as session:
        engines = session.scalars(select(NoteSection).where(NoteSection.anchor == "engines")).one()
        session.add(QuestionNoteLink(question_id=qid, section_id=engines.id, origin="suggested"))
        session.add(ProblemReport(section_id=engines.id, kind="typo", text="Engin"))
    author = user_client("ann", role="author")
    form = _form(author) | {"note": "Engines moved to their own note"}
    removed = author.post(EDIT, data=form | {"action": "remove-1"})
    assert removed.status_code == 200
    form = {"opened": "1", "title": "Guide", "intro": "Intro words.", "sections": "1"}
    form |= {"section-1-anchor": "precision", "section-1-level": "2", "note": "Drop engines"}
    form |= {"section-1-heading": "Precision", "section-1-body": "Use FP16."}
    assert author.post(EDIT, data=form, follow_redirects=False).status_code == 303
    assert _sections(db) == [("precision", "Precision")]
    assert _linked_anchor(db, qid) == "precision"


def test_an_import_keeps_a_revision_when_it_changes_the_note(db, qid):
    load(db, a_note(NOTE))
    assert len(_revisions(db)) == 1
    load(db, a_note(NOTE.replace("FP16", "FP8")))
    assert _revisions(db) == [(1, "Imported from bundle.txt"), (2, "Imported from bundle.txt")]


def test_the_export_carries_kept_anchors_into_another_database(user_client, db, qid, other_db):
    author = user_client("ann", role="author")
    form = _form(author) | {"section-2-heading": "Lower precision", "note": "Rename"}
    assert author.post(EDIT, data=form, follow_redirects=False).status_code == 303
    document = exported(db)
    import_file(other_db, json.dumps(document).encode(), "export.json")
    assert exported(other_db)["notes"] == document["notes"]
    assert _sections(other_db) == [("engines", "Engines"), ("precision", "Lower precision")]
    assert _linked_anchor(other_db, question_id(other_db, "1", "basics")) == "precision"
