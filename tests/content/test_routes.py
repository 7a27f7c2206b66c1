"""Content pages through the TestClient."""

import pytest

from tests.factories import choice_ids, question_id, tags


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
    assert "suggested" in html  # similarity suggestions are labelled as such
    assert "Stay humble" not in html and "Leave a comment" not in html
    assert len(tags(html, "ol")) > 10  # the outline is nested lists, not flat text


def test_question_set_page_links_every_question(client, seeded):
    html = client.get("/sets/nca-inference-optimization-tensorrt-5").text
    links = [a["href"] for a in tags(html, "a") if (a.get("href") or "").startswith("/questions/")]
    assert len(set(links)) == 7
    assert "Start practising" in html


def test_question_page_hides_the_answer_until_checked(client, seeded):
    qid = question_id(seeded, "3")
    html = client.get(f"/questions/{qid}").text
    assert "Which TensorRT calibration algorithm" in html
    assert len(tags(html, "input")) == 4
    assert "is-correct" not in html and "Right answer" not in html
    assert "KL-divergence" not in html  # the explanation stays hidden


def test_right_answer_shows_explanation_and_note_link(client, seeded):
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    response = client.post(f"/questions/{qid}", data={"choice": str(right)})
    assert response.status_code == 200
    assert "Correct!" in response.text
    assert "KL-divergence" in response.text
    assert "/notes/tensorrt-note-2#working-with-mixed-precision" in response.text
    assert "Next question" in response.text
    assert "<html" in response.text  # a whole page for a plain form post


def test_wrong_answer_marks_the_right_one(client, seeded):
    qid = question_id(seeded, "1")
    right, wrong = choice_ids(seeded, "1")
    html = client.post(f"/questions/{qid}", data={"choice": str(wrong[0])}).text
    assert "Not quite." in html
    assert "Right answer" in html and "Your answer" in html


def test_htmx_answer_returns_only_the_practice_block(client, seeded):
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    response = client.post(
        f"/questions/{qid}", data={"choice": str(right)}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="practice"')
    assert "<html" not in response.text and "Correct!" in response.text


def test_last_question_leads_back_to_the_set(client, seeded):
    qid = question_id(seeded, "7")
    right, _ = choice_ids(seeded, "7")
    html = client.post(f"/questions/{qid}", data={"choice": str(right)}).text
    assert "Back to the set" in html and "Next question" not in html


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "Choose an answer first."),
        ({"choice": "abc"}, "That answer was not valid."),
        ({"choice": "999999"}, "is not one of this question"),
    ],
)
def test_bad_answers_rerender_the_form_with_a_message(client, seeded, data, message):
    qid = question_id(seeded, "3")
    response = client.post(f"/questions/{qid}", data=data)
    assert response.status_code == 422
    assert message in response.text.replace("&#39;", "'")
    assert "Check answer" in response.text


def test_two_answers_to_a_single_choice_question_are_refused(client, seeded):
    qid = question_id(seeded, "3")
    right, wrong = choice_ids(seeded, "3")
    response = client.post(f"/questions/{qid}", data={"choice": [str(right), str(wrong[0])]})
    assert response.status_code == 422
    assert "exactly one answer" in response.text


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


def test_answering_a_missing_question_is_404(client, seeded):
    assert client.post("/questions/999999", data={"choice": "1"}).status_code == 404
