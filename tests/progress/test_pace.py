"""Rating by pace: the question page carries the time it was shown, checked and capped."""

from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Card, Rating
from sqlalchemy import select

from app.progress import service
from app.progress.models import PracticeAnswer, ReviewCard
from app.web.timing import MAX_SECONDS, elapsed, stamp
from tests.factories import choice_ids, log_in, question_id, tags

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("correct", "seconds", "usual", "expected"),
    [
        (False, 3.0, 20.0, Rating.Again),  # wrong is wrong, however fast
        (True, None, 20.0, Rating.Good),  # not measured
        (True, 3.0, None, Rating.Good),  # no usual time yet
        (True, 10.0, 20.0, Rating.Easy),  # half the usual time
        (True, 11.0, 20.0, Rating.Good),
        (True, 39.0, 20.0, Rating.Good),
        (True, 40.0, 20.0, Rating.Hard),  # twice the usual time
        (True, MAX_SECONDS, 20.0, Rating.Good),  # at the cap: the page was left open
    ],
)
def test_a_right_answer_is_rated_by_its_pace_against_the_usual_time(
    correct, seconds, usual, expected
):
    assert service.rating(correct, seconds, usual) == expected


@pytest.mark.parametrize(
    ("shown", "expected"),
    [
        (None, None),
        ("", None),
        ("abc", None),
        ("-5000", None),
        ("1" * 40, None),
        (stamp(T0 + timedelta(seconds=5)), None),  # shown in the future: refused
        (stamp(T0 - timedelta(seconds=12)), 12.0),
        (stamp(T0 - timedelta(days=3)), MAX_SECONDS),  # capped
    ],
)
def test_the_shown_stamp_measures_nothing_bad_and_caps_long_times(shown, expected):
    assert elapsed(shown, T0) == expected


def _give(db, user_id: int, key: str, right: bool, at: datetime, seconds: float | None):  # type: ignore[no-untyped-def]
    good, bad = choice_ids(db, key)
    with db.session_scope(write=True) as session:
        service.check_answer(
            session, user_id, question_id(db, key), [good if right else bad[0]], at, seconds
        )


def _card(db, user_id: int, key: str) -> ReviewCard:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        return session.scalars(
            select(ReviewCard).where(
                ReviewCard.user_id == user_id, ReviewCard.question_id == question_id(db, key)
            )
        ).one()


def test_the_usual_time_is_the_median_of_recent_timed_answers(seeded, make_user):
    user = make_user("ann")
    with seeded.session_scope() as session:
        assert service.usual_seconds(session, user.id) is None
    for n, seconds in enumerate((10.0, 20.0, 30.0, 40.0)):
        _give(seeded, user.id, "1", True, T0 + timedelta(minutes=n), seconds)
    _give(seeded, user.id, "1", True, T0 + timedelta(minutes=5), None)  # untimed: not counted
    with seeded.session_scope() as session:
        assert service.usual_seconds(session, user.id) is None  # four timed answers: too few
    _give(seeded, user.id, "1", True, T0 + timedelta(minutes=6), 50.0)
    with seeded.session_scope() as session:
        assert service.usual_seconds(session, user.id) == 30.0


@pytest.mark.parametrize(("seconds", "rating"), [(5.0, Rating.Easy), (80.0, Rating.Hard)])
def test_a_fast_answer_is_scheduled_as_easy_and_a_slow_one_as_hard(
    seeded, make_user, seconds, rating
):
    user = make_user("ann")
    for n in range(5):  # a usual time of 20 s
        _give(seeded, user.id, "1", True, T0 + timedelta(minutes=n), 20.0)
    _give(seeded, user.id, "2", True, T0 + timedelta(hours=1), seconds)
    expected, _ = service.SCHEDULER.review_card(
        Card(card_id=1, due=T0), rating, review_datetime=T0 + timedelta(hours=1)
    )
    card = _card(seeded, user.id, "2")
    assert card.due_at == expected.due and card.stability == pytest.approx(expected.stability)


def test_the_question_page_carries_the_time_it_was_shown_and_the_answer_measures_it(
    app, client, seeded, make_user
):
    clock = {"now": T0}
    app.state.clock = lambda: clock["now"]
    make_user("ann")
    log_in(client, "ann")
    qid = question_id(seeded, "3")
    for shown_at in (T0, T0 + timedelta(minutes=1)):  # a kept page gets the time afresh
        clock["now"] = shown_at
        page = client.get(f"/questions/{qid}").text
        (field,) = [t for t in tags(page, "input") if t.get("name") == "shown"]
        assert field["value"] == stamp(shown_at)
    clock["now"] = T0 + timedelta(minutes=1, seconds=42)
    right, _ = choice_ids(seeded, "3")
    client.post(f"/questions/{qid}", data={"choice": str(right), "shown": field["value"]})
    client.post(f"/questions/{qid}", data={"choice": str(right), "shown": "-1"})  # unmeasured
    with seeded.session_scope() as session:
        kept = session.scalars(select(PracticeAnswer.seconds).order_by(PracticeAnswer.id)).all()
    assert kept == [pytest.approx(42.0), None]


def test_guests_pages_carry_no_time(client, seeded):
    page = client.get(f"/questions/{question_id(seeded, '3')}").text
    assert not [t for t in tags(page, "input") if t.get("name") == "shown"]
