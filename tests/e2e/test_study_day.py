"""The study day in a real browser: the time zone comes from the browser at log-in, the
limits are set (and refused) on the account page, and the review page says when the day's
limit is reached."""

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, select, update

from app.accounts.models import User
from app.progress.models import ReviewCard
from tests.e2e.support import (
    CALIBRATION_STEM,
    CALIBRATION_WRONG,
    Account,
    assert_accessible,
    assert_no_horizontal_scroll,
    choose,
    log_in,
    open_question,
)


@pytest.fixture
def auckland(new_context: Callable[..., Any]) -> Page:
    """A browser whose clock says Pacific/Auckland."""
    return new_context(timezone_id="Pacific/Auckland").new_page()


@pytest.fixture
def make_due(database_url: str) -> Iterator[Callable[[str], None]]:
    """Make every review card of a user due an hour ago (the server's clock is real)."""
    engine = create_engine(database_url)

    def due(username: str) -> None:
        user_id = select(User.id).where(User.username == username).scalar_subquery()
        with engine.begin() as conn:
            conn.execute(
                update(ReviewCard)
                .where(ReviewCard.user_id == user_id)
                .values(due_at=datetime.now(UTC) - timedelta(hours=1))
            )

    yield due
    engine.dispose()


def _save(page: Page, new: str, reviews: str) -> None:
    settings = page.get_by_role("region", name="Your study day")
    settings.get_by_label("New questions a day").fill(new)
    settings.get_by_label("Reviews a day").fill(reviews)
    settings.get_by_role("button", name="Save study day").click()


def test_the_zone_comes_from_the_browser_and_bad_limits_are_refused(
    auckland: Page, create_account: Callable[..., Account]
) -> None:
    page = auckland
    log_in(page, create_account("zone"), "/account")
    zone = page.get_by_label("Time zone")
    expect(zone).to_have_value("Pacific/Auckland")  # taken at log-in
    _save(page, "20", "lots")
    error = page.get_by_role("alert")
    expect(error).to_contain_text("Your study day was not saved, and nothing changed")
    expect(error).to_be_focused()
    expect(
        page.get_by_text("Enter the reviews a day as a whole number from 0 to 9999.")
    ).to_be_visible()
    expect(page.get_by_label("Reviews a day")).to_have_attribute("aria-invalid", "true")
    assert_accessible(page, "study day refused")
    zone.select_option("America/Los_Angeles")
    _save(page, "10", "150")
    expect(page.get_by_text("Your study day was saved.")).to_be_visible()
    expect(page.get_by_label("Time zone")).to_have_value("America/Los_Angeles")
    expect(page.get_by_label("Reviews a day")).to_have_value("150")
    assert_accessible(page, "study day saved")
    page.screenshot(path="/tmp/queue-account-desktop.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 800})
    assert_no_horizontal_scroll(page, "account page on a phone")
    page.screenshot(path="/tmp/queue-account-phone.png", full_page=True)


def test_the_review_page_says_the_day_is_done_and_leads_to_the_limit(
    page: Page, create_account: Callable[..., Account], make_due: Callable[[str], None]
) -> None:
    account = create_account("done")
    log_in(page, account, "/account")
    _save(page, "0", "200")  # no new questions today
    open_question(page, CALIBRATION_STEM)
    choose(page, CALIBRATION_WRONG)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Not quite.")).to_be_visible()
    make_due(account.username)

    page.goto("/review")
    status = page.locator("#review-status")
    expect(status).to_have_text(
        "Done for today: 1 more is due; your limit is 0 new questions a day "
        "— change it on your account page."
    )
    expect(page.get_by_role("heading", name="Done for today")).to_be_visible()
    assert_accessible(page, "review, done for today")
    page.screenshot(path="/tmp/queue-review-done-desktop.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 800})
    assert_no_horizontal_scroll(page, "review done on a phone")
    page.screenshot(path="/tmp/queue-review-done-phone.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})

    status.get_by_role("link", name="change it on your account page").click()
    expect(page).to_have_url(re.compile(r"/account#study-day-heading$"))
    _save(page, "20", "200")
    page.goto("/review")
    expect(page.locator(".eyebrow")).to_have_text(re.compile(r"^Review · 1 of 1 today"))
    expect(page.locator("#review-status")).to_have_text("1 question due for review now")
    page.screenshot(path="/tmp/queue-review-desktop.png", full_page=True)
