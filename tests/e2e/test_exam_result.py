"""The result of the 50-question mock exam: short enough to take in, a grid that jumps to each
question, items that open to their explanation, and the way on from there."""

import re
import subprocess
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.support import (
    Account,
    assert_accessible,
    assert_no_horizontal_scroll,
    log_in,
    new_password,
    unique_username,
)
from tests.servers import PROJECT_ROOT, studyhall_command

MOCK = "TensorRT full mock exam"
QUESTION_URL = re.compile(r"/attempts/\d+/questions/(\d+)$")
# This result with every question opened out measured 40,086 px at 1280 px wide and
# 62,447 px at 390 px: a result to act on takes less than a third of that.
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
MOST = {1280: 40_086 // 3, 390: 62_447 // 3}


def learner_of(server: dict[str, str]) -> Account:
    account = Account(unique_username("result"), new_password())
    env = {key: value for key, value in server.items() if key != "url"}
    subprocess.run(
        [*studyhall_command(), "users", "create", account.username, "--password-stdin"],
        input=f"{account.password}\n",
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return account


def sit_the_mock(page: Page, account: Account) -> None:
    """Answer the first question, flag the second, leave the rest blank, and submit."""
    log_in(page, account, next_path="/exams")
    page.get_by_role("button", name=f"Start {MOCK}").click()
    expect(page).to_have_url(QUESTION_URL)
    page.locator("input[name=choice] + label").first.click()
    page.get_by_role("button", name="Save and next").click()
    expect(page).to_have_url(re.compile(r"/questions/2$"))
    page.get_by_label("Flag for review").check()
    page.get_by_role("button", name="Save and next").click()
    expect(page).to_have_url(re.compile(r"/questions/3$"))
    page.get_by_role("link", name="Review and submit").click()
    expect(
        page.get_by_text("49 questions are blank and 1 is flagged. Submit anyway?")
    ).to_be_visible()
    page.get_by_role("button", name="Submit the exam").click()
    expect(page).to_have_url(re.compile(r"/attempts/\d+$"))


def document_height(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollHeight"))


@pytest.fixture
def result_page(shipped_server: dict[str, str], browser: Browser) -> Iterator[Page]:
    """A desktop-size page on the shipped-content server."""
    context = browser.new_context(base_url=shipped_server["url"], viewport=DESKTOP)
    yield context.new_page()
    context.close()


def test_the_mock_exam_result_is_short_and_leads_to_each_question(
    result_page: Page, shipped_server: dict[str, str]
) -> None:
    page = result_page
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    sit_the_mock(page, learner_of(shipped_server))
    assert document_height(page) < MOST[1280], document_height(page)

    grid = page.get_by_role("navigation", name="Questions at a glance")
    expect(grid.get_by_role("link")).to_have_count(50)
    flagged = grid.get_by_role("link", name=re.compile(r"^2\b.*unanswered, flagged$"))
    expect(flagged).to_have_count(1)
    grid.get_by_role("link", name=re.compile(r"^37\b")).click()
    expect(page).to_have_url(re.compile(r"#q-37$"))
    item = page.locator("#q-37")
    expect(item).to_be_in_viewport()
    heading = item.get_by_role("heading", level=3)
    expect(heading).to_have_text(re.compile(r"^Question 37 · unanswered"))
    explanation = item.locator(".explanation")
    expect(explanation).to_be_hidden()
    item.locator("summary").focus()
    page.keyboard.press("Enter")  # opens from the keyboard, no script of ours needed
    expect(explanation).to_be_visible()
    expect(page.get_by_role("link", name=re.compile(r"^Practise .*I missed$"))).to_be_visible()
    assert_accessible(page, "mock exam result")

    page.set_viewport_size(PHONE)
    page.goto(page.url.split("#")[0])
    assert document_height(page) < MOST[390], document_height(page)
    assert_no_horizontal_scroll(page, "mock exam result on a phone")
    assert errors == []
