"""Reloading never repeats an action; error pages keep the header; touch screens lose key hints.

Each check runs in real Chromium, with JavaScript on and off where the two differ.
"""

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, func, select

from app.accounts.models import ApiToken, User
from app.progress.models import PracticeAnswer
from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    Account,
    choose,
    expect_logged_in,
    log_in,
    open_question,
)


@pytest.fixture
def count(database_url: str) -> Any:
    """Count a user's rows in the running server's database."""
    engine = create_engine(database_url)

    def rows(model: Any, username: str) -> int:
        with engine.connect() as conn:
            user_id = select(User.id).where(User.username == username).scalar_subquery()
            query = select(func.count()).select_from(model).where(model.user_id == user_id)
            return conn.execute(query).scalar_one()

    yield rows
    engine.dispose()


@pytest.fixture(params=[True, False], ids=["with-javascript", "without-javascript"])
def learner_page(request, browser, base_url, create_account):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=base_url, java_script_enabled=request.param)
    page = context.new_page()
    account = create_account("reload")
    log_in(page, account)
    yield page, account
    context.close()


def test_reloading_a_checked_answer_records_it_once(learner_page, count) -> None:
    page, account = learner_page
    open_question(page, CALIBRATION_STEM)
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    for _ in range(2):
        page.reload()
        expect(page.get_by_role("heading", level=1)).to_have_text(CALIBRATION_STEM)
    assert count(PracticeAnswer, account.username) == 1


def test_reloading_after_creating_a_token_creates_no_second_one(learner_page, count) -> None:
    page, account = learner_page
    page.get_by_label("Token name").fill("laptop")
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token")).to_be_visible()
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your account")
    expect(page.locator("#new-token")).to_have_count(0)  # shown once only
    assert count(ApiToken, account.username) == 1


@pytest.mark.parametrize("path", ["/no/such/page", "/questions/999999", "/admin/users"])
def test_error_pages_show_the_logged_in_header(
    page: Page, create_account: Callable[..., Account], path: str
) -> None:
    account = create_account("lost")
    log_in(page, account)
    response = page.goto(path)
    assert response is not None and response.status in (403, 404)
    expect_logged_in(page, account.username)


@pytest.mark.browser_context_args(
    has_touch=True, is_mobile=True, viewport={"width": 390, "height": 844}
)
def test_the_keyboard_hint_is_hidden_on_touch_screens(page: Page) -> None:
    open_question(page, CALIBRATION_STEM)
    expect(page.get_by_role("button", name="Check answer")).to_be_visible()
    expect(page.get_by_text("to choose, Enter to check")).to_be_hidden()


def test_the_keyboard_hint_shows_with_a_mouse(page: Page) -> None:
    open_question(page, CALIBRATION_STEM)
    expect(page.get_by_text("to choose, Enter to check")).to_be_visible()
