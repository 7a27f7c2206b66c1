"""Export my data: everything recorded about a learner, and nothing about anyone else."""

from datetime import UTC, datetime, timedelta

import pytest

from app.exams import service as exams
from tests.exams.conftest import GRACE
from tests.exams.helpers import answer, items, right_and_wrong, start
from tests.factories import choice_ids, log_in, question_id

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


@pytest.fixture
def ann(app, client, make_user):  # type: ignore[no-untyped-def]
    app.state.clock = lambda: T0
    user = make_user("ann")
    log_in(client, "ann")
    return client, user.id


def _history(db, client, user_id: int) -> None:  # type: ignore[no-untyped-def]
    """A practice answer, a note read and a submitted exam."""
    qid = question_id(db, "3")
    right, _ = choice_ids(db, "3")
    client.post(f"/questions/{qid}", data={"choice": str(right)})
    client.post("/notes/tensorrt-note-2/read")
    attempt_id = start(db, user_id, T0 - timedelta(hours=1))
    first = items(db, attempt_id)[0]
    answer(db, attempt_id, user_id, 1, [right_and_wrong(first)[1]], T0 - timedelta(minutes=58))
    with db.session_scope(write=True) as session:
        exams.submit(session, attempt_id, user_id, T0 - timedelta(minutes=55), GRACE)


def test_the_export_holds_everything_recorded_about_the_learner(ann, seeded):
    client, user_id = ann
    _history(seeded, client, user_id)
    assert 'href="/account/export"' in client.get("/account").text
    response = client.get("/account/export")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["content-disposition"] == (
        'attachment; filename="studyhall-ann-2026-12-03.json"'
    )
    assert response.headers["cache-control"] == "no-store"
    data = response.json()
    assert data["format"] == "studyhall.learner/1"
    assert data["account"]["username"] == "ann" and data["account"]["role"] == "learner"
    assert "password" not in str(data["account"])
    assert [(a["source"], a["correct"]) for a in data["answers"]] == [
        ("exam", False),
        ("practice", True),
    ]
    assert len(data["review_cards"]) == 2
    (attempt,) = data["exam_attempts"]
    assert attempt["status"] == "submitted" and len(attempt["items"]) == 7
    assert attempt["items"][0]["correct"] is False and attempt["items"][0]["stem"]
    assert [n["note"] for n in data["notes_read"]] == ["tensorrt-note-2"]


def test_a_learner_with_no_history_exports_an_account_and_empty_lists(ann, seeded):
    client, _ = ann
    data = client.get("/account/export").json()
    assert data["account"]["username"] == "ann"
    assert data["answers"] == data["review_cards"] == data["exam_attempts"] == []
    assert data["notes_read"] == []


def test_nobody_exports_another_learners_data(ann, user_client, seeded):
    client, user_id = ann
    _history(seeded, client, user_id)
    bob = user_client("bob").get("/account/export").json()
    assert bob["account"]["username"] == "bob"
    assert bob["answers"] == bob["review_cards"] == bob["exam_attempts"] == bob["notes_read"] == []


def test_guests_are_sent_to_log_in(client, seeded):
    response = client.get("/account/export", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_the_export_is_documented_as_json(client):
    operation = client.get("/openapi.json").json()["paths"]["/account/export"]["get"]
    assert "application/json" in operation["responses"]["200"]["content"]


def test_the_export_holds_the_study_day_settings_as_the_account_page_sets_them(ann, seeded):
    client, _ = ann
    assert client.get("/account/export").json()["account"]["study_day"] == {
        "time_zone": None,
        "new_per_day": 20,
        "reviews_per_day": 200,
    }
    data = {"time_zone": "Europe/Berlin", "new_per_day": "5", "reviews_per_day": "50"}
    assert client.post("/account/study-day", data=data, follow_redirects=False).status_code == 303
    assert client.get("/account/export").json()["account"]["study_day"] == {
        "time_zone": "Europe/Berlin",
        "new_per_day": 5,
        "reviews_per_day": 50,
    }


def test_each_exported_answer_names_the_walk_it_was_given_in(ann, seeded):
    client, _ = ann
    start = client.get("/topics/engine-building-refit/practice", follow_redirects=False)
    address = start.headers["location"]
    qid = int(address.split("?")[0].rsplit("/", 1)[1])
    key = next(k for k in "1234567" if question_id(seeded, k) == qid)
    client.post(address, data={"choice": str(choice_ids(seeded, key)[0])})
    client.post(f"/questions/{qid}", data={"choice": str(choice_ids(seeded, key)[0])})
    answers = client.get("/account/export").json()["answers"]
    assert [a["walk"] for a in answers] == ["topic:engine-building-refit", None]
