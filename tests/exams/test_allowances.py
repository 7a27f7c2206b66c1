"""Extra time: an admin gives a learner a multiplier; their timed attempts last that long."""

from datetime import timedelta

import pytest

from tests.exams.conftest import START
from tests.exams.helpers import attempt, start
from tests.exams.test_routes import Clock


@pytest.fixture
def clients(seeded, user_client, app):  # type: ignore[no-untyped-def]
    app.state.exam_clock = Clock()
    return user_client("ann"), user_client("root", role="admin")


def test_an_admin_gives_extra_time_and_new_attempts_last_longer(clients, seeded):
    ann, admin = clients
    response = admin.post(
        "/exams/extra-time", data={"username": "ann", "multiplier": "1.5"}, follow_redirects=False
    )
    assert response.status_code == 303
    page = admin.get(response.headers["location"]).text
    assert "The extra time was saved." in page and "1.5 times" in page
    attempt_id = int(
        ann.post("/exams/tensorrt-practice-exam/start", follow_redirects=False)
        .headers["location"]
        .rsplit("/", 1)[1]
    )
    assert attempt(seeded, attempt_id).deadline_at == START + timedelta(minutes=15)
    admin.post("/exams/extra-time", data={"username": "ann", "multiplier": "1"})
    assert "Nobody has extra time." in admin.get("/exams/extra-time").text


def test_learners_cannot_give_extra_time(clients):
    ann, _ = clients
    assert ann.get("/exams/extra-time").status_code == 403
    response = ann.post("/exams/extra-time", data={"username": "ann", "multiplier": "2"})
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"username": "ann", "multiplier": "3"}, "Choose 1, 1.25, 1.5 or 2"),
        ({"username": "ann", "multiplier": "abc"}, "Choose 1, 1.25, 1.5 or 2"),
        ({"username": "ann", "multiplier": ""}, "Choose 1, 1.25, 1.5 or 2"),
        ({"username": "nobody", "multiplier": "2"}, "There is no user called"),
    ],
)
def test_bad_extra_time_forms_are_shown_again(clients, data, message):
    _, admin = clients
    response = admin.post("/exams/extra-time", data=data)
    assert response.status_code == 422
    assert message in response.text


def test_without_an_allowance_the_time_is_the_exams(seeded, learner):
    assert attempt(seeded, start(seeded, learner)).deadline_at == START + timedelta(minutes=10)
