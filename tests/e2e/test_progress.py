"""A learner's progress in a real browser: the dashboard, reached from the home page, changes
with answers and stays accessible and phone-readable; so does the review page."""

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    TOPIC,
    assert_accessible,
    assert_no_horizontal_scroll,
    choose,
    log_in,
    open_question,
)


@pytest.fixture
def learner(page: Page, create_account: Callable[..., object]) -> Page:
    log_in(page, create_account("learner"), "/progress")  # type: ignore[arg-type]
    return page


def test_the_dashboard_changes_after_an_answer_and_stays_accessible(learner: Page) -> None:
    page = learner
    expect(
        page.get_by_role("heading", name="Your progress starts with your first answer")
    ).to_be_visible()
    assert_accessible(page, "empty dashboard")
    open_question(page, CALIBRATION_STEM)
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    page.goto("/")
    page.get_by_role("link", name="See your progress").click()
    topic = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name=TOPIC))
    expect(topic.get_by_role("meter")).to_have_attribute("value", "100")
    expect(topic).to_contain_text("latest answers right: 1 of 1 (100%)")
    expect(page.get_by_text("1 day in a row")).to_be_visible()
    assert_accessible(page, "dashboard with an answer")
    page.goto("/review")
    expect(page.get_by_role("heading", name="All caught up")).to_be_visible()
    assert_accessible(page, "review, nothing due")


@pytest.mark.parametrize("width", [390, 320])
def test_the_dashboard_fits_a_phone(learner: Page, width: int) -> None:
    page = learner
    page.set_viewport_size({"width": width, "height": 800})
    open_question(page, CALIBRATION_STEM)
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    page.goto("/progress")
    expect(page.get_by_role("heading", name="Topics, weakest first")).to_be_visible()
    assert_no_horizontal_scroll(page, f"dashboard at {width} px")
