"""While a learner has an exam open, practice keeps the key of its questions to itself.

Every way practice grades (the check API, a question page's answer and its graded address,
a review, a walk) refuses a question the open exam-mode attempt holds; other questions,
other learners, practice-mode attempts and closed attempts are graded as always.
"""

import pytest
from sqlalchemy import select

from app.exams.models import AttemptItem
from app.progress.models import PracticeAnswer
from tests.factories import choice_key, count_rows

SEALED = (
    "You have an exam open that includes this question; its answer shows when you submit the exam."
)
HTMX = {"HX-Request": "true"}


def _custom(client, count: int, mode: str = "exam") -> int:  # type: ignore[no-untyped-def]
    topics = [t["slug"] for t in client.get("/api/v1/topics").json()]
    data = {"topics": topics, "count": str(count), "minutes": "60", "mode": mode}
    response = client.post("/exams/custom", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    return int(response.headers["location"].rsplit("/", 1)[1])


def _held(db, attempt_id: int) -> int:  # type: ignore[no-untyped-def]
    """The question an attempt holds (its first one)."""
    with db.session_scope() as session:
        return session.scalars(
            select(AttemptItem.question_id).where(AttemptItem.attempt_id == attempt_id)
        ).first()


@pytest.fixture
def sitting(seeded, user_client):  # type: ignore[no-untyped-def]
    """A learner with a one-question exam open: the question it holds and one it does not."""
    ann = user_client("ann")
    attempt_id = _custom(ann, 1)
    held = _held(seeded, attempt_id)
    free = next(qid for qid in _question_ids(ann) if qid != held)
    return ann, attempt_id, held, free


def _question_ids(client) -> list[int]:  # type: ignore[no-untyped-def]
    return [q["id"] for q in client.get("/api/v1/questions").json()["items"]]


def _check(client, db, qid: int):  # type: ignore[no-untyped-def]
    return client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [choice_key(db, qid)]})


def test_the_check_api_refuses_a_question_of_the_open_exam(seeded, sitting):
    ann, _, held, free = sitting
    refused = _check(ann, seeded, held)
    assert refused.status_code == 409 and refused.json() == {"detail": SEALED}
    assert count_rows(seeded, PracticeAnswer) == 0  # nothing recorded
    assert _check(ann, seeded, free).status_code == 200


def test_the_practice_page_refuses_the_answer_and_says_why(seeded, sitting):
    ann, _, held, free = sitting
    right = str(choice_key(seeded, held))
    page = ann.post(f"/questions/{held}", data={"choice": right}, follow_redirects=False)
    assert page.status_code == 409 and SEALED in page.text
    assert 'id="result-heading"' not in page.text and "Right answer" not in page.text
    block = ann.post(f"/questions/{held}", data={"choice": right}, headers=HTMX)
    assert (
        block.status_code == 409
        and SEALED in block.text
        and 'id="result-heading"' not in block.text
    )
    graded = ann.get(f"/questions/{held}?choice={right}")
    assert graded.status_code == 409 and SEALED in graded.text and "Right answer" not in graded.text
    assert ann.get(f"/questions/{held}").status_code == 200  # the question itself shows
    assert count_rows(seeded, PracticeAnswer) == 0
    other = ann.post(f"/questions/{free}", data={"choice": str(choice_key(seeded, free))})
    assert other.status_code == 200 and 'id="result-heading"' in other.text


def test_reviews_and_walks_refuse_it_too(seeded, sitting):
    ann, _, held, _ = sitting
    right = str(choice_key(seeded, held))
    walk = f"/study/{held}?plan={held}&topic=inference-optimization-tensorrt"
    for url in (f"/review/{held}", walk):
        posted = ann.post(url, data={"choice": right}, follow_redirects=False)
        assert posted.status_code == 409 and SEALED in posted.text, url
        joint = "&" if "?" in url else "?"
        shown = ann.get(f"{url}{joint}choice={right}")
        assert shown.status_code == 409 and SEALED in shown.text, url
    assert count_rows(seeded, PracticeAnswer) == 0


def test_other_learners_and_guests_are_graded(seeded, sitting, user_client, client):
    _, _, held, _ = sitting
    assert _check(user_client("bob"), seeded, held).status_code == 200
    assert _check(client, seeded, held).status_code == 200


def test_a_practice_mode_attempt_keeps_nothing_back(seeded, user_client):
    bob = user_client("bob")
    held = _held(seeded, _custom(bob, 1, mode="practice"))
    assert _check(bob, seeded, held).status_code == 200


def test_the_answer_shows_once_the_exam_is_submitted(seeded, sitting):
    ann, attempt_id, held, _ = sitting
    assert _check(ann, seeded, held).status_code == 409
    assert ann.post(f"/attempts/{attempt_id}/submit").status_code == 200
    assert _check(ann, seeded, held).status_code == 200
