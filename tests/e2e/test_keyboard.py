"""Keyboard use: number keys pick a choice, Enter checks, focus lands on the result, and
Enter, n or the right arrow go on to the next question."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    CALIBRATION_WRONG,
    assert_accessible,
    assert_markup_accessible,
    key_of,
    open_question,
)

NEXT_HINT = "Press Enter or N for the next question."


def test_number_keys_choose_and_enter_checks(page: Page) -> None:
    """1-4 select the matching choice; Enter on it submits; the result heading gets focus."""
    question_url = open_question(page, CALIBRATION_STEM)
    radios = page.get_by_role("radio")
    expect(radios).to_have_count(4)

    right = key_of(page, CALIBRATION_RIGHT)
    for key in [k for k in "1234" if k != right] + [right]:
        page.keyboard.press(key)
        chosen = radios.nth(int(key) - 1)
        expect(chosen).to_be_checked()
        expect(chosen).to_be_focused()
    # There is no ninth choice: the key must leave the answer alone.
    page.keyboard.press("9")
    expect(page.get_by_role("radio", name=CALIBRATION_RIGHT)).to_be_checked()

    page.keyboard.press("Enter")
    heading = page.get_by_role("heading", name="Correct!")
    expect(heading).to_be_visible()
    expect(heading).to_be_focused()
    expect(page).to_have_url(question_url)
    # The answer is locked now: number keys must not change it.
    page.keyboard.press("2" if right != "2" else "3")
    expect(page.get_by_role("radio", name=CALIBRATION_RIGHT)).to_be_checked()
    assert_accessible(page, "answered with the keyboard")


def test_enter_checks_when_focus_is_on_the_page(page: Page) -> None:
    """Enter with nothing focused (focus on the page body) still checks the answer."""
    open_question(page, CALIBRATION_STEM)
    page.keyboard.press(key_of(page, CALIBRATION_WRONG))
    expect(page.get_by_role("radio", name=CALIBRATION_WRONG)).to_be_checked()
    page.evaluate("document.activeElement.blur()")
    assert page.evaluate("document.activeElement === document.body")

    page.keyboard.press("Enter")
    heading = page.get_by_role("heading", name="Not quite.")
    expect(heading).to_be_focused()
    expect(page.locator("label").filter(has_text="Your answer")).to_contain_text(CALIBRATION_WRONG)


def test_skip_link_moves_focus_to_the_main_content(page: Page) -> None:
    """The first Tab shows "Skip to content"; following it focuses the main landmark."""
    page.goto("/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()

    page.keyboard.press("Enter")
    expect(page.get_by_role("main")).to_be_focused()


def _answer_with_keys(page: Page) -> str:
    """Answer the shown question with 1 and Enter; return where "Next question" leads."""
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    expect(
        page.get_by_role("heading", name=re.compile(r"^(Correct!|Not quite\.)$"))
    ).to_be_focused()
    expect(page.get_by_text(NEXT_HINT)).to_be_visible()
    href = page.get_by_role("link", name="Next question").get_attribute("href")
    assert href
    return href


@pytest.mark.parametrize("key", ["Enter", "n", "N", "ArrowRight"])
def test_a_key_goes_on_to_the_next_question(page: Page, key: str) -> None:
    """After the result, Enter, n (or N) and the right arrow open the next question."""
    open_question(page, CALIBRATION_STEM)
    following = _answer_with_keys(page)
    assert_accessible(page, "answered, with the hint for the next question")
    page.keyboard.press(key)
    expect(page).to_have_url(re.compile(re.escape(following) + "$"))
    expect(page.get_by_role("button", name="Check answer")).to_be_visible()


def test_typing_in_the_search_box_does_not_go_on(page: Page) -> None:
    """An n or Enter typed into a text field is text, not a shortcut."""
    question_url = open_question(page, CALIBRATION_STEM)
    _answer_with_keys(page)
    search = page.get_by_role("searchbox", name="Search notes and questions")
    search.click()
    page.keyboard.type("n")
    page.keyboard.press("ArrowRight")
    expect(search).to_have_value("n")
    expect(page).to_have_url(question_url)
    # Enter on the other buttons does what they say, not "next".
    page.get_by_role("link", name="Try again").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(question_url)
    expect(page.get_by_role("button", name="Check answer")).to_be_visible()


def test_n_goes_on_in_a_topic_practice(page: Page) -> None:
    """The study walks use the same page: n opens the walk's next question."""
    page.goto("/topics/deployment-jetson-dla")
    page.get_by_role("link", name="Practise this topic").click()
    expect(page.locator(".eyebrow")).to_contain_text("Question 1 of 2")
    _answer_with_keys(page)
    page.keyboard.press("n")
    expect(page.locator(".eyebrow")).to_contain_text("Question 2 of 2")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    expect(page.get_by_text("Press Enter or N to go on: finish.")).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text("You have been through this topic")


def test_without_javascript_the_link_stays_and_no_hint_shows(no_js_page: Page, page: Page) -> None:
    """Without the script the keys do nothing, so the hint is not shown; the link works."""
    open_question(no_js_page, CALIBRATION_STEM)
    no_js_page.get_by_role("radio").first.check()
    no_js_page.get_by_role("button", name="Check answer").click()
    expect(no_js_page.get_by_role("heading", level=2).first).to_have_text(
        re.compile(r"^(Correct!|Not quite\.)$")
    )
    expect(no_js_page.get_by_text(NEXT_HINT)).to_be_hidden()
    answered, html = no_js_page.url, no_js_page.content()
    no_js_page.get_by_role("link", name="Next question").click()
    expect(no_js_page.get_by_role("button", name="Check answer")).to_be_visible()
    assert_markup_accessible(page, answered, html, "answered, without JS")
