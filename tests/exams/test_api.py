"""The exams API: start, read, answer, flag, submit, result; owners only; no secrets early."""

from datetime import timedelta

import pytest

from tests.exams.conftest import EXAM, START
from tests.exams.helpers import items, right_and_wrong
from tests.exams.test_routes import Clock


@pytest.fixture
def clock(app) -> Clock:  # type: ignore[no-untyped-def]
    app.state.exam_clock = clock = Clock()
    return clock


@pytest.fixture
def ann(seeded, user_client, clock):  # type: ignore[no-untyped-def]
    return user_client("ann")


def start(client) -> int:  # type: ignore[no-untyped-def]
    response = client.post(f"/api/v1/exams/{EXAM}/attempts")
    assert response.status_code == 201, response.text
    return response.json()["id"]


def test_list_exams(client, seeded):
    exams = client.get("/api/v1/exams").json()
    assert [(e["slug"], e["question_count"], e["time_limit_s"], e["pass_mark"]) for e in exams] == [
        (EXAM, 7, 600, 70)
    ]


def test_a_whole_attempt_through_the_api(ann, seeded, clock):
    attempt_id = start(ann)
    again = ann.post(f"/api/v1/exams/{EXAM}/attempts")
    assert again.status_code == 200 and again.json()["id"] == attempt_id
    state = ann.get(f"/api/v1/attempts/{attempt_id}").json()
    assert state["status"] == "open" and state["remaining_s"] == 600
    assert len(state["questions"]) == 7
    shown = items(seeded, attempt_id)
    for item in shown:
        right, _ = right_and_wrong(item)
        response = ann.put(
            f"/api/v1/attempts/{attempt_id}/questions/{item.position}/answer",
            json={"choice_ids": [right]},
        )
        assert response.status_code == 200 and response.json()["selected_ids"] == [right]
    flag = ann.put(f"/api/v1/attempts/{attempt_id}/questions/2/flag", json={"flagged": True})
    assert flag.json()["flagged"] is True
    clock.now = START + timedelta(minutes=4)
    assert ann.get(f"/api/v1/attempts/{attempt_id}").json()["remaining_s"] == 360
    assert ann.get(f"/api/v1/attempts/{attempt_id}/result").status_code == 409
    result = ann.post(f"/api/v1/attempts/{attempt_id}/submit").json()
    assert result["passed"] is True and result["percent"] == 100
    assert result["time_used_s"] == 240
    assert result["items"][0]["explanation_html"]
    assert ann.get(f"/api/v1/attempts/{attempt_id}/result").json() == result
    assert (
        ann.put(
            f"/api/v1/attempts/{attempt_id}/questions/1/answer", json={"choice_ids": []}
        ).status_code
        == 409
    )
    assert [a["id"] for a in ann.get("/api/v1/attempts").json()] == [attempt_id]


def test_an_open_attempt_reveals_no_answer_key_anywhere(ann, seeded):
    attempt_id = start(ann)
    shown = items(seeded, attempt_id)
    right, _ = right_and_wrong(shown[0])
    bodies = [
        ann.put(
            f"/api/v1/attempts/{attempt_id}/questions/1/answer", json={"choice_ids": [right]}
        ).text,
        ann.put(f"/api/v1/attempts/{attempt_id}/questions/1/flag", json={"flagged": True}).text,
        ann.get(f"/api/v1/attempts/{attempt_id}").text,
        ann.get("/api/v1/attempts").text,
        ann.get("/api/v1/exams").text,
    ]
    bodies += [ann.get(f"/api/v1/attempts/{attempt_id}/questions/{n}").text for n in range(1, 8)]
    for body in bodies:
        assert '"correct_ids"' not in body and '"correct":' not in body
        assert '"explanation' not in body
        for item in shown:
            if item.snapshot["explanation_html"]:
                assert item.snapshot["explanation_html"][:60] not in body


def test_an_answer_after_the_deadline_is_refused(ann, seeded, clock):
    attempt_id = start(ann)
    right, _ = right_and_wrong(items(seeded, attempt_id)[0])
    clock.now = START + timedelta(minutes=10, seconds=30)
    ok = ann.put(f"/api/v1/attempts/{attempt_id}/questions/1/answer", json={"choice_ids": [right]})
    assert ok.status_code == 200
    clock.now += timedelta(seconds=1)
    late = ann.put(
        f"/api/v1/attempts/{attempt_id}/questions/2/answer", json={"choice_ids": [right]}
    )
    assert late.status_code == 409 and "Time is up" in late.json()["detail"]
    result = ann.get(f"/api/v1/attempts/{attempt_id}/result").json()
    assert result["timed_out"] is True and result["score"] == 1


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"choice_ids": "1"},
        {"choice_ids": [0]},
        {"choice_ids": [-5]},
        {"choice_ids": [2**40]},
        {"choice_ids": list(range(1, 30))},
        {"choice_ids": [999_999]},
        {"choice_ids": ["x"]},
        [],
    ],
)
def test_bad_answer_bodies_are_422(ann, body):
    attempt_id = start(ann)
    response = ann.put(f"/api/v1/attempts/{attempt_id}/questions/1/answer", json=body)
    assert response.status_code == 422


@pytest.mark.parametrize("body", [{}, {"flagged": "maybe"}, {"flagged": None}])
def test_bad_flag_bodies_are_422(ann, body):
    attempt_id = start(ann)
    response = ann.put(f"/api/v1/attempts/{attempt_id}/questions/1/flag", json=body)
    assert response.status_code == 422


def test_not_json_is_422(ann):
    attempt_id = start(ann)
    response = ann.put(
        f"/api/v1/attempts/{attempt_id}/questions/1/answer",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/attempts/{id}"),
        ("GET", "/api/v1/attempts/{id}/questions/1"),
        ("PUT", "/api/v1/attempts/{id}/questions/1/answer"),
        ("PUT", "/api/v1/attempts/{id}/questions/1/flag"),
        ("POST", "/api/v1/attempts/{id}/submit"),
        ("GET", "/api/v1/attempts/{id}/result"),
    ],
)
def test_another_learner_gets_404(ann, user_client, method, path):
    attempt_id = start(ann)
    bob = user_client("bob")
    body = {"choice_ids": []} if path.endswith("answer") else {"flagged": True}
    kwargs = {"json": body} if method == "PUT" else {}
    response = bob.request(method, path.format(id=attempt_id), **kwargs)
    assert response.status_code == 404
    assert ann.get(f"/api/v1/attempts/{attempt_id}").json()["status"] == "open"


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/attempts/0",
        "/api/v1/attempts/x",
        "/api/v1/attempts/1/questions/0",
        "/api/v1/attempts/1/questions/8",
        "/api/v1/exams/BAD/attempts",
    ],
)
def test_bad_ids_are_4xx(ann, path):
    start(ann)
    method = "POST" if path.endswith("/attempts") else "GET"
    assert ann.request(method, path).status_code in (404, 422)


def test_guests_get_401(client, seeded):
    assert client.post(f"/api/v1/exams/{EXAM}/attempts").status_code == 401
    assert client.get("/api/v1/attempts").status_code == 401
    assert client.get("/api/v1/attempts/1").status_code == 401
