"""The question editor's links to note sections: search, add, remove, refusals, history."""

import pytest
from sqlalchemy import select

from app.content.models import LinkDecision, NoteSection, QuestionNoteLink, QuestionRevision
from app.db import Database
from tests.accounts.test_token_scopes import _make_token, script  # noqa: F401
from tests.factories import (
    a_note,
    a_question,
    a_set,
    count_queries,
    editor_form,
    load,
    question_id,
    tags,
)

NOTE = """## Calibration

INT8 calibration builds a table from a dataset.

## Structured sparsity

Sparsity halves the weights.

## Kernel <b>fusion</b> & "friends"

Layers join.
"""


@pytest.fixture
def qid(db: Database) -> int:
    load(db, a_note(NOTE))
    load(db, a_set(a_question("1", notes=["guide#calibration"])))
    return question_id(db, "1", "basics")


def _explicit(db: Database, qid: int) -> set[str]:
    with db.session_scope() as session:
        rows = session.execute(
            select(NoteSection.anchor)
            .join(QuestionNoteLink, QuestionNoteLink.section_id == NoteSection.id)
            .where(QuestionNoteLink.question_id == qid, QuestionNoteLink.origin == "explicit")
        )
        return set(rows.scalars())


def _revisions(db: Database, qid: int) -> int:
    with db.session_scope() as session:
        return len(
            session.scalars(
                select(QuestionRevision.id).where(QuestionRevision.question_id == qid)
            ).all()
        )


def _save(client, qid: int, **fields: str | list[str]):  # type: ignore[no-untyped-def]
    form = editor_form(client, f"/author/questions/{qid}/edit") | {"note": "Links"} | fields
    return client.post(f"/author/questions/{qid}/edit", data=form, follow_redirects=False)


def test_the_editor_lists_the_links_with_a_remove_box(user_client, qid):
    page = user_client("ann", role="author").get(f"/author/questions/{qid}/edit")
    assert 'href="/notes/guide#calibration">Guide — Calibration</a>' in page.text
    boxes = [t for t in tags(page.text, "input") if t.get("name") == "unlink"]
    assert [b["value"] for b in boxes] == ["1"]
    assert 'for="unlink-1">Remove' in page.text


def test_without_javascript_find_lists_sections_and_a_save_adds_the_chosen(user_client, db, qid):
    author = user_client("ann", role="author")
    form = editor_form(author, f"/author/questions/{qid}/edit")
    found = author.post(
        f"/author/questions/{qid}/edit", data=form | {"q": "SPARS", "action": "find-link"}
    )
    assert found.status_code == 200
    radios = [t["value"] for t in tags(found.text, "input") if t.get("name") == "section"]
    assert radios == ["guide#structured-sparsity"]
    assert _revisions(db, qid) == 1  # finding saves nothing
    saved = _save(author, qid, q="spars", section="guide#structured-sparsity")
    assert saved.status_code == 303
    assert _explicit(db, qid) == {"calibration", "structured-sparsity"}
    page = author.get(f"/questions/{qid}")
    assert "Guide — Structured sparsity" in page.text


def test_enter_in_the_search_box_searches_and_saves_nothing(user_client, db, qid):
    """Enter submits the form with its first button, Save: words typed in the search box
    name no section, so they are searched for and the rest of the form is kept as typed."""
    author = user_client("ann", role="author")
    response = _save(author, qid, q="spars", explanation="Edited, not saved yet.")
    assert response.status_code == 200
    radios = [t["value"] for t in tags(response.text, "input") if t.get("name") == "section"]
    assert radios == ["guide#structured-sparsity"]
    assert "Edited, not saved yet." in response.text
    assert _revisions(db, qid) == 1 and _explicit(db, qid) == {"calibration"}


def test_a_section_typed_as_note_and_anchor_is_added(user_client, db, qid):
    author = user_client("ann", role="author")
    assert _save(author, qid, q="guide#structured-sparsity").status_code == 303
    assert _explicit(db, qid) == {"calibration", "structured-sparsity"}


def test_add_puts_the_chosen_section_in_the_list_without_saving(user_client, db, qid):
    author = user_client("ann", role="author")
    form = editor_form(author, f"/author/questions/{qid}/edit")
    added = author.post(
        f"/author/questions/{qid}/edit",
        data=form | {"section": "guide#structured-sparsity", "action": "add-link"},
    )
    assert added.status_code == 200
    rows = {t["name"]: t["value"] for t in tags(added.text, "input") if t.get("type") == "hidden"}
    assert rows["link-2"] == "guide#structured-sparsity" and rows["links"] == "2"
    assert _revisions(db, qid) == 1 and _explicit(db, qid) == {"calibration"}


def test_an_unknown_section_is_refused_with_a_message_and_nothing_saved(user_client, db, qid):
    author = user_client("ann", role="author")
    response = _save(author, qid, q="guide#nowhere", explanation="Changed too.")
    assert response.status_code == 422
    assert "There is no note section “guide#nowhere”" in response.text
    field = next(t for t in tags(response.text, "input") if t.get("id") == "link")
    assert field["value"] == "guide#nowhere" and field.get("aria-invalid") == "true"
    assert _revisions(db, qid) == 1 and _explicit(db, qid) == {"calibration"}
    added = author.post(
        f"/author/questions/{qid}/edit",
        data=editor_form(author, f"/author/questions/{qid}/edit")
        | {"q": "calib", "action": "add-link"},
    )
    assert added.status_code == 200 and "There is no note section “calib”" in added.text


def test_removing_a_link_is_kept_in_history_and_a_restore_brings_it_back(user_client, db, qid):
    author = user_client("ann", role="author")
    assert _save(author, qid, unlink=["1"]).status_code == 303
    assert _explicit(db, qid) == set()
    history = author.get(f"/author/questions/{qid}/history")
    assert "Linked sections: guide#calibration" in history.text
    assert "Linked sections: (none)" in history.text
    restored = author.post(
        f"/author/questions/{qid}/history/1/restore", data={"opened": "2"}, follow_redirects=False
    )
    assert restored.status_code == 303
    assert _explicit(db, qid) == {"calibration"} and _revisions(db, qid) == 3


def _decisions(db: Database) -> list[str]:
    with db.session_scope() as session:
        return list(session.scalars(select(LinkDecision.decision)))


def test_removing_a_confirmed_link_rejects_it_and_adding_it_again_confirms_it(user_client, db, qid):
    author = user_client("ann", role="author")
    with db.session_scope(write=True) as session:
        section = session.scalars(
            select(NoteSection.id).where(NoteSection.anchor == "structured-sparsity")
        ).one()
        session.add(QuestionNoteLink(question_id=qid, section_id=section, origin="explicit"))
        session.add(LinkDecision(question_id=qid, section_id=section, decision="confirmed"))
    form = editor_form(author, f"/author/questions/{qid}/edit")
    row = next(k for k, v in form.items() if v == "guide#structured-sparsity")
    assert _save(author, qid, unlink=[row.removeprefix("link-")]).status_code == 303
    assert _explicit(db, qid) == {"calibration"} and _decisions(db) == ["rejected"]
    assert _save(author, qid, q="guide#structured-sparsity").status_code == 303
    assert _decisions(db) == ["confirmed"]
    # a link without a decision (the catalog's) goes without one, as an import drops it
    assert _save(author, qid, unlink=["1"]).status_code == 303
    assert _decisions(db) == ["confirmed"] and _explicit(db, qid) == {"structured-sparsity"}


def test_a_new_question_is_saved_with_its_links(user_client, db, qid):
    author = user_client("ann", role="author")
    form = editor_form(author, "/author/questions/new?set=basics")
    form |= {"stem": "Which?", "choice-1-text": "A", "choice-2-text": "B", "right": ["1"]}
    form |= {"note": "New", "q": "guide#calibration"}
    response = author.post("/author/questions/new?set=basics", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    new_id = int(response.headers["location"].split("/")[3])
    assert _explicit(db, new_id) == {"calibration"}


def test_suggested_links_are_shown_with_their_score(user_client, db, qid):
    with db.session_scope(write=True) as session:
        section = session.scalars(
            select(NoteSection.id).where(NoteSection.anchor == "structured-sparsity")
        ).one()
        session.execute(
            QuestionNoteLink.__table__.delete().where(
                QuestionNoteLink.question_id == qid, QuestionNoteLink.origin == "suggested"
            )
        )
        session.add(
            QuestionNoteLink(question_id=qid, section_id=section, origin="suggested", score=0.42)
        )
    page = user_client("ann", role="author").get(f"/author/questions/{qid}/edit")
    assert 'Structured sparsity <span class="badge">suggested, score 0.42</span>' in page.text
    assert not [
        t for t in tags(page.text, "input") if t.get("value") == "guide#structured-sparsity"
    ]


# The search as you type


def test_the_search_lists_matching_sections_as_choices(user_client, qid):
    author = user_client("ann", role="author")
    response = author.get("/author/note-sections", params={"q": "  sparsity "})
    assert response.status_code == 200
    radios = [t for t in tags(response.text, "input") if t.get("type") == "radio"]
    assert [r["value"] for r in radios] == ["guide#structured-sparsity"]
    assert "<legend>" in response.text and "<html" not in response.text
    nothing = author.get("/author/note-sections", params={"q": "zebra"})
    assert "No note section’s heading holds “zebra”" in nothing.text.replace("'", "’")


@pytest.mark.parametrize(
    ("q", "message"),
    [
        ("", "Type part of a section"),
        ("   ", "Type part of a section"),
        ("x" * 5000, "at most 100"),
    ],
)
def test_an_empty_or_oversized_search_says_so(user_client, qid, q, message):
    response = user_client("ann", role="author").get("/author/note-sections", params={"q": q})
    assert response.status_code == 200 and message in response.text
    assert "radio" not in response.text


def test_hostile_text_in_the_search_and_in_headings_is_escaped(user_client, qid):
    author = user_client("ann", role="author")
    found = author.get("/author/note-sections", params={"q": "<b>fusion"})
    assert "Kernel &lt;b&gt;fusion&lt;/b&gt; &amp; &#34;friends&#34;" in found.text
    assert "<b>" not in found.text
    hostile = author.get("/author/note-sections", params={"q": "<script>alert(1)</script>%_"})
    assert "<script>" not in hostile.text and "&lt;script&gt;" in hostile.text
    assert "radio" not in hostile.text  # % and _ are matched as written, not as wildcards


def test_a_learner_or_a_guest_cannot_search(user_client, client, qid):
    learner = user_client("lee")
    assert learner.get("/author/note-sections", params={"q": "calib"}).status_code == 403
    guest = client.get("/author/note-sections", params={"q": "calib"}, follow_redirects=False)
    assert guest.status_code == 303 and guest.headers["location"].startswith("/login")


def test_the_search_runs_a_bounded_number_of_queries(app, user_client, db, qid):
    author = user_client("ann", role="author")
    with count_queries(app) as few:
        author.get("/author/note-sections", params={"q": "a"})
    load(db, a_note("\n\n".join(f"## Area {n}\n\nText {n}." for n in range(40)), slug="more"))
    with count_queries(app) as many:
        response = author.get("/author/note-sections", params={"q": "a"})
    assert response.text.count('type="radio"') == 10  # the first ten only
    assert len(many) == len(few) <= 5, many


# The JSON API


def test_the_api_reads_and_writes_the_links(user_client, script, db, qid):  # noqa: F811
    api = script(_make_token(user_client("ann", role="author"), "author"))
    body = api.get(f"/api/v1/author/questions/{qid}").json()
    assert body["content"]["notes"] == ["guide#calibration"]
    content = body["content"] | {"notes": ["guide#structured-sparsity"]}
    saved = api.put(
        f"/api/v1/author/questions/{qid}",
        json={"revision": 1, "note": "Relink", "content": content},
    )
    assert saved.status_code == 200 and saved.json()["content"]["notes"] == [
        "guide#structured-sparsity"
    ]
    left = {k: v for k, v in content.items() if k != "notes"} | {"explanation": "Other."}
    kept = api.put(
        f"/api/v1/author/questions/{qid}", json={"revision": 2, "note": "Text", "content": left}
    )
    assert kept.status_code == 200 and _explicit(db, qid) == {"structured-sparsity"}
    unknown = api.put(
        f"/api/v1/author/questions/{qid}",
        json={"revision": 3, "note": "Bad", "content": content | {"notes": ["guide#gone"]}},
    )
    assert unknown.status_code == 422
    assert [p["field"] for p in unknown.json()["problems"]] == ["links"]
    assert _revisions(db, qid) == 3


def test_a_restore_leaves_out_links_to_sections_removed_since(user_client, db, qid):
    author = user_client("ann", role="author")
    assert _save(author, qid, q="guide#structured-sparsity").status_code == 303
    load(db, a_note(NOTE.split("## Structured")[0].replace("Calibration", "Calibrating")))
    restored = author.post(
        f"/author/questions/{qid}/history/1/restore", data={"opened": "2"}, follow_redirects=False
    )
    assert restored.status_code == 303
    assert _explicit(db, qid) == set() and _revisions(db, qid) == 3
