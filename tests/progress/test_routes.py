"""Answering practice questions: grading from the database, recording once per check."""

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from app.accounts.models import User, UserSession
from app.progress.models import PracticeAnswer
from tests.factories import choice_ids, count_rows, import_file, log_in, question_id


def refuse_commit(conn) -> None:  # type: ignore[no-untyped-def]
    """Fail a COMMIT the way a busy or broken database does: the transaction is rolled back."""
    conn.connection.dbapi_connection.rollback()
    raise OperationalError("COMMIT", {}, Exception("database is locked"))


@pytest.fixture
def ann(client, make_user):  # type: ignore[no-untyped-def]
    make_user("ann")
    log_in(client, "ann")
    return client


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


def test_answering_a_missing_question_is_404(client, seeded):
    assert client.post("/questions/999999", data={"choice": "1"}).status_code == 404


def test_logged_in_practice_answers_are_recorded_and_guest_answers_are_not(
    client, make_user, seeded
):
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    guest = client.post(f"/questions/{qid}", data={"choice": str(right)})
    assert "Log in</a> to keep a record" in guest.text
    assert count_rows(seeded, PracticeAnswer) == 0
    make_user("ann")
    log_in(client, "ann")
    client.post(f"/questions/{qid}", data={"choice": str(right)})
    client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]})
    assert count_rows(seeded, PracticeAnswer, PracticeAnswer.is_correct.is_(True)) == 2


def test_a_checked_answer_redirects_to_a_page_that_only_reads(ann, seeded):
    """POST/redirect/GET: reloading the result (a GET) never records the answer again."""
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    response = ann.post(f"/questions/{qid}", data={"choice": str(right)}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/questions/{qid}?choice={right}#result-heading"
    for _ in range(3):  # the reloads
        page = ann.get(response.headers["location"])
        assert page.status_code == 200 and "Correct!" in page.text
    assert count_rows(seeded, PracticeAnswer) == 1


def test_the_htmx_answer_is_recorded_once(ann, seeded):
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    ann.post(f"/questions/{qid}", data={"choice": str(right)}, headers={"HX-Request": "true"})
    ann.get(f"/questions/{qid}")
    assert count_rows(seeded, PracticeAnswer) == 1


def test_a_failed_commit_shows_an_error_page_and_saves_nothing(app, ann, seeded):
    """The commit happens before the response: when it fails, the learner is told."""
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")

    for engine in [app.state.db.engine]:
        event.listen(engine, "commit", refuse_commit)
    try:
        response = ann.post(f"/questions/{qid}", data={"choice": str(right)})
        api = ann.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]})
    finally:
        for engine in [app.state.db.engine]:
            event.remove(engine, "commit", refuse_commit)
    assert response.status_code == 503 and "nothing was saved" in response.text
    assert "Correct!" not in response.text
    assert response.headers["retry-after"]
    assert api.status_code == 503 and "nothing was saved" in api.json()["detail"]
    assert count_rows(seeded, PracticeAnswer) == 0


def test_a_failed_commit_leaves_no_half_made_account(app, client, db):
    """Sign-up writes a user, a session and a counted attempt: all of them or none."""

    event.listen(app.state.db.engine, "commit", refuse_commit)
    try:
        response = client.post(
            "/signup", data={"username": "zed", "password": "a long and unusual passphrase"}
        )
    finally:
        event.remove(app.state.db.engine, "commit", refuse_commit)
    assert response.status_code == 503
    assert "studyhall_session" not in response.cookies
    assert count_rows(db, User) == count_rows(db, UserSession) == 0


FIXED = """Fixed — Questions and Answers
Question 1: Which ones apply?
- first (Correct answer)
- second
- third
- All of the above
Correct answer: first
Because.
"""


def test_an_answer_key_fix_grades_the_very_next_check(app, ann, db):
    """Grading reads the key from the database, so a cached page cannot grade with an old key."""
    cached = app.state.cache
    cached.ttl = 60  # the page itself stays cached; the answer key does not
    import_file(db, FIXED.encode(), "fixed.txt")
    qid = question_id(db, "1", "fixed")
    first, others = choice_ids(db, "1", "fixed")
    assert "Correct!" in ann.post(f"/questions/{qid}", data={"choice": str(first)}).text
    fixed = FIXED.replace("- first (Correct answer)", "- first").replace(
        "- second", "- second (Correct answer)"
    )
    import_file(
        db, fixed.replace("Correct answer: first", "Correct answer: second").encode(), "fixed.txt"
    )
    assert "Not quite." in ann.post(f"/questions/{qid}", data={"choice": str(first)}).text
    second = others[0]
    assert ann.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [second]}).json()[
        "correct"
    ]
