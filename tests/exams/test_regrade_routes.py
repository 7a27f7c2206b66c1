"""Regrading in the browser and through the API: the editor offers it after a key fix, the
dry run writes nothing, the regrade changes the learner's result, and only authors may."""

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.accounts.models import User
from app.content.models import Choice, QuestionRevision
from app.db import Database
from app.exams import service
from app.exams.models import Attempt, Regrade
from tests.accounts.test_token_scopes import _make_token, script  # noqa: F401
from tests.content.test_editor_routes import _form
from tests.exams.conftest import GRACE, START
from tests.exams.helpers import answer, items, right_and_wrong, start
from tests.factories import a_question, a_set, load, question_id


def _user_id(db: Database, name: str) -> int:
    with db.session_scope() as session:
        return session.scalars(select(User.id).where(User.username == name)).one()


@pytest.fixture
def taken(seeded: Database, user_client):  # type: ignore[no-untyped-def]
    """A learner's submitted exam whose first answer the old key calls wrong."""
    learner = user_client("lee")
    user_id = _user_id(seeded, "lee")
    attempt_id = start(seeded, user_id)
    first = items(seeded, attempt_id)[0]
    _, wrong = right_and_wrong(first)
    answer(seeded, attempt_id, user_id, 1, [wrong], START + timedelta(minutes=1))
    with seeded.session_scope(write=True) as session:
        service.submit(session, attempt_id, user_id, START + timedelta(minutes=2), GRACE)
        position = session.scalars(select(Choice.position).where(Choice.id == wrong)).one()
    return {
        "learner": learner,
        "attempt": attempt_id,
        "qid": first.question_id,
        "position": position,
    }


def _fix_key(author, taken) -> str:  # type: ignore[no-untyped-def]
    form = _form(author, taken["qid"])
    form |= {"right": [str(taken["position"])], "note": "The key was wrong"}
    saved = author.post(f"/author/questions/{taken['qid']}/edit", data=form, follow_redirects=False)
    assert saved.status_code == 303
    return saved.headers["location"]


def test_a_key_fix_is_offered_a_regrade_whose_dry_run_writes_nothing(seeded, user_client, taken):
    author = user_client("ann", role="author")
    with seeded.session_scope() as session:
        before = session.get_one(Attempt, taken["attempt"]).percent
    location = _fix_key(author, taken)
    assert location == f"/author/questions/{taken['qid']}/regrade?done=question-key-changed"
    dry = author.get(location)
    assert dry.status_code == 200 and "with different right answers" in dry.text
    assert "<strong>1 attempt</strong> change score" in dry.text
    with seeded.session_scope() as session:
        assert session.get_one(Attempt, taken["attempt"]).percent == before
        assert session.scalar(select(Regrade.id)) is None


def test_other_saves_offer_no_regrade(seeded, user_client, taken):
    author = user_client("ann", role="author")
    form = _form(author, taken["qid"]) | {"explanation": "Clearer.", "note": "Wording"}
    saved = author.post(f"/author/questions/{taken['qid']}/edit", data=form, follow_redirects=False)
    assert saved.headers["location"].endswith("?done=question-saved")
    assert "/regrade" not in author.get(saved.headers["location"]).text


def test_the_regrade_changes_the_learners_result_and_dashboard(seeded, user_client, taken):
    author = user_client("ann", role="author")
    _fix_key(author, taken)
    with seeded.session_scope() as session:
        before = session.get_one(Attempt, taken["attempt"]).percent
    done = author.post(f"/author/questions/{taken['qid']}/regrade", follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"].endswith("?done=regraded")
    page = author.get(done.headers["location"])
    assert "Regrades of this question" in page.text and "nothing to regrade" in page.text
    with seeded.session_scope() as session:
        after = session.get_one(Attempt, taken["attempt"]).percent
    assert after is not None and before is not None and after > before
    result = taken["learner"].get(f"/attempts/{taken['attempt']}").text
    assert f"{before:.0f}% → {after:.0f}%" in result and "Regraded on" in result
    dashboard = taken["learner"].get("/progress").text
    assert "Exam results regraded" in dashboard and f"{before:.0f}% → {after:.0f}%" in dashboard
    again = author.post(f"/author/questions/{taken['qid']}/regrade", follow_redirects=False)
    assert again.headers["location"].endswith("?done=regraded-nothing")


def test_learners_and_guests_may_not_regrade(seeded, user_client, taken):
    path = f"/author/questions/{taken['qid']}/regrade"
    assert taken["learner"].get(path).status_code == 403
    assert taken["learner"].post(path).status_code == 403
    author = user_client("ann", role="author")
    assert author.get("/author/questions/999999/regrade").status_code == 404
    assert author.post("/author/questions/999999/regrade").status_code == 404
    with seeded.session_scope() as session:
        assert session.scalar(select(Regrade.id)) is None


def test_the_api_counts_then_regrades_with_an_author_token(seeded, user_client, script, taken):  # noqa: F811
    author = user_client("ann", role="author")
    _fix_key(author, taken)
    api = script(_make_token(author, "author"))
    path = f"/api/v1/author/questions/{taken['qid']}/regrade"
    dry = api.post(path + "?dry_run=true")
    assert dry.status_code == 200
    body = dry.json()
    with seeded.session_scope() as session:
        newest = session.scalar(
            select(func.max(QuestionRevision.number)).where(
                QuestionRevision.question_id == taken["qid"]
            )
        )
    assert body == {
        "question_id": taken["qid"],
        "dry_run": True,
        "revision": newest,
        "attempts_changed": 1,
        "outcomes_flipped": body["outcomes_flipped"],
        "answers_changed": 1,
    }
    with seeded.session_scope() as session:
        assert session.scalar(select(Regrade.id)) is None
    ran = api.post(path + "?dry_run=false").json()
    assert (ran["dry_run"], ran["revision"], ran["attempts_changed"], ran["answers_changed"]) == (
        False,
        newest,
        1,
        1,
    )
    with seeded.session_scope() as session:
        regrade = session.scalars(select(Regrade)).one()
        assert (regrade.revision, regrade.attempts, regrade.answers) == (newest, 1, 1)
    assert api.post(path + "?dry_run=false").json()["attempts_changed"] == 0
    learner = script(_make_token(taken["learner"], "practise"))
    assert learner.post(path + "?dry_run=true").status_code == 403
    assert api.post(path + "?dry_run=maybe").status_code == 422


def test_a_key_fix_of_a_question_nobody_answered_has_nothing_to_regrade(seeded, user_client, taken):
    load(seeded, a_set(a_question("1"), slug="unanswered"))
    author = user_client("ann", role="author")
    fresh = {"qid": question_id(seeded, "1", "unanswered"), "position": 2}
    location = _fix_key(author, fresh)
    assert location.endswith("/regrade?done=question-key-changed")
    page = author.get(location)
    assert "with different right answers" in page.text
    assert "there is nothing to regrade" in page.text and 'class="button">Regrade' not in page.text
