"""GET /api/v1/search: the same search as the page, as JSON, and documented."""

import pytest

from tests.search.test_routes import MARKUP, load_marked_up
from tests.search.test_service import HOSTILE_QUERIES


def test_search_api_returns_both_groups_highlighted(client, seeded):
    body = client.get("/api/v1/search", params={"q": "calibration"}).json()
    assert body["terms"] == ["calibration"] and body["type"] == "all"
    assert body["note_total"] >= 1 and body["question_total"] >= 1
    note = next(n for n in body["notes"] if n["anchor"] == "working-with-mixed-precision")
    assert note["note"] == "tensorrt-note-2" and "<mark>" in note["snippet_html"]
    question = next(q for q in body["questions"] if "algorithm" in q["stem_html"])
    assert "<mark>calibration</mark>" in question["stem_html"]
    assert question["topic"] == {
        "slug": "precision-int8-calibration",
        "title": "Precision & INT8 calibration",
    }


def test_search_api_filters(client, seeded):
    body = client.get(
        "/api/v1/search", params={"q": "2:4", "type": "questions", "topic": "sparsity"}
    ).json()
    assert body["notes"] == [] and body["note_total"] == 0
    assert [q["set"] for q in body["questions"]] == ["nca-inference-optimization-tensorrt-5"]


@pytest.mark.parametrize("query", [q for q in HOSTILE_QUERIES if "\x00" not in q])
def test_no_query_makes_the_api_fail(client, seeded, query):
    assert client.get("/api/v1/search", params={"q": query}).status_code == 200


def test_a_nul_in_the_query_gets_the_documented_404(client):
    response = client.get("/api/v1/search", params={"q": "a\x00b"})
    assert response.status_code == 404 and response.json()["detail"]


def test_search_is_documented(client):
    operation = client.get("/openapi.json").json()["paths"]["/api/v1/search"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"q", "topic", "type"}
    assert {"200", "404", "422"} <= set(operation["responses"])
    assert operation["description"]


def test_search_api_says_whether_totals_are_exact(client, seeded):
    body = client.get("/api/v1/search", params={"q": "calibration"}).json()
    assert body["note_total_exact"] is True and body["question_total_exact"] is True


def test_search_api_gives_markdown_as_plain_text_and_a_question_its_stem_apart(client, db):
    load_marked_up(db)
    body = client.get("/api/v1/search", params={"q": "zebra"}).json()
    (note,), (question,) = body["notes"], body["questions"]
    assert note["heading_html"] == "<mark>Zebra</mark> flags"
    assert question["stem_html"] == "Which trtexec flag builds a <mark>zebra</mark> engine?"
    assert "<mark>zebra</mark> flag is --zebra16" in note["snippet_html"]
    assert "Which" not in question["snippet_html"]
    assert "<mark>zebra</mark> guide" in question["snippet_html"]
    for text in (note["snippet_html"], question["snippet_html"]):
        assert not [mark for mark in MARKUP if mark in text], text
