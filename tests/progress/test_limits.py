"""Daily limits of the review queue and the learner's day, in their own time zone."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from app.accounts.models import User
from app.content.models import Question
from app.progress import queries, service
from app.progress.limits import Limits, allowance, held_by
from app.web import zones
from tests.factories import choice_ids, log_in, question_id


@pytest.mark.parametrize(
    ("due_reviews", "due_new", "done", "new_done", "served"),
    [
        (0, 50, 0, 0, (0, 20)),  # an exam's 50 questions: 20 new today
        (0, 50, 20, 20, (0, 0)),  # the 20 taken up: the rest wait
        (250, 50, 0, 0, (200, 0)),  # reviews first, up to the review limit
        (190, 50, 0, 0, (190, 10)),  # new ones fill what is left of it
        (10, 50, 195, 5, (5, 0)),  # what was done today counts
        (3, 2, 0, 0, (3, 2)),  # under both limits: everything
    ],
)
def test_the_queue_serves_reviews_first_then_new_ones_within_the_limits(
    due_reviews, due_new, done, new_done, served
):
    assert allowance(Limits(), due_reviews, due_new, done, new_done) == served


def test_the_limit_that_holds_questions_back_is_named():
    assert held_by(Limits(), due_reviews=40, done=200, new_done=0) == "reviews"
    assert held_by(Limits(), due_reviews=0, done=20, new_done=20) == "new"
    assert held_by(Limits(new=20, reviews=25), due_reviews=0, done=20, new_done=5) == "reviews"
    assert allowance(Limits(new=0, reviews=0), 5, 5, 0, 0) == (0, 0)


@pytest.mark.parametrize(
    ("zone", "now", "start", "end"),
    [
        # 23:30 on 3 December in Auckland (UTC+13 in summer) is 10:30 UTC the same day
        ("Pacific/Auckland", "2026-12-03T10:30", "2026-12-02T11:00", "2026-12-03T11:00"),
        ("Pacific/Auckland", "2026-12-03T11:05", "2026-12-03T11:00", "2026-12-04T11:00"),
        # 23:30 on 3 December in Los Angeles (UTC-8) is 07:30 UTC on 4 December
        ("America/Los_Angeles", "2026-12-04T07:30", "2026-12-03T08:00", "2026-12-04T08:00"),
        ("America/Los_Angeles", "2026-12-04T08:05", "2026-12-04T08:00", "2026-12-05T08:00"),
        ("UTC", "2026-12-03T23:59", "2026-12-03T00:00", "2026-12-04T00:00"),
    ],
)
def test_a_learners_day_runs_from_their_midnight_to_the_next(zone, now, start, end):
    moment = datetime.fromisoformat(now).replace(tzinfo=UTC)
    assert zones.day_start(moment, zone) == datetime.fromisoformat(start).replace(tzinfo=UTC)
    assert zones.day_end(moment, zone) == datetime.fromisoformat(end).replace(tzinfo=UTC)


def _learner(make_user, db, name: str, zone: str, new: int, reviews: int = 200) -> int:  # type: ignore[no-untyped-def]
    user = make_user(name)
    with db.session_scope(write=True) as session:
        session.execute(
            update(User)
            .where(User.id == user.id)
            .values(time_zone=zone, new_per_day=new, reviews_per_day=reviews)
        )
    return user.id


@pytest.mark.parametrize(
    ("zone", "before_midnight"),
    [
        ("Pacific/Auckland", datetime(2026, 12, 3, 10, 30, tzinfo=UTC)),
        ("America/Los_Angeles", datetime(2026, 12, 4, 7, 30, tzinfo=UTC)),
    ],
)
def test_new_questions_taken_up_before_the_learners_midnight_count_until_it(
    seeded, make_user, zone, before_midnight
):
    """Five questions answered once; a limit of 2 new a day, taken up at 23:30 local time:
    the other three wait until the learner's midnight, not UTC's."""
    there = _learner(make_user, seeded, "ann", zone, new=2)
    utc = _learner(make_user, seeded, "bob", "UTC", new=2)
    qids = [question_id(seeded, key) for key in "12345"]
    first = before_midnight - timedelta(hours=1)
    with seeded.session_scope(write=True) as session:
        for user_id in (there, utc):
            for qid in qids:
                service.review(session, user_id, qid, False, first)
    with seeded.session_scope() as session:
        status, served = queries.review_queue(session, there, before_midnight, zone, 10)
    assert (status.due_now, status.waiting, len(served)) == (2, 3, 2)
    with seeded.session_scope(write=True) as session:
        for user_id in (there, utc):
            for qid in served:
                service.review(session, user_id, qid, True, before_midnight)
    with seeded.session_scope() as session:
        late = queries.review_status(session, there, before_midnight + timedelta(minutes=1), zone)
        after = before_midnight + timedelta(minutes=35)  # 00:05 local, a new day
        morning = queries.review_status(session, there, after, zone)
        same_day_in_utc = queries.review_status(session, utc, after, "UTC")
    assert late.done_for_today and (late.waiting, late.held_by) == (3, "new")
    assert late.done_today == 2
    # the two taken up are due again (reviews now), and two more new ones are released
    assert (morning.due_now, morning.reviews, morning.waiting, morning.done_today) == (4, 2, 1, 0)
    assert (same_day_in_utc.due_now, same_day_in_utc.waiting) == (2, 3)  # UTC: still 3 Dec


def test_an_exams_questions_are_released_a_few_new_a_day(seeded, make_user):
    """The flood: every question of an exam answered once at the same moment, none reviewed
    since; with 3 new a day (20 by default), 3 come back today and 3 more tomorrow."""
    ann = _learner(make_user, seeded, "ann", "UTC", new=3)
    with seeded.session_scope() as session:
        qids = list(session.scalars(select(Question.id).order_by(Question.id)))
    finished = datetime(2026, 12, 3, 20, 0, tzinfo=UTC)
    answers = [service.Answer(qid, 1, [], False, finished, source="exam") for qid in qids]
    with seeded.session_scope(write=True) as session:
        service.record_exam(session, ann, answers, finished)
    evening = finished + timedelta(hours=1)
    with seeded.session_scope() as session:
        status, served = queries.review_queue(session, ann, evening, "UTC", 50)
    assert (status.due_now, status.waiting, len(served)) == (3, len(qids) - 3, 3)
    with seeded.session_scope(write=True) as session:
        for qid in served:
            service.review(session, ann, qid, True, evening)
    with seeded.session_scope() as session:
        night = queries.review_status(session, ann, evening + timedelta(minutes=1), "UTC")
        tomorrow = queries.review_status(session, ann, evening + timedelta(hours=4), "UTC")
    assert (night.due_now, night.waiting) == (0, len(qids) - 3)
    assert (tomorrow.due_now - tomorrow.reviews, tomorrow.waiting) == (3, len(qids) - 6)


def test_the_review_page_says_when_the_days_limit_is_reached(client, seeded, make_user, app):
    ann = _learner(make_user, seeded, "ann", "UTC", new=20, reviews=1)
    log_in(client, "ann")
    now = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
    app.state.clock = lambda: now
    q1, q2 = question_id(seeded, "1"), question_id(seeded, "2")
    with seeded.session_scope(write=True) as session:
        for qid in (q1, q2):
            service.review(session, ann, qid, False, now - timedelta(days=2))
            service.review(session, ann, qid, False, now - timedelta(days=1))
    page = client.get("/review").text
    assert "1 question due for review now" in page and "Review · 1 of 1 today" in page
    right, _ = choice_ids(seeded, "1")
    client.post(f"/review/{q1}", data={"choice": str(right)})
    page = client.get("/review").text
    assert "Done for today:</strong> 1 more is due; your limit is 1 review a day — <a" in page
    assert 'href="/account#study-day-heading">change it on your account page</a>' in page
    assert "<h2>Done for today</h2>" in page
    home = client.get("/").text
    assert "Done for today:</strong> 1 more is due" in home


def test_each_page_shows_one_due_count_and_the_review_shows_its_place_today(
    client, seeded, make_user, app
):
    ann = _learner(make_user, seeded, "ann", "UTC", new=20)
    log_in(client, "ann")
    now = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
    app.state.clock = lambda: now
    with seeded.session_scope(write=True) as session:
        for key in "1234":  # four answered once, one of them due later today
            service.review(session, ann, question_id(seeded, key), key != "4", now)
    now += timedelta(minutes=5)
    for path in ("/", "/progress", "/review"):
        page = client.get(path).text
        assert page.count("due for review now") == 1, path
        assert "1 question due for review now" in page and "later today" not in page, path
    review = client.get("/review").text
    assert "Review · 1 of 1 today" in review
    assert not re.search(r"Question \d+ of \d+", review)  # not the question's place in its set


def test_due_times_are_shown_in_the_learners_zone(client, seeded, make_user, app):
    ann = _learner(make_user, seeded, "ann", "Pacific/Auckland", new=20)
    log_in(client, "ann")
    now = datetime(2026, 12, 3, 10, 30, tzinfo=UTC)
    app.state.clock = lambda: now
    with seeded.session_scope(write=True) as session:
        service.review(session, ann, question_id(seeded, "1"), True, now)  # due in 10 minutes
    page = client.get("/review").text
    assert '<time datetime="2026-12-03T10:40:00+00:00">2026-12-03 23:40 NZDT</time>' in page
