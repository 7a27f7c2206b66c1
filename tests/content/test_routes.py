"""Content pages through the TestClient."""

import pytest

from tests.factories import question_id, tags


def test_home_shows_topics_sets_and_notes(client, seeded):
    html = client.get("/").text
    assert "Inference Optimization &amp; TensorRT" in html
    assert "Precision &amp; INT8 calibration" in html
    assert "NCA Inference Optimization &amp; TensorRT 5" in html
    assert "TensorRT Note (2)" in html
    assert "7 questions" in html


def test_home_without_content_explains_how_to_load_some(client):
    html = client.get("/").text
    assert "No content yet" in html
    assert "studyhall seed" in html


def test_topic_page_lists_subtopics_notes_and_questions(client, seeded):
    parent = client.get("/topics/inference-optimization-tensorrt").text
    assert "Subtopics" in parent and "Sparsity" in parent
    child = client.get("/topics/precision-int8-calibration").text
    assert "TensorRT Note (2)" in child
    assert "Which TensorRT calibration algorithm" in child
    assert 'aria-current="page">Precision &amp; INT8 calibration' in child


def test_note_page_has_toc_sections_and_linked_questions(client, seeded):
    html = client.get("/notes/tensorrt-note-2").text
    assert "By levendlee" in html
    anchors = [a["href"] for a in tags(html, "a") if (a.get("href") or "").startswith("#")]
    assert "#working-with-mixed-precision" in anchors
    assert "#working-with-reformat-free-network-i-o-tensors" in anchors
    ids = {s.get("id") for s in tags(html, "section")}
    assert {"working-with-mixed-precision", "working-with-reformat-free-network-i-o-tensors"} <= ids
    calibration = question_id(seeded, "3")
    assert f'href="/questions/{calibration}"' in html
    # weak similarity suggestions are for authors (tests/content/test_related_links.py)
    assert "suggested" not in html
    assert "Stay humble" not in html and "Leave a comment" not in html
    assert len(tags(html, "ol")) > 10  # the outline is nested lists, not flat text


def test_question_set_page_links_every_question(client, seeded):
    html = client.get("/sets/nca-inference-optimization-tensorrt-5").text
    links = [a["href"] for a in tags(html, "a") if (a.get("href") or "").startswith("/questions/")]
    assert len(set(links)) == 7
    first = f"/questions/{question_id(seeded, '1')}"
    # a guest starts at the start
    assert f'<a class="button" href="{first}">Start practising</a>' in html


def test_question_page_hides_the_answer_until_checked(client, seeded):
    qid = question_id(seeded, "3")
    html = client.get(f"/questions/{qid}").text
    assert "Which TensorRT calibration algorithm" in html
    assert len([i for i in tags(html, "input") if i.get("name") == "choice"]) == 4
    assert "is-correct" not in html and "Right answer" not in html
    assert "KL-divergence" not in html  # the explanation stays hidden


@pytest.mark.parametrize(
    "path",
    [
        "/topics/nope",
        "/notes/nope",
        "/sets/nope",
        "/questions/999999",
        "/questions/abc",
        "/questions/0",
        "/questions/99999999999999999999999",
        "/topics/UPPER%20case",
        "/no/such/page",
    ],
)
def test_missing_pages_get_a_friendly_404(client, seeded, path):
    response = client.get(path)
    assert response.status_code == 404
    assert "text/html" in response.headers["content-type"]
    assert "Page not found" in response.text
    assert "Traceback" not in response.text


@pytest.mark.parametrize(
    "path", ["/", "/sets/nca-inference-optimization-tensorrt-5", "/notes/tensorrt-note-2"]
)
def test_public_pages_name_no_server_file(client, seeded, path):
    html = client.get(path).text
    assert "seed/" not in html and ".txt" not in html and ".toml" not in html


def test_the_api_names_no_server_file(client, seeded):
    note = client.get("/api/v1/notes/tensorrt-note-2").json()
    qset = client.get("/api/v1/question-sets/nca-inference-optimization-tensorrt-5").json()
    assert note["source_url"] is None and qset["source_url"] is None
    assert "seed/" not in str(note) and "seed/" not in str(qset)


def test_long_sets_and_topics_are_paged(client, db):
    from tests.factories import import_long_set

    import_long_set(db, "long", 120)
    first = client.get("/sets/long-set").text
    assert "Long question number 50?" in first and "Long question number 51?" not in first
    assert "Questions 1–50 of 120 · page 1 of 3" in first
    assert 'href="/sets/long-set?page=2" rel="next"' in first and 'rel="prev"' not in first
    last = client.get("/sets/long-set?page=3").text
    assert 'start="101"' in last and "Long question number 120?" in last
    assert 'href="/sets/long-set?page=2" rel="prev"' in last and 'rel="next"' not in last
    assert "Questions 101–120 of 120" in client.get("/topics/long?page=3").text
    assert client.get("/sets/long-set?page=4").status_code == 404
    assert client.get("/sets/long-set?page=0").status_code == 422
    api = client.get("/api/v1/question-sets/long-set?page=2").json()
    assert api["page"] == {"number": 2, "pages": 3, "total": 120, "size": 50}
    assert len(api["questions"]) == 50 and api["question_count"] == 120


@pytest.mark.parametrize("query", ["choice=abc", "choice=-1", "choice=1" + "&choice=1" * 26])
def test_a_bad_choice_in_the_address_is_refused(client, seeded, query):
    qid = question_id(seeded, "3")
    response = client.get(f"/questions/{qid}?{query}")
    assert response.status_code == 422 and "That answer was not valid." in response.text


def many_sets_and_notes(db, sets: int, notes: int) -> None:  # type: ignore[no-untyped-def]
    import json

    from tests.factories import import_file

    document = {
        "format": "studyhall.content/1",
        "question_sets": [{"slug": f"set-{n:02}", "title": f"Set {n:02}"} for n in range(sets)],
        "questions": [
            {
                "id": f"set-{n:02}/1",
                "set": f"set-{n:02}",
                "stem": "Yes?",
                "choices": [{"text": "yes", "correct": True}, {"text": "no", "correct": False}],
            }
            for n in range(sets)
        ],
        "notes": [
            {"slug": f"note-{n:03}", "title": f"Note {n:03}", "markdown": "## One\n\nText.\n"}
            for n in range(notes)
        ],
    }
    import_file(db, json.dumps(document).encode(), "many.json", 0.99)


def test_home_shows_the_first_sets_and_notes_and_links_to_all(client, db):
    many_sets_and_notes(db, sets=12, notes=60)
    home = client.get("/").text
    assert "Set 09" in home and "Set 10" not in home and "Note 009" in home
    assert 'href="/sets">All 12 question sets' in home and 'href="/notes">All 60 notes' in home
    assert "Set 11" in client.get("/sets").text
    notes = client.get("/notes").text
    assert "Note 049" in notes and "Note 050" not in notes
    assert "Notes 1–50 of 60 · page 1 of 2" in notes and 'href="/notes?page=2"' in notes
    assert "Note 059" in client.get("/notes?page=2").text
    assert client.get("/notes?page=3").status_code == 404


def test_the_home_page_lists_everything_when_there_is_little(client, seeded):
    home = client.get("/").text
    assert 'href="/sets">All' not in home and 'href="/notes">All' not in home
    assert client.get("/sets").status_code == 200 and client.get("/notes").status_code == 200
