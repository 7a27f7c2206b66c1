"""The study day on the account page: daily limits of new questions and reviews, time zone."""

import pytest
from sqlalchemy import select

from app.accounts.models import User
from tests.factories import PASSWORD, log_in


def _study_day(db, username: str = "ann") -> tuple[int, int, str | None]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        user = session.scalars(select(User).where(User.username == username)).one()
        return user.new_per_day, user.reviews_per_day, user.time_zone


@pytest.fixture
def ann(client, make_user):  # type: ignore[no-untyped-def]
    make_user("ann")
    log_in(client, "ann")
    return client


def test_a_new_account_has_ankis_limits_and_no_zone_yet(ann, db):
    assert _study_day(db) == (20, 200, None)
    page = ann.get("/account").text
    assert 'value="20"' in page and 'value="200"' in page
    assert "<option selected>UTC</option>" in page and "data-browser-zone" in page


def test_the_study_day_is_saved_and_shown_again(ann, db):
    data = {"new_per_day": " 5 ", "reviews_per_day": "0", "time_zone": "Pacific/Auckland"}
    response = ann.post("/account/study-day", data=data, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/account?done=study-day-saved")
    assert _study_day(db) == (5, 0, "Pacific/Auckland")
    page = ann.get(response.headers["location"]).text
    assert "Your study day was saved." in page
    assert "<option selected>Pacific/Auckland</option>" in page and 'value="5"' in page


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("new_per_day", "", "Enter the new questions a day as a whole number from 0 to 9999."),
        ("new_per_day", "-1", "Enter the new questions a day as a whole number from 0 to 9999."),
        ("new_per_day", "10000", "Enter the new questions a day as a whole number from 0 to 9999."),
        ("new_per_day", "2.5", "Enter the new questions a day as a whole number from 0 to 9999."),
        ("new_per_day", "٣", "Enter the new questions a day as a whole number from 0 to 9999."),
        ("reviews_per_day", "lots", "Enter the reviews a day as a whole number from 0 to 9999."),
        ("reviews_per_day", "99999", "Enter the reviews a day as a whole number from 0 to 9999."),
        ("time_zone", "Mars/Olympus_Mons", "“Mars/Olympus_Mons” is not a time zone we know"),
        ("time_zone", "", "An empty name is not a time zone we know"),
        ("time_zone", "localtime", "“localtime” is not a time zone we know"),
        ("time_zone", "../../etc/passwd", "“../../etc/passwd” is not a time zone we know"),
    ],
)
def test_a_bad_value_is_refused_clearly_and_nothing_is_saved(ann, db, field, value, message):
    data = {"new_per_day": "7", "reviews_per_day": "70", "time_zone": "Europe/Paris"}
    response = ann.post("/account/study-day", data={**data, field: value})
    assert response.status_code == 422
    assert message in response.text
    assert "Your study day was not saved, and nothing changed" in response.text
    assert f'id="{field}-error"' in response.text and 'aria-invalid="true"' in response.text
    assert _study_day(db) == (20, 200, None)


def test_every_bad_value_is_named_at_once_and_the_typed_values_kept(ann, db):
    data = {"new_per_day": "x", "reviews_per_day": "y", "time_zone": "Nowhere"}
    page = ann.post("/account/study-day", data=data).text
    for field in ("new_per_day", "reviews_per_day", "time_zone"):
        assert f'id="{field}-error"' in page
    assert 'value="x"' in page and 'value="y"' in page


def test_guests_are_sent_to_log_in(client, db):
    data = {"new_per_day": "5", "reviews_per_day": "50", "time_zone": "UTC"}
    response = client.post("/account/study-day", data=data, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_log_in_takes_the_browsers_zone_only_while_the_account_has_none(client, make_user, db):
    make_user("ann")
    form = {"username": "ann", "password": PASSWORD}
    client.post("/login", data={**form, "time_zone": "Nowhere/Special"})
    assert _study_day(db)[2] is None  # an unknown zone is ignored, the log-in goes on
    client.post("/login", data={**form, "time_zone": "America/Los_Angeles"})
    assert _study_day(db)[2] == "America/Los_Angeles"
    client.post("/login", data={**form, "time_zone": "Asia/Tokyo"})
    assert _study_day(db)[2] == "America/Los_Angeles"  # chosen once, kept


def test_sign_up_takes_the_browsers_zone(client, db):
    data = {"username": "ann", "password": PASSWORD, "time_zone": "Europe/Berlin"}
    assert client.post("/signup", data=data, follow_redirects=False).status_code == 303
    assert _study_day(db)[2] == "Europe/Berlin"
