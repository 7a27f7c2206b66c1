"""Keyboard use: number keys pick a choice, Enter checks, focus lands on the result."""

from playwright.sync_api import Page, expect

from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    CALIBRATION_WRONG,
    assert_accessible,
    key_of,
    open_question,
)


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
