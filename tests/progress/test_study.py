"""Study next: a short session of due reviews and unseen questions of the weakest topics."""

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from app.progress import service, study
from app.progress.models import PracticeAnswer
from tests.factories import choice_ids, count_rows, log_in, question_id, tags

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


def test_a_session_interleaves_reviews_and_new_questions_and_fills_from_either():
    assert study.mix([1, 2], [7, 8, 9]) == (1, 7, 2, 8, 9)
    assert study.mix(list(range(1, 13)), [50, 51], size=6) == (1, 50, 2, 51, 3, 4)
    assert study.mix(list(range(1, 13)), list(range(50, 60)), size=10)[:4] == (1, 50, 2, 51)
    assert study.mix([], [4, 5], size=1) == (4,) and study.mix([], []) == ()


def _give(db, user_id: int, key: str, right: bool, at: datetime) -> None:  # type: ignore[no-untyped-def]
    good, bad = choice_ids(db, key)
    with db.session_scope(write=True) as session:
        service.check_answer(
            session, user_id, question_id(db, key), [good if right else bad[0]], at
        )


def test_the_plan_takes_due_reviews_and_unseen_questions_of_the_weakest_topics(seeded, make_user):
    user = make_user("ann")
    _give(seeded, user.id, "7", True, T0 - timedelta(minutes=1))  # seen, due in a few minutes
    _give(seeded, user.id, "3", False, T0 - timedelta(days=1))  # due again by now
    with seeded.session_scope() as session:
        plan = study.plan(session, user.id, T0, "UTC")
    assert plan[0] == question_id(seeded, "3")
    assert question_id(seeded, "7") not in plan  # neither due nor unseen
    assert len(plan) == len(set(plan)) <= study.SESSION_SIZE


def test_a_learner_with_no_history_starts_with_unseen_questions(seeded, make_user):
    user = make_user("ann")
    with seeded.session_scope() as session:
        plan = study.plan(session, user.id, T0, "UTC")
    assert plan and len(plan) <= study.SESSION_SIZE


@pytest.fixture
def ann(app, client, make_user):  # type: ignore[no-untyped-def]
    app.state.clock = lambda: T0
    make_user("ann")
    log_in(client, "ann")
    return client


def test_the_button_starts_a_session_that_runs_to_a_summary(ann, seeded):
    assert 'href="/study"' in ann.get("/").text and 'href="/study"' in ann.get("/progress").text
    start = ann.get("/study", follow_redirects=False)
    assert start.status_code == 303
    first = urlsplit(start.headers["location"])
    plan = parse_qs(first.query)["plan"][0]
    ids = [int(x) for x in plan.split(".")]
    page = ann.get(start.headers["location"]).text
    assert f"question 1 of {len(ids)}" in page
    assert f'action="/study/{ids[0]}?plan={plan}#result-heading"' in page
    choice = next(t["value"] for t in tags(page, "input") if t.get("name") == "choice")
    answered = ann.post(
        f"/study/{ids[0]}?plan={plan}", data={"choice": choice}, follow_redirects=False
    )
    assert answered.status_code == 303
    assert answered.headers["location"].startswith(f"/study/{ids[0]}?plan={plan}&choice=")
    result = ann.get(answered.headers["location"]).text
    assert "Next question" in result and f"/study/{ids[1]}?plan={plan}" in result
    assert count_rows(seeded, PracticeAnswer) == 1
    last = ann.get(f"/study/{ids[-1]}?plan={plan}").text
    assert f"/study/done?plan={plan}" in last
    done = ann.get(f"/study/done?plan={plan}").text
    assert "Session done" in done and "not answered yet" in done


def test_an_htmx_answer_in_a_session_shows_the_next_step(ann, seeded):
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    block = ann.post(
        f"/study/{qid}?plan={qid}", data={"choice": str(right)}, headers={"HX-Request": "true"}
    ).text
    assert block.lstrip().startswith('<div id="practice"')
    assert f"/study/done?plan={qid}" in block and "Finish the session" in block


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/study/1", 422),  # no plan
        ("/study/1?plan=", 422),
        ("/study/1?plan=1..2", 422),
        ("/study/1?plan=" + ".".join(["1"] * 21), 422),  # more than twenty
        ("/study/1?plan=2.3", 404),  # not in the session
        ("/study/999999?plan=999999", 404),
        ("/study/done?plan=x", 422),
    ],
)
def test_bad_session_addresses_are_refused_clearly(ann, seeded, path, status):
    response = ann.get(path)
    assert response.status_code == status and "<html" in response.text


def test_nothing_to_study_says_so(ann, seeded, make_user):
    from sqlalchemy import select

    from app.accounts.models import User
    from app.content.models import Question

    with seeded.session_scope() as session:
        user_id = session.scalars(select(User.id).where(User.username == "ann")).one()
        ids = session.scalars(select(Question.id)).all()
    with seeded.session_scope(write=True) as session:
        for qid in ids:  # everything seen, nothing due yet
            service.review(session, user_id, qid, True, T0 - timedelta(minutes=1))
            service.review(session, user_id, qid, True, T0 - timedelta(seconds=30))
    page = ann.get("/study")
    assert page.status_code == 200 and "Nothing to study right now" in page.text


def test_guests_are_sent_to_log_in(client, seeded):
    response = client.get("/study", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_the_summary_address_takes_no_answers(ann, seeded):
    assert ann.post("/study/done?plan=1").status_code == 405
