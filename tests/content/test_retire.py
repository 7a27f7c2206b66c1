"""Retiring a question: it leaves practice, its set's list and new exams; its history stays."""

from datetime import timedelta

from sqlalchemy import select

from app.accounts.models import User
from app.content.models import Question, QuestionSet
from app.db import Database, utcnow
from app.exams.sampling import ordered_question_ids
from app.progress.queries import review_queue
from tests.factories import a_question, a_set, choice_ids, load, question_id


def _place(db: Database, qid: int) -> tuple[int, int]:
    with db.session_scope() as session:
        question = session.get_one(Question, qid)
        count = session.scalar(
            select(QuestionSet.question_count).where(QuestionSet.id == question.set_id)
        )
        return question.ordinal, count or 0


def test_a_retired_question_leaves_practice_lists_and_exams_and_comes_back(user_client, db):
    load(db, a_set(a_question("1"), a_question("2"), a_question("3")))
    first, second = question_id(db, "1", "basics"), question_id(db, "2", "basics")
    author, learner = user_client("ann", role="author"), user_client("lee")
    for qid, key in ((first, "1"), (second, "2")):  # both answered: both come up for review
        learner.post(f"/questions/{qid}", data={"choice": str(choice_ids(db, key, "basics")[1][0])})
    with db.session_scope() as session:
        learner_id = session.scalar(select(User.id).where(User.username == "lee"))
    assert (
        learner.post(f"/author/questions/{first}/retire", data={"retire": "yes"}).status_code == 403
    )
    assert (
        author.post(f"/author/questions/{first}/retire", data={"retire": "maybe"}).status_code
        == 422
    )
    response = author.post(
        f"/author/questions/{first}/retire", data={"retire": "yes"}, follow_redirects=False
    )
    assert response.headers["location"].endswith("?done=question-retired")

    assert _place(db, first) == (0, 2) and _place(db, second) == (1, 2)
    listing = learner.get("/sets/basics").text
    assert "Question 1?" not in listing and "Question 2?" in listing
    with db.session_scope() as session:
        assert first not in ordered_question_ids(session)
    page = learner.get(f"/questions/{first}")
    assert page.status_code == 200 and "The authors retired this question" in page.text
    assert "Check answer" not in page.text
    assert learner.get(f"/questions/{second}").text.count(f"/questions/{first}") == 0
    answer = learner.post(f"/questions/{first}", data={"choice": "1"})
    assert answer.status_code == 422 and "retired" in answer.text
    assert "Bring it back" in author.get(f"/author/questions/{first}/edit").text
    assert "Imported from bundle.txt" in author.get(f"/author/questions/{first}/history").text

    with db.session_scope() as session:
        status, due = review_queue(session, learner_id, utcnow() + timedelta(days=400), "UTC", 10)
    assert first not in due and status.due_now == len(due)

    author.post(f"/author/questions/{first}/retire", data={"retire": "no"})
    assert _place(db, first) == (1, 3) and _place(db, second) == (2, 3)
    assert "Question 1?" in learner.get("/sets/basics").text
