"""Topic pages are study guides: a topic gathers what it and all its subtopics hold."""

import pytest

from app.content.bundle import Bundle, NoteData, TopicData
from tests.factories import a_question, a_set, load, question_id, tags

PARENT = "/topics/inference-optimization-tensorrt"
NOTE_SECTION = "/notes/tensorrt-note-2#working-with-mixed-precision"


def test_a_parent_topic_gathers_its_subtopics_notes_and_questions(client, seeded):
    html = client.get(PARENT).text
    assert "look in its subtopics" not in html and "No notes" not in html
    hrefs = [a.get("href") for a in tags(html, "a")]
    assert "/notes/tensorrt-note-2" in hrefs
    assert NOTE_SECTION in hrefs
    assert "/notes/tensorrt-note-2#working-with-reformat-free-network-i-o-tensors" in hrefs
    assert "/topics/precision-int8-calibration" in hrefs  # the part of the guide it comes from
    questions = [h for h in hrefs if h and h.startswith("/questions/")]
    assert len(set(questions)) == 7


def test_the_contents_count_the_questions_each_section_teaches(client, seeded):
    html = client.get("/topics/precision-int8-calibration").text
    contents = html[html.index('aria-label="Contents of the notes"') :]
    assert "Working with Mixed Precision</a> <span" in contents
    assert "question" in contents.split("Working with Mixed Precision</a>")[1].split("</li>")[0]


def test_a_leaf_topic_lists_only_its_own(client, seeded):
    html = client.get("/topics/sparsity").text
    assert "No notes in this topic yet." in html
    assert len([a for a in tags(html, "a") if (a.get("href") or "").startswith("/questions/")]) == 1


def test_practise_this_topic_walks_its_questions_from_the_first(client, seeded):
    html = client.get("/topics/sparsity").text
    assert 'href="/topics/sparsity/practice"' in html
    response = client.get("/topics/sparsity/practice", follow_redirects=False)
    assert response.status_code == 303
    first = question_id(seeded, "1")
    assert response.headers["location"] == f"/study/{first}?plan={first}&topic=sparsity"
    parent = client.get(f"{PARENT}/practice", follow_redirects=False)
    plan = ".".join(str(question_id(seeded, key)) for key in "1234567")  # subtopics in set order
    assert parent.headers["location"] == f"/study/{first}?plan={plan}&topic={PARENT[8:]}"


@pytest.mark.parametrize("path", ["/topics/nope/practice", "/topics/empty/practice"])
def test_practising_a_missing_or_empty_topic_is_a_404(client, db, path):
    load(db, Bundle(topics=[TopicData("empty", "Empty")]))
    html = client.get("/topics/empty").text
    assert "Practise this topic" not in html and "No questions in this topic yet." in html
    assert client.get(path).status_code == 404


def test_the_guide_puts_the_topics_own_notes_first_then_subtopics_in_order(client, db):
    topics = [
        TopicData("root", "Root"),
        TopicData("b-child", "B child", parent="root"),
        TopicData("a-child", "A child", parent="root"),
        TopicData("grandchild", "Grandchild", parent="b-child"),
    ]
    notes = [
        NoteData("n-grand", "Grand note", "## G\n\ng", topic="grandchild"),
        NoteData("n-a", "A note", "## A\n\na", topic="a-child"),
        NoteData("n-root", "Root note", "## R\n\nr", topic="root"),
        NoteData("n-b", "B note", "## B\n\nb", topic="b-child"),
    ]
    load(db, Bundle(topics=topics, notes=notes))
    load(db, a_set(a_question("1", topic="grandchild"), slug="deep"))
    html = client.get("/topics/root").text
    order = [html.index(f'href="/notes/{slug}"') for slug in ("n-root", "n-b", "n-grand", "n-a")]
    assert order == sorted(order)
    body = client.get("/api/v1/topics/root").json()
    assert [n["slug"] for n in body["notes"]] == ["n-root", "n-b", "n-grand", "n-a"]
    assert body["notes"][2]["topic"] == {"slug": "grandchild", "title": "Grandchild"}
    assert len(body["questions"]) == 1 and body["page"]["total"] == 1
