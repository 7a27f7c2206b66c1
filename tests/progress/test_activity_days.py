"""The activity calendar and the streak count days in the learner's own time zone."""

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import update

from app.accounts.models import User
from app.progress import queries
from tests.factories import log_in
from tests.progress.test_dashboard import answer

AUCKLAND = "Pacific/Auckland"  # UTC+13 in December
LOS_ANGELES = "America/Los_Angeles"  # UTC-8 in December


def _local(zone: str, text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone))


def _learner(make_user, db, zone: str) -> int:  # type: ignore[no-untyped-def]
    user = make_user("ann")
    with db.session_scope(write=True) as session:
        session.execute(update(User).where(User.id == user.id).values(time_zone=zone))
    return user.id


# Each learner answers late in their evening and early in their morning, across their midnight;
# in UTC those answers fall on other days (all on 2 December for Auckland).
CASES = [
    (
        AUCKLAND,
        ["2026-12-02T23:30", "2026-12-03T00:30", "2026-12-03T08:00"],
        "2026-12-03T09:00",
        {date(2026, 12, 2): 1, date(2026, 12, 3): 2},
        2,
    ),
    (
        LOS_ANGELES,
        ["2026-12-01T18:00", "2026-12-02T20:00", "2026-12-02T23:50", "2026-12-03T00:10"],
        "2026-12-03T21:00",
        {date(2026, 12, 1): 1, date(2026, 12, 2): 2, date(2026, 12, 3): 1},
        3,
    ),
]


@pytest.mark.parametrize(("zone", "answered", "now", "per_day", "streak"), CASES)
def test_answers_land_on_the_learners_local_day_and_the_streak_crosses_midnight(
    seeded, make_user, zone, answered, now, per_day, streak
):
    user_id = _learner(make_user, seeded, zone)
    for key, moment in enumerate(answered, start=1):
        answer(seeded, user_id, str(key), True, _local(zone, moment))
    with seeded.session_scope() as session:
        found, _ = queries.activity(session, user_id, zone)
        view = queries.dashboard(session, user_id, _local(zone, now), weeks=1, zone=zone)
    assert found == per_day
    assert (view.streak_days, view.days_studied, view.answers) == (
        streak,
        len(per_day),
        len(answered),
    )
    (week,) = view.weeks
    assert {d.day: d.answers for d in week if d.answers} == {
        day: n for day, n in per_day.items() if day >= week[0].day
    }
    assert week[3].day == date(2026, 12, 3) and week[4].answers is None  # Thursday is today


def test_an_answer_a_moment_before_local_midnight_stays_on_that_day(seeded, make_user):
    user_id = _learner(make_user, seeded, AUCKLAND)
    before = datetime(2026, 12, 2, 10, 59, 59, 999900, tzinfo=UTC)  # 23:59:59.9999 there
    answer(seeded, user_id, "1", True, before)
    answer(seeded, user_id, "2", True, datetime(2026, 12, 2, 11, 0, tzinfo=UTC))
    with seeded.session_scope() as session:
        found, _ = queries.activity(session, user_id, AUCKLAND)
    assert found == {date(2026, 12, 2): 1, date(2026, 12, 3): 1}


@pytest.mark.parametrize(("zone", "answered", "now", "per_day", "streak"), CASES)
def test_the_page_and_the_api_show_the_local_days(
    app, client, seeded, make_user, zone, answered, now, per_day, streak
):
    user_id = _learner(make_user, seeded, zone)
    for key, moment in enumerate(answered, start=1):
        answer(seeded, user_id, str(key), True, _local(zone, moment))
    app.state.clock = lambda: _local(zone, now).astimezone(UTC)
    log_in(client, "ann")
    html = client.get("/progress").text
    assert f"{streak} days</strong> in a row" in html
    activity = client.get("/api/v1/progress?weeks=1").json()["activity"]
    assert activity["streak_days"] == streak and activity["days_studied"] == len(per_day)
    assert activity["days"][-1] == {"date": "2026-12-03", "answers": per_day[date(2026, 12, 3)]}
