"""The JSON API under /api/v1."""

import pytest

from tests.factories import choice_ids, question_id


def test_topics_are_a_tree_with_counts(client, seeded):
    topics = client.get("/api/v1/topics").json()
    assert [t["slug"] for t in topics] == ["inference-optimization-tensorrt"]
    root = topics[0]
    assert root["question_count"] == 7 and root["note_count"] == 1
    assert "sparsity" in {c["slug"] for c in root["children"]}


def test_topic_detail(client, seeded):
    body = client.get("/api/v1/topics/precision-int8-calibration").json()
    assert body["ancestors"] == [
        {"slug": "inference-optimization-tensorrt", "title": "Inference Optimization & TensorRT"}
    ]
    assert [n["slug"] for n in body["notes"]] == ["tensorrt-note-2"]
    assert len(body["questions"]) == 1


def test_question_sets(client, seeded):
    sets = client.get("/api/v1/question-sets").json()
    assert sets == [
        {
            "slug": "nca-inference-optimization-tensorrt-5",
            "title": "NCA Inference Optimization & TensorRT 5",
            "question_count": 7,
        }
    ]
    detail = client.get("/api/v1/question-sets/nca-inference-optimization-tensorrt-5").json()
    assert len(detail["questions"]) == 7 and detail["topic"]["slug"]


def test_questions_list_filters_and_pages(client, seeded):
    everything = client.get("/api/v1/questions").json()
    assert everything["total"] == 7 and len(everything["items"]) == 7
    page = client.get("/api/v1/questions", params={"limit": 2, "offset": 6}).json()
    assert page["total"] == 7 and len(page["items"]) == 1
    topic = client.get("/api/v1/questions", params={"topic": "deployment-jetson-dla"}).json()
    assert topic["total"] == 2
    empty = client.get("/api/v1/questions", params={"set": "nope"}).json()
    assert empty == {"total": 0, "limit": 50, "offset": 0, "items": []}


def test_question_never_reveals_the_answer(client, seeded):
    qid = question_id(seeded, "3")
    body = client.get(f"/api/v1/questions/{qid}").json()
    assert len(body["choices"]) == 4
    assert all(set(c) == {"id", "position", "html"} for c in body["choices"])
    assert "explanation" not in body and "correct" not in str(body).lower()


def test_check_right_and_wrong(client, seeded):
    qid = question_id(seeded, "3")
    right, wrong = choice_ids(seeded, "3")
    ok = client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]}).json()
    assert ok["correct"] is True and ok["correct_choice_ids"] == [right]
    assert "KL-divergence" in ok["explanation"]
    assert ok["notes"][0]["anchor"] == "working-with-mixed-precision"
    assert ok["notes"][0]["origin"] == "explicit"
    bad = client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [wrong[0]]}).json()
    assert bad["correct"] is False and bad["selected_ids"] == [wrong[0]]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"choice_ids": []},
        {"choice_ids": ["x"]},
        {"choice_ids": list(range(100))},
        {"choice_ids": [999999]},
        [1, 2],
        "not json",
    ],
)
def test_check_refuses_bad_bodies_with_422(client, seeded, body):
    qid = question_id(seeded, "3")
    response = client.post(f"/api/v1/questions/{qid}/check", json=body)
    assert response.status_code == 422
    assert response.json()["detail"]


def test_check_refuses_two_answers_to_a_single_choice_question(client, seeded):
    qid = question_id(seeded, "3")
    right, wrong = choice_ids(seeded, "3")
    response = client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right, wrong[0]]})
    assert response.status_code == 422
    assert response.json() == {"detail": "This question takes exactly one answer."}


def test_check_refuses_malformed_json(client, seeded):
    qid = question_id(seeded, "3")
    response = client.post(
        f"/api/v1/questions/{qid}/check",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422


def test_notes(client, seeded):
    assert [n["slug"] for n in client.get("/api/v1/notes").json()] == ["tensorrt-note-2"]
    note = client.get("/api/v1/notes/tensorrt-note-2").json()
    assert note["author"] == "levendlee"
    assert [s["heading"] for s in note["sections"]] == [
        "Working with Mixed Precision",
        "Working with Reformat-Free Network I/O Tensors",
    ]
    assert note["markdown"].startswith("## Working with Mixed Precision")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/topics/nope",
        "/api/v1/question-sets/nope",
        "/api/v1/questions/999999",
        "/api/v1/notes/nope",
        "/api/v1/nothing-here",
    ],
)
def test_unknown_things_are_json_404s(client, seeded, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json()["detail"]


def test_check_of_a_missing_question_is_404(client, seeded):
    response = client.post("/api/v1/questions/999999/check", json={"choice_ids": [1]})
    assert response.status_code == 404


@pytest.mark.parametrize(
    "params", [{"limit": 0}, {"limit": 1000}, {"offset": -1}, {"limit": "many"}]
)
def test_questions_list_refuses_bad_paging(client, seeded, params):
    assert client.get("/api/v1/questions", params=params).status_code == 422


def test_openapi_describes_the_api(client):
    schema = client.get("/openapi.json").json()
    assert "/api/v1/questions/{question_id}/check" in schema["paths"]
    assert "/healthz" in schema["paths"]


def test_healthz_reports_app_and_database(client):
    health = client.get("/healthz").json()
    assert (health["status"], health["database"]) == ("ok", "ok")
