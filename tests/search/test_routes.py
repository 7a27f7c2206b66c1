"""The search page and the header's search box, with JavaScript or without."""

import re

import pytest

from tests.factories import a_note, a_question, a_set, import_file, load, tags
from tests.search.test_service import HOSTILE_QUERIES


def test_the_header_has_a_search_box_that_leads_to_the_search_page(client):
    html = client.get("/").text
    form = next(f for f in tags(html, "form") if f.get("role") == "search")
    assert form["action"] == "/search" and form["method"] == "get"
    box = next(i for i in tags(html, "input") if i.get("type") == "search")
    assert box["name"] == "q"
    assert any(label.get("for") == box["id"] for label in tags(html, "label"))


def test_calibration_shows_the_note_section_and_the_question_highlighted(client, seeded):
    response = client.get("/search", params={"q": "calibration"})
    assert response.status_code == 200
    html = response.text
    assert 'href="/notes/tensorrt-note-2#working-with-mixed-precision"' in html
    assert "<mark>calibration</mark>" in html or "<mark>Calibration</mark>" in html
    links = [a["href"] for a in tags(html, "a") if (a.get("href") or "").startswith("/questions/")]
    assert links
    assert html.index("note-results-heading") < html.index("question-results-heading")


def test_the_search_page_keeps_what_was_asked_in_its_form(client, seeded):
    html = client.get(
        "/search", params={"q": 'say "hi"', "topic": "sparsity", "type": "questions"}
    ).text
    box = next(i for i in tags(html, "input") if i.get("id") == "q")
    assert box["value"] == 'say "hi"'
    selected = [o["value"] for o in tags(html, "option") if "selected" in o]
    assert selected == ["sparsity", "questions"]
    assert "note-results-heading" not in html


def test_an_empty_search_shows_only_the_form(client, seeded):
    html = client.get("/search").text
    assert 'id="q"' in html and "search-results" not in html and 'role="status"' not in html


def test_no_match_says_so(client, seeded):
    html = client.get("/search", params={"q": "zzzyyyxxx"}).text
    assert "Nothing matches" in html


@pytest.mark.parametrize("query", [q for q in HOSTILE_QUERIES if "\x00" not in q])
def test_no_query_makes_the_page_fail(client, seeded, query):
    assert client.get("/search", params={"q": query}).status_code == 200


def test_a_query_with_nul_is_refused_as_every_address_with_one(client):
    assert client.get("/search", params={"q": "a\x00b"}).status_code == 404


def test_an_unknown_type_is_refused_with_the_error_page(client):
    response = client.get("/search", params={"q": "x", "type": "everything"})
    assert response.status_code == 422 and "<h1" in response.text


def test_hostile_content_is_escaped_in_results(client, db):
    note = (
        "someone\n\nEvil Note\n\nWritten in\n\nby\n\nsomeone\n\n, ,\n"
        "  1. Section <script>alert(1)</script> calibration\n"
        "    1. Item <img src=x onerror=alert(2)> calibration\n"
    )
    import_file(db, note.encode(), "evil-note.txt", 0.01)
    html = client.get("/search", params={"q": "calibration"}).text
    assert all(script.get("src") for script in tags(html, "script"))
    assert not [img for img in tags(html, "img") if img.get("src") == "x"]
    assert "&lt;script&gt;" in html


def test_a_search_asked_again_costs_no_query_until_the_content_changes(settings, seeded):
    from fastapi.testclient import TestClient

    from app.main import create_app
    from tests.factories import a_note, count_queries, load

    app = create_app(settings.model_copy(update={"content_cache_seconds": 60}))
    with TestClient(app) as client:
        client.get("/")  # the caches read the content version once, at their first use
        first = client.get("/search", params={"q": "calibration"}).text
        with count_queries(app) as statements:
            again = client.get("/search", params={"q": "calibration"}).text
            api = client.get("/api/v1/search", params={"q": "calibration"})
        assert again == first and api.status_code == 200
        assert statements == []
        load(seeded, a_note("## Calibration again\n\nMore calibration.", slug="more"))
        app.state.search_cache.clear()  # what the version check does within a second
        assert (
            "/notes/more#calibration-again"
            in client.get("/search", params={"q": "calibration"}).text
        )


def test_a_search_too_broad_to_rank_says_so_on_the_page_and_in_the_api(client, db, monkeypatch):
    from app.search import queries

    if db.engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL ranks every match")
    monkeypatch.setattr(queries, "TOTAL_CAP", 2)
    qa = "".join(
        f"Question {n}: Zebrafish question {n}?\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"
        for n in range(1, 5)
    )
    import_file(db, f"Many — Questions and Answers\n{qa}".encode(), "many.txt")
    html = client.get("/search", params={"q": "zebrafish"}).text
    assert "So many match that they are not ranked" in html
    assert "The first 4 of more than 2 questions." in html
    assert client.get("/api/v1/search", params={"q": "zebrafish"}).json()["ranked"] is False
    html = client.get("/search", params={"q": "zebrafish 3"}).text
    assert "not ranked" not in html


def test_both_groups_show_their_best_few_and_link_to_the_rest(client, db):
    from app.search.dependencies import KIND_LIMIT, PAGE_LIMIT

    many = PAGE_LIMIT + 2
    qa = "".join(
        f"Question {n}: Which okapi setting {n}?\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"
        for n in range(1, many + 1)
    )
    import_file(db, f"Okapi — Questions and Answers\n{qa}".encode(), "okapi.txt")
    html = client.get("/search", params={"q": "okapi"}).text
    shown = [a for a in tags(html, "a") if a.get("href", "").startswith("/questions/")]
    assert len(shown) == PAGE_LIMIT
    assert f"The best {PAGE_LIMIT} of {many} questions." in html
    more = next(a for a in tags(html, "a") if "type=questions" in a.get("href", ""))
    assert more["href"] == "/search?q=okapi&topic=&type=questions"
    rest = client.get(more["href"]).text
    assert many <= KIND_LIMIT
    assert len([a for a in tags(rest, "a") if a.get("href", "").startswith("/questions/")]) == many
    assert "Show more" not in rest
    api = client.get("/api/v1/search", params={"q": "okapi"}).json()
    assert len(api["questions"]) == PAGE_LIMIT and api["question_total"] == many


MARKUP = ("**", "`", "|", "](", "#")


def load_marked_up(db):  # type: ignore[no-untyped-def]
    """A question and a note section about zebras, written in Markdown of every kind."""
    question = a_question("1", "Which `trtexec` flag builds a **zebra** engine?")
    question.choices[0].text = "`--zebra16`"
    question.explanation = (
        "Use **`--zebra16`**: see the [zebra guide](https://example.test/zebra).\n\n"
        "| Flag | Engine |\n|---|---|\n| `--zebra16` | zebra |"
    )
    load(db, a_set(question))
    load(
        db,
        a_note(
            "## Zebra flags\n\nThe **zebra** flag is `--zebra16`, as the "
            "[zebra guide](https://example.test/zebra) says.\n\n"
            "| Flag | Engine |\n|---|---|\n| `--zebra16` | zebra |\n\n"
            "```bash\ntrtexec --zebra16 --saveEngine=zebra.plan\n```"
        ),
    )


def test_results_show_markdown_as_plain_text_and_a_question_its_stem_apart(client, db):
    load_marked_up(db)
    html = client.get("/search", params={"q": "zebra"}).text
    note_title, question_title = (
        re.sub(r"<a [^>]*>|</a>", "", h3) for h3 in re.findall(r"<h3>(.*?)</h3>", html)
    )
    note_snippet, question_snippet = re.findall(r'<p class="snippet">(.*?)</p>', html)
    assert note_title == "<mark>Zebra</mark> flags"
    assert question_title == "Which trtexec flag builds a <mark>zebra</mark> engine?"
    assert "<mark>zebra</mark> flag is --zebra16" in note_snippet
    assert "<mark>zebra</mark> guide" in question_snippet
    assert "Which" not in question_snippet and "--zebra16" in question_snippet
    for text in (note_snippet, question_snippet):
        assert not [mark for mark in MARKUP if mark in text], text
