"""A learner's own Anki deck: what they answered wrong or flagged, theirs alone, and never a
question of an exam they have open."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from app.content.models import Question
from app.db import Database
from app.exams import answers, service
from app.exams.deck import DECK_NAME, learner_deck
from app.exporters.anki import deck_id
from app.progress.models import PracticeAnswer
from tests.exams.conftest import GRACE
from tests.exams.helpers import answer, items, right_and_wrong, start
from tests.exporters.conftest import read_apkg
from tests.factories import SEED_SET, a_question, a_set, choice_ids, load, log_in, question_id

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


def _keys(db: Database, user_id: int) -> list[str]:
    with db.session_scope() as session:
        deck = learner_deck(session, user_id)
    return [] if deck is None else [n.fields["Id"].rsplit("/", 1)[1] for n in read_apkg(deck).notes]


def _practise(
    db: Database, user_id: int, key: str, correct: bool, set_slug: str = SEED_SET
) -> None:
    with db.session_scope(write=True) as session:
        qid = question_id(db, key, set_slug)
        session.add(PracticeAnswer(user_id=user_id, question_id=qid, question_revision=1,
                                   selected_ids=[], is_correct=correct, answered_at=T0))  # fmt: skip


def _key(db: Database, qid: int | None) -> str:
    with db.session_scope() as session:
        return session.scalars(select(Question.key).where(Question.id == qid)).one()


def _flag(db: Database, attempt_id: int, user_id: int, position: int) -> None:
    with db.session_scope(write=True) as session:
        answers.set_flag(session, attempt_id, user_id, position, True, T0, GRACE)


def _submit(db: Database, attempt_id: int, user_id: int) -> None:
    with db.session_scope(write=True) as session:
        service.submit(session, attempt_id, user_id, T0 + timedelta(minutes=5), GRACE)


def test_questions_ever_answered_wrong_in_practice(seeded, learner):
    assert _keys(seeded, learner) == []
    _practise(seeded, learner, "3", correct=False)
    _practise(seeded, learner, "3", correct=True)  # right since: still in the deck
    _practise(seeded, learner, "4", correct=True)
    _practise(seeded, learner, "5", correct=False)
    assert _keys(seeded, learner) == ["3", "5"]


def test_wrong_and_flagged_questions_of_a_submitted_exam(seeded, learner):
    attempt_id = start(seeded, learner, T0)
    first, second, third = items(seeded, attempt_id)[:3]
    answer(seeded, attempt_id, learner, 1, [right_and_wrong(first)[1]], T0)
    answer(seeded, attempt_id, learner, 2, [right_and_wrong(second)[0]], T0)
    _flag(seeded, attempt_id, learner, 3)
    _submit(seeded, attempt_id, learner)
    expected = sorted([_key(seeded, first.question_id), _key(seeded, third.question_id)], key=int)
    assert sorted(_keys(seeded, learner), key=int) == expected


def test_no_question_of_an_open_exam_reaches_the_deck(seeded, learner):
    attempt_id = start(seeded, learner, T0)
    first, second = items(seeded, attempt_id)[:2]
    missed_before = _key(seeded, first.question_id)
    _practise(seeded, learner, missed_before, correct=False)  # missed before the exam began
    _flag(seeded, attempt_id, learner, 2)
    answer(seeded, attempt_id, learner, 2, [right_and_wrong(second)[1]], T0)
    load(seeded, a_set(a_question("outside")))  # a question outside the exam, for contrast
    _practise(seeded, learner, "outside", correct=False, set_slug="basics")
    assert _keys(seeded, learner) == ["outside"]
    _submit(seeded, attempt_id, learner)  # submitted: its keys may be studied now
    assert set(_keys(seeded, learner)) == {
        "outside",
        missed_before,
        _key(seeded, second.question_id),
    }


def test_retired_questions_stay_out(seeded, learner):
    _practise(seeded, learner, "3", correct=False)
    _practise(seeded, learner, "5", correct=False)
    with seeded.session_scope(write=True) as session:
        session.execute(update(Question).where(Question.key == "3").values(retired_at=T0))
    assert _keys(seeded, learner) == ["5"]


def test_a_learner_gets_only_their_own_questions(seeded, learner, make_user):
    bob = make_user("bob").id
    _practise(seeded, learner, "3", correct=False)
    _practise(seeded, bob, "4", correct=False)
    attempt_id = start(seeded, bob, T0)
    _flag(seeded, attempt_id, bob, 1)
    _submit(seeded, attempt_id, bob)
    assert _keys(seeded, learner) == ["3"]
    assert "3" not in _keys(seeded, bob)


@pytest.fixture
def ann(app, client, seeded, make_user):  # type: ignore[no-untyped-def]
    app.state.clock = lambda: T0
    user = make_user("ann")
    log_in(client, "ann")
    return client, user.id


def test_the_account_page_offers_the_deck_and_it_downloads(ann, seeded):
    client, _ = ann
    qid = question_id(seeded, "3")
    _, wrong = choice_ids(seeded, "3")
    client.post(f"/questions/{qid}", data={"choice": str(wrong[0])})
    page = client.get("/account").text
    assert 'href="/account/anki-deck"' in page and "ever answered wrong" in page
    response = client.get("/account/anki-deck")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-apkg"
    assert response.headers["content-disposition"] == (
        'attachment; filename="studyhall-ann-missed-and-flagged-2026-12-03.apkg"'
    )
    assert response.headers["cache-control"] == "no-store"
    deck = read_apkg(response.content)
    assert deck.decks == {deck_id(DECK_NAME): "Studyhall::My missed and flagged questions"}
    (note,) = deck.notes
    assert note.fields["Id"].endswith("/3") and "Right answer" in note.fields["Answer"]


def test_nothing_missed_gives_a_message_not_an_empty_file(ann, user_client, seeded):
    client, _ = ann
    response = client.get("/account/anki-deck", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].endswith("done=deck-empty")
    page = client.get(response.headers["location"])
    assert "You have no missed or flagged questions yet" in page.text
    qid = question_id(seeded, "3")
    client.post(f"/questions/{qid}", data={"choice": str(choice_ids(seeded, "3")[1][0])})
    bob = user_client("bob")  # ann's misses are not bob's
    assert bob.get("/account/anki-deck", follow_redirects=False).status_code == 303


def test_guests_are_sent_to_log_in(client):
    response = client.get("/account/anki-deck", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_the_deck_is_documented_as_a_download(client):
    operation = client.get("/openapi.json").json()["paths"]["/account/anki-deck"]["get"]
    assert "application/x-apkg" in operation["responses"]["200"]["content"]
