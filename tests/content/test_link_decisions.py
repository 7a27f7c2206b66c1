"""Authors confirm or reject suggested links, and the decision outlives re-imports and scores."""

import pytest
from sqlalchemy import select

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content.errors import ContentConflict, NotFound
from app.content.models import NoteSection, QuestionNoteLink
from app.content.service import decide_link
from app.db import Database
from tests.factories import (
    a_note,
    a_question,
    a_set,
    count_queries,
    load,
    load_seed,
    question_id,
    tags,
)

AUTHOR = Viewer(1, "ann", "author")
LEARNER = Viewer(2, "leo", "learner")
NOTE = """## Calibration

INT8 calibration builds a calibration table from a calibration dataset.

## Sparsity

Structured sparsity halves the weights of a layer.
"""


def links(db: Database) -> dict[tuple[int, int], str]:
    with db.session_scope() as session:
        rows = session.execute(
            select(
                QuestionNoteLink.question_id, QuestionNoteLink.section_id, QuestionNoteLink.origin
            )
        )
        return {(q, s): origin for q, s, origin in rows}


def suggested(db: Database) -> tuple[int, int]:
    """A suggested link of the seed content: (question id, section id)."""
    return next(pair for pair, origin in sorted(links(db).items()) if origin == "suggested")


def decide(db: Database, pair: tuple[int, int], decision: str, actor: Viewer = AUTHOR) -> str:
    with db.session_scope(write=True) as session:
        return decide_link(session, actor, *pair, decision)


def sections(db: Database) -> dict[str, int]:
    with db.session_scope() as session:
        return dict(session.execute(select(NoteSection.anchor, NoteSection.id)).all())


def test_a_confirmed_link_becomes_a_link_like_the_catalogs(seeded, make_user):
    make_user("ann", role="author")
    pair = suggested(seeded)
    assert decide(seeded, pair, "confirm") == "confirmed"
    assert links(seeded)[pair] == "explicit"


def test_a_rejected_link_goes_and_seed_run_again_does_not_bring_it_back(seeded, make_user):
    make_user("ann", role="author")
    pair = suggested(seeded)
    decide(seeded, pair, "reject")
    assert pair not in links(seeded)
    load_seed(seeded)
    assert pair not in links(seeded)


def test_a_confirmed_link_survives_seed_run_again(seeded, make_user):
    make_user("ann", role="author")
    pair = suggested(seeded)
    decide(seeded, pair, "confirm")
    load_seed(seeded)
    assert links(seeded)[pair] == "explicit"


def test_the_catalog_does_not_drop_a_link_an_author_confirmed(seeded, make_user):
    """Question 3's catalog entry names its links; a confirmed one stays beside them."""
    make_user("ann", role="author")
    qid = question_id(seeded, "3")
    other = sections(seeded)["working-with-reformat-free-network-i-o-tensors"]
    with seeded.session_scope(write=True) as session:
        session.execute(
            QuestionNoteLink.__table__.delete().where(
                QuestionNoteLink.question_id == qid, QuestionNoteLink.section_id == other
            )
        )
        session.add(QuestionNoteLink(question_id=qid, section_id=other, origin="suggested"))
    decide(seeded, (qid, other), "confirm")
    load_seed(seeded)
    assert links(seeded)[(qid, other)] == "explicit"


def test_a_confirmed_link_stays_when_its_similarity_drops_a_rejected_one_stays_away(db, make_user):
    make_user("ann", role="author")
    question = a_question("1", "How is the INT8 calibration table of a layer's weights built?")
    load(db, a_note(NOTE))
    load(db, a_set(question), threshold=0.01)
    qid, ids = question_id(db, "1", "basics"), sections(db)
    assert links(db) == {
        (qid, ids["calibration"]): "suggested",
        (qid, ids["sparsity"]): "suggested",
    }
    decide(db, (qid, ids["sparsity"]), "reject")
    decide(db, (qid, ids["calibration"]), "confirm")
    edited = NOTE.replace("INT8 calibration builds a calibration table", "Tables are built")
    load(db, a_note(edited), threshold=0.01)  # every question is scored again
    assert links(db) == {(qid, ids["calibration"]): "explicit"}


def test_a_rejected_suggestion_makes_room_for_the_next_best(db, make_user):
    make_user("ann", role="author")
    body = "".join(f"## Part {n}\n\nINT8 calibration table {'x' * n}.\n\n" for n in range(1, 6))
    load(db, a_note(body))
    load(db, a_set(a_question("1", "INT8 calibration table?")), threshold=0.01)
    qid = question_id(db, "1", "basics")
    first = sorted(links(db))
    assert len(first) == 3
    decide(db, first[0], "reject")
    load(db, a_note(body + "More.\n"), threshold=0.01)  # sections changed: scored again
    after = sorted(links(db))
    assert len(after) == 3 and first[0] not in after and all(q == qid for q, _ in after)


@pytest.mark.parametrize(
    ("actor", "pair", "decision", "error"),
    [
        (LEARNER, "suggested", "confirm", PermissionDenied),
        (AUTHOR, "explicit", "reject", ContentConflict),
        (AUTHOR, "missing", "confirm", NotFound),
    ],
)
def test_decisions_are_refused_to_learners_on_catalog_links_and_on_no_link(
    seeded, make_user, actor, pair, decision, error
):
    make_user("ann", role="author")
    chosen = {
        "suggested": suggested(seeded),
        "explicit": next(p for p, o in links(seeded).items() if o == "explicit"),
        "missing": (999_999, 999_999),
    }[pair]
    with pytest.raises(error):
        decide(seeded, chosen, decision, actor)


def test_an_unknown_decision_is_refused(seeded, make_user):
    from app.content.errors import InvalidAnswer

    make_user("ann", role="author")
    with pytest.raises(InvalidAnswer):
        decide(seeded, suggested(seeded), "maybe")


# --- pages ----------------------------------------------------------------------------------


def decision_forms(html: str) -> list[str]:
    return [f["action"] or "" for f in tags(html, "form") if "/links/" in (f["action"] or "")]


def test_authors_see_the_forms_on_the_question_and_note_pages_learners_do_not(seeded, user_client):
    author, learner = user_client("ann", role="author"), user_client("leo")
    qid, sid = suggested(seeded)
    form = f"/questions/{qid}/links/{sid}"
    assert form in decision_forms(author.get(f"/questions/{qid}").text)
    assert form in decision_forms(author.get("/notes/tensorrt-note-2").text)
    assert decision_forms(learner.get(f"/questions/{qid}").text) == []
    assert decision_forms(learner.get("/notes/tensorrt-note-2").text) == []


def test_confirming_from_the_note_page_goes_back_to_the_section(seeded, user_client):
    author = user_client("ann", role="author")
    qid, sid = suggested(seeded)
    response = author.post(
        f"/questions/{qid}/links/{sid}",
        data={"decision": "confirm", "next": "/notes/tensorrt-note-2#working-with-mixed-precision"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == (
        "/notes/tensorrt-note-2?done=link-confirmed#working-with-mixed-precision"
    )
    page = author.get(response.headers["location"]).text
    assert "The link was confirmed" in page
    assert f"/questions/{qid}/links/{sid}" not in decision_forms(page)


def test_rejecting_from_the_question_page_removes_the_link(seeded, user_client):
    author = user_client("ann", role="author")
    qid, sid = suggested(seeded)
    response = author.post(
        f"/questions/{qid}/links/{sid}",
        data={"decision": "reject", "next": f"/questions/{qid}"},
        follow_redirects=False,
    )
    assert response.headers["location"] == f"/questions/{qid}?done=link-rejected"
    assert (qid, sid) not in links(seeded)


@pytest.mark.parametrize("next_url", ["https://evil.example/", "//evil.example/x", ""])
def test_the_page_to_go_back_to_is_always_on_this_site(seeded, user_client, next_url):
    author = user_client("ann", role="author")
    qid, sid = suggested(seeded)
    response = author.post(
        f"/questions/{qid}/links/{sid}",
        data={"decision": "confirm", "next": next_url},
        follow_redirects=False,
    )
    assert response.headers["location"].startswith("/")
    assert not response.headers["location"].startswith("//")


def test_learners_get_403_and_guests_are_sent_to_log_in(seeded, client, user_client):
    qid, sid = suggested(seeded)
    url = f"/questions/{qid}/links/{sid}"
    learner = user_client("leo")
    assert learner.post(url, data={"decision": "confirm"}).status_code == 403
    guest = client.post(url, data={"decision": "confirm"}, follow_redirects=False)
    assert guest.status_code == 303 and guest.headers["location"].startswith("/login")
    assert links(seeded)[(qid, sid)] == "suggested"


def test_a_cross_site_post_is_refused(seeded, user_client):
    author = user_client("ann", role="author")
    qid, sid = suggested(seeded)
    response = author.post(
        f"/questions/{qid}/links/{sid}",
        data={"decision": "reject"},
        headers={"sec-fetch-site": "cross-site"},
    )
    assert response.status_code == 403
    assert (qid, sid) in links(seeded)


def test_decisions_add_no_query_to_the_pages(app, seeded, user_client):
    author = user_client("ann", role="author")
    qid, sid = suggested(seeded)
    paths = [f"/questions/{qid}", "/notes/tensorrt-note-2"]
    before = {}
    for path in paths:
        author.get(path)  # who is logged in is looked up once, then remembered a moment
        with count_queries(app) as statements:
            author.get(path)
        before[path] = len(statements)
    author.post(f"/questions/{qid}/links/{sid}", data={"decision": "reject"})
    for path in paths:
        author.get(path)
        with count_queries(app) as statements:
            author.get(path)
        assert len(statements) == before[path], path
