"""The exam navigator saves the question shown before it opens another, so a choice made
but not saved yet (JavaScript off, or a practice-mode exam) is not lost."""

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.support import Account, assert_accessible, log_in
from tests.e2e.test_exam_journey import QUESTION_URL, choices, nav_item, start_exam


def expect_position(page: Page, position: int) -> None:
    expect(page).to_have_url(QUESTION_URL)
    expect(page.locator(".exam-progress")).to_have_text(re.compile(rf"^Question {position} of"))


def test_without_javascript_the_navigator_keeps_the_choice(
    no_js_page: Page, page: Page, create_account: Callable[..., Account]
) -> None:
    account = create_account("navnojs")
    start_exam(no_js_page, account)
    choices(no_js_page).nth(1).click()
    chosen = no_js_page.locator("input[name=choice]").nth(1).get_attribute("value")
    no_js_page.get_by_label("Flag for review").check()
    nav_item(no_js_page, 3).click()
    expect_position(no_js_page, 3)
    expect(nav_item(no_js_page, 1)).to_have_class(re.compile("is-answered"))
    expect(nav_item(no_js_page, 1)).to_have_class(re.compile("is-flagged"))

    nav_item(no_js_page, 1).click()
    expect_position(no_js_page, 1)
    expect(no_js_page.locator(f"input[name=choice][value='{chosen}']")).to_be_checked()
    expect(no_js_page.get_by_label("Flag for review")).to_be_checked()


def test_in_a_practice_exam_the_navigator_keeps_the_choice(
    page: Page, create_account: Callable[..., Account]
) -> None:
    log_in(page, create_account("navpractice"), next_path="/exams")
    page.get_by_role("group", name="Topics").get_by_role("checkbox").first.check()
    page.get_by_label("Number of questions").fill("3")
    page.get_by_label("Practice: feedback after each question").check()
    page.get_by_role("button", name="Start my exam").click()
    expect_position(page, 1)
    choices(page).first.click()
    chosen = page.locator("input[name=choice]").first.get_attribute("value")
    assert_accessible(page, "a practice exam's question with the navigator")

    nav_item(page, 2).click()
    expect_position(page, 2)
    expect(nav_item(page, 1)).to_have_class(re.compile("is-answered"))
    nav_item(page, 1).click()
    expect_position(page, 1)
    expect(page.locator(f"input[name=choice][value='{chosen}']")).to_be_checked()
    expect(
        page.get_by_role("heading", name=re.compile(r"^(Correct!|Not quite\.)$"))
    ).to_be_visible()
