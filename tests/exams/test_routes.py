"""Exam pages: start, resume, answer with and without htmx, flag, summary, submit, results."""

from datetime import timedelta

import pytest

from app.exams.models import Attempt, AttemptItem
from tests.exams.conftest import EXAM, START
from tests.exams.helpers import attempt, items, right_and_wrong
from tests.factories import assert_only_owner_sees, count_rows, tags


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self):  # type: ignore[no-untyped-def]
        return self.now


@pytest.fixture
def clock(app) -> Clock:  # type: ignore[no-untyped-def]
    app.state.exam_clock = clock = Clock()
    return clock


@pytest.fixture
def ann(seeded, user_client, clock):  # type: ignore[no-untyped-def]
    return user_client("ann")


def start(client) -> int:  # type: ignore[no-untyped-def]
    response = client.post(f"/exams/{EXAM}/start", follow_redirects=False)
    assert response.status_code == 303
    return int(response.headers["location"].rsplit("/", 1)[1])


def test_the_exams_page_lists_the_seed_exam(client, seeded):
    html = client.get("/exams").text
    assert "TensorRT practice exam" in html
    assert "7 questions · 10 min · pass mark 70%" in html
    assert "Log in</a> to sit this exam" in html


def test_starting_needs_a_log_in(client, seeded):
    response = client.post(f"/exams/{EXAM}/start", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_start_opens_the_first_question_and_resume_returns_to_it(ann, seeded):
    attempt_id = start(ann)
    response = ann.get(f"/attempts/{attempt_id}", follow_redirects=False)
    assert response.headers["location"] == f"/attempts/{attempt_id}/questions/1"
    page = ann.get(f"/attempts/{attempt_id}/questions/1")
    assert page.status_code == 200
    assert "Question 1 of 7" in page.text
    assert 'data-countdown="600"' in page.text
    assert start(ann) == attempt_id
    assert "Resume" in ann.get("/exams").text


def test_save_and_next_without_javascript_keeps_the_answer_and_flag(ann, seeded):
    attempt_id = start(ann)
    right, _ = right_and_wrong(items(seeded, attempt_id)[0])
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1",
        data={"choice": str(right), "flagged": "1", "go": "next"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == f"/attempts/{attempt_id}/questions/2"
    saved = items(seeded, attempt_id)[0]
    assert saved.selected_ids == [right] and saved.flagged
    page = ann.get(f"/attempts/{attempt_id}/questions/1").text
    checked = [t for t in tags(page, "input") if "checked" in t]
    assert [t["name"] for t in checked] == ["choice", "flagged"]
    assert checked[0]["value"] == str(right)
    # resuming goes to the first unanswered question
    assert (
        ann.get(f"/attempts/{attempt_id}", follow_redirects=False)
        .headers["location"]
        .endswith("/questions/2")
    )


def test_the_navigator_saves_the_page_then_opens_the_question_named(ann, seeded):
    """Its numbers are buttons of the answer form: a choice not yet saved is kept."""
    attempt_id = start(ann)
    page = ann.get(f"/attempts/{attempt_id}/questions/1").text
    buttons = [t for t in tags(page, "button") if t.get("form") == "answer-form"]
    assert [b["value"] for b in buttons] == [str(n) for n in range(1, 8)]
    assert all(b["name"] == "go" and b["type"] == "submit" for b in buttons)
    right, _ = right_and_wrong(items(seeded, attempt_id)[0])
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1",
        data={"choice": str(right), "go": "5"},
        follow_redirects=False,
    )
    assert response.headers["location"] == f"/attempts/{attempt_id}/questions/5"
    assert items(seeded, attempt_id)[0].selected_ids == [right]
    # A number past the last question opens the last one.
    response = ann.post(
        f"/attempts/{attempt_id}/questions/5", data={"go": "999"}, follow_redirects=False
    )
    assert response.headers["location"] == f"/attempts/{attempt_id}/questions/7"


def test_the_navigator_in_the_grace_saves_and_says_so(ann, seeded, clock):
    attempt_id = start(ann)
    right, _ = right_and_wrong(items(seeded, attempt_id)[1])
    clock.now = START + timedelta(minutes=10, seconds=20)
    response = ann.post(
        f"/attempts/{attempt_id}/questions/2",
        data={"choice": str(right), "go": "1"},
        follow_redirects=False,
    )
    assert response.headers["location"] == f"/attempts/{attempt_id}/questions/1?saved=late"
    assert items(seeded, attempt_id)[1].selected_ids == [right]


def test_the_navigator_of_a_closed_attempt_saves_nothing(ann, seeded, clock):
    attempt_id = start(ann)
    right, _ = right_and_wrong(items(seeded, attempt_id)[0])
    clock.now = START + timedelta(minutes=10, seconds=31)
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1",
        data={"choice": str(right), "go": "3"},
        follow_redirects=False,
    )
    assert response.headers["location"] == f"/attempts/{attempt_id}?late=1"
    assert items(seeded, attempt_id)[0].selected_ids == []
    # Without a choice no answer was lost: the result only says the time ran out.
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1", data={"go": "3"}, follow_redirects=False
    )
    assert response.headers["location"] == f"/attempts/{attempt_id}?timeup=1"


def test_htmx_saves_a_choice_and_returns_the_navigator(ann, seeded):
    attempt_id = start(ann)
    right, _ = right_and_wrong(items(seeded, attempt_id)[2])
    response = ann.post(
        f"/attempts/{attempt_id}/questions/3",
        data={"choice": str(right)},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert "<html" not in response.text and 'id="exam-status"' in response.text
    assert "Saved." in response.text and "is-answered" in response.text
    assert items(seeded, attempt_id)[2].selected_ids == [right]


@pytest.mark.parametrize(
    ("data", "status"),
    [
        ({"choice": "abc"}, 422),
        ({"choice": "999999"}, 422),
        ({"choice": "1" * 12}, 422),
        ({"go": "sideways"}, 422),
        ({"go": "0"}, 422),
        ({"go": "1001"}, 422),
        ({"flagged": "x" * 10}, 422),
    ],
)
def test_bad_form_input_is_a_clear_4xx(ann, seeded, data, status):
    attempt_id = start(ann)
    response = ann.post(f"/attempts/{attempt_id}/questions/1", data=data, follow_redirects=False)
    assert response.status_code == status
    assert items(seeded, attempt_id)[0].selected_ids == []


@pytest.mark.parametrize(
    "url",
    [
        "/attempts/0",
        "/attempts/abc",
        "/attempts/99999999999",
        "/attempts/1/questions/0",
        "/attempts/1/questions/99",
        "/attempts/1/questions/x",
        "/attempts/1/review?show=bad",
    ],
)
def test_bad_addresses_are_4xx(ann, url):
    start(ann)
    assert ann.get(url, follow_redirects=False).status_code in (404, 422)


def test_unknown_exam_is_404(ann):
    assert ann.post("/exams/no-such-exam/start").status_code == 404
    assert ann.post("/exams/Bad%20Slug/start").status_code == 404


def test_two_choices_on_a_single_answer_question_are_refused(ann, seeded):
    attempt_id = start(ann)
    choices = [c["id"] for c in items(seeded, attempt_id)[0].snapshot["choices"][:2]]
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1", data={"choice": [str(c) for c in choices]}
    )
    assert response.status_code == 422
    assert "exactly one answer" in response.text


def test_summary_lists_unanswered_and_flagged_then_submit_shows_the_result(ann, seeded):
    attempt_id = start(ann)
    shown = items(seeded, attempt_id)
    for item in shown[:5]:
        right, _ = right_and_wrong(item)
        ann.post(f"/attempts/{attempt_id}/questions/{item.position}", data={"choice": str(right)})
    ann.post(f"/attempts/{attempt_id}/questions/6", data={"flagged": "1"})
    summary = ann.get(f"/attempts/{attempt_id}/summary").text
    assert "You answered 5 of 7 questions." in summary
    assert "Flagged for review" in summary and "Question 6" in summary
    response = ann.post(f"/attempts/{attempt_id}/submit", follow_redirects=False)
    assert response.headers["location"] == f"/attempts/{attempt_id}"
    result = ann.get(f"/attempts/{attempt_id}").text
    assert "Passed: 71%" in result
    assert "5 of 7 points" in result
    assert "Learn more in the notes" in result
    assert "/notes/tensorrt-note-2#working-with-mixed-precision" in result
    wrong = ann.get(f"/attempts/{attempt_id}/review?show=wrong").text
    assert wrong.count('class="review-item"') == 0
    blank = ann.get(f"/attempts/{attempt_id}/review?show=unanswered").text
    assert blank.count('class="review-item"') == 2
    flagged = ann.get(f"/attempts/{attempt_id}/review?show=flagged").text
    assert flagged.count('class="review-item"') == 1
    # a closed attempt's question pages lead to the result; saves are refused
    page = ann.get(f"/attempts/{attempt_id}/questions/1", follow_redirects=False)
    assert page.headers["location"] == f"/attempts/{attempt_id}"
    late = ann.post(
        f"/attempts/{attempt_id}/questions/7", data={"choice": "1"}, follow_redirects=False
    )
    assert late.status_code == 303
    assert "passed, 71%" in ann.get("/exams").text


def test_an_answer_after_the_deadline_and_grace_is_refused_with_a_message(ann, seeded, clock):
    attempt_id = start(ann)
    right, _ = right_and_wrong(items(seeded, attempt_id)[0])
    clock.now = START + timedelta(minutes=10, seconds=31)
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1", data={"choice": str(right)}, follow_redirects=False
    )
    assert response.status_code == 303
    assert response.headers["location"] == f"/attempts/{attempt_id}?late=1"
    page = ann.get(response.headers["location"]).text
    assert "was not saved" in page and "submitted when time ran out" in page
    assert items(seeded, attempt_id)[0].selected_ids == []
    assert attempt(seeded, attempt_id).submitted_at == START + timedelta(minutes=10)


def test_htmx_after_the_deadline_is_sent_to_the_result(ann, seeded, clock):
    attempt_id = start(ann)
    clock.now = START + timedelta(minutes=10, seconds=31)
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1", data={}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 409
    assert response.headers["HX-Redirect"].startswith(f"/attempts/{attempt_id}")


TIME_RAN_OUT = "Time ran out, so the exam was submitted with the answers you had saved."


@pytest.mark.parametrize("page", ["questions/2", "summary"])
def test_the_next_page_after_the_time_and_grace_is_the_result_saying_time_ran_out(
    ann, seeded, clock, page
):
    attempt_id = start(ann)
    clock.now = START + timedelta(minutes=10, seconds=31)
    response = ann.get(f"/attempts/{attempt_id}/{page}", follow_redirects=False)
    assert response.headers["location"] == f"/attempts/{attempt_id}?timeup=1"
    assert attempt(seeded, attempt_id).status == "expired"
    result = ann.get(response.headers["location"]).text
    assert TIME_RAN_OUT in result and "submitted when time ran out" in result
    # the banner is for the moment it happened, not for every later look at the result
    assert TIME_RAN_OUT not in ann.get(f"/attempts/{attempt_id}").text


def test_a_submitted_exam_opened_after_its_deadline_says_nothing_about_time(ann, seeded, clock):
    attempt_id = start(ann)
    ann.post(f"/attempts/{attempt_id}/submit")
    clock.now = START + timedelta(hours=3)
    response = ann.get(f"/attempts/{attempt_id}/questions/2", follow_redirects=False)
    assert response.headers["location"] == f"/attempts/{attempt_id}"


@pytest.mark.parametrize(("after", "time_up"), [(0, False), (1, True), (31, True)])
def test_a_submission_once_the_time_is_up_says_so(ann, seeded, clock, after, time_up):
    """The page's script submits when its clock reaches zero, in the grace or after it."""
    attempt_id = start(ann)
    clock.now = START + timedelta(minutes=10, seconds=after)
    response = ann.post(f"/attempts/{attempt_id}/submit", follow_redirects=False)
    query = "?timeup=1" if time_up else ""
    assert response.headers["location"] == f"/attempts/{attempt_id}{query}"
    assert (TIME_RAN_OUT in ann.get(response.headers["location"]).text) is time_up


def test_an_htmx_save_in_the_grace_says_it_came_after_the_time_and_counts(ann, seeded, clock):
    attempt_id = start(ann)
    right, _ = right_and_wrong(items(seeded, attempt_id)[0])
    clock.now = START + timedelta(minutes=10, seconds=20)
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1",
        data={"choice": str(right)},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert "Saved after the time ran out; it counts." in response.text
    assert "Saved." not in response.text
    clock.now = START + timedelta(minutes=11)
    ann.get(f"/attempts/{attempt_id}")
    assert attempt(seeded, attempt_id).score == 1


def test_a_save_without_javascript_in_the_grace_says_so_on_the_next_page(ann, seeded, clock):
    attempt_id = start(ann)
    right, _ = right_and_wrong(items(seeded, attempt_id)[0])
    clock.now = START + timedelta(minutes=10, seconds=5)
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1",
        data={"choice": str(right), "go": "next"},
        follow_redirects=False,
    )
    assert response.headers["location"] == f"/attempts/{attempt_id}/questions/2?saved=late"
    page = ann.get(response.headers["location"]).text
    assert "Saved after the time ran out; it counts." in page
    assert items(seeded, attempt_id)[0].selected_ids == [right]


def test_an_htmx_save_in_time_says_saved(ann, seeded, clock):
    attempt_id = start(ann)
    clock.now = START + timedelta(minutes=9, seconds=59)
    response = ann.post(
        f"/attempts/{attempt_id}/questions/1", data={}, headers={"HX-Request": "true"}
    )
    assert "Saved." in response.text and "after the time" not in response.text


@pytest.mark.parametrize(
    ("left", "message"),
    [
        (301, ""),
        (300, "Less than 5 minutes left."),
        (60, "Less than 1 minute left."),
        (0, "Time is up."),
    ],
)
def test_the_question_page_shows_the_warning_for_the_time_left(ann, seeded, clock, left, message):
    """Without a script the page, as the server renders it, carries the warning."""
    attempt_id = start(ann)
    clock.now = START + timedelta(minutes=10) - timedelta(seconds=left)
    page = ann.get(f"/attempts/{attempt_id}/questions/1").text
    shown = [t for t in tags(page, "p") if "data-countdown-announce" in t]
    assert len(shown) == 1
    assert f"data-countdown-announce>{message}</p>" in page


def test_another_learner_gets_404_and_cannot_save(ann, seeded, user_client):
    attempt_id = start(ann)
    bob = user_client("bob")
    for method, url, kwargs in [
        ("GET", f"/attempts/{attempt_id}/questions/1", {}),
        ("GET", f"/attempts/{attempt_id}/summary", {}),
        ("POST", f"/attempts/{attempt_id}/questions/1", {"data": {"flagged": "1"}}),
    ]:
        assert_only_owner_sees(ann, bob, method, url, **kwargs)
    assert bob.post(f"/attempts/{attempt_id}/submit").status_code == 404
    assert bob.get(f"/attempts/{attempt_id}", follow_redirects=False).status_code == 404
    assert attempt(seeded, attempt_id).status == "open"


def test_open_exam_pages_never_show_the_answer_key(ann, seeded):
    attempt_id = start(ann)
    shown = items(seeded, attempt_id)
    right, _ = right_and_wrong(shown[0])
    ann.post(f"/attempts/{attempt_id}/questions/1", data={"choice": str(right)})
    pages = [ann.get(f"/attempts/{attempt_id}/questions/{n}").text for n in range(1, 8)]
    pages.append(ann.get(f"/attempts/{attempt_id}/summary").text)
    pages.append(
        ann.post(
            f"/attempts/{attempt_id}/questions/1",
            data={"choice": str(right)},
            headers={"HX-Request": "true"},
        ).text
    )
    for item in shown:
        explanation = item.snapshot["explanation_html"]
        for page in pages:
            assert explanation[:60] not in page
            assert "Right answer" not in page and "is-correct" not in page


def test_attempt_rows_are_only_made_by_start(ann, seeded):
    start(ann)
    start(ann)
    assert count_rows(seeded, Attempt) == 1
    assert count_rows(seeded, AttemptItem) == 7


def test_the_exams_page_lists_each_weighted_exams_questions_per_topic(client, db):
    import json

    from tests.factories import a_bank, import_file

    document = a_bank({"alpha": 20, "beta": 20})
    document["exams"] = [
        {"slug": "w", "title": "Weighted", "question_count": 10, "topics": {"alpha": 3, "beta": 2}}
    ]
    import_file(db, json.dumps(document).encode(), "bank.json", threshold=0.99)
    html = client.get("/exams").text
    assert "Questions per topic" in html
    assert "<li>Alpha: 6</li><li>Beta: 4</li>" in html
