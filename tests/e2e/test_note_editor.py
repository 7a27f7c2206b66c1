"""An author moves and renames a note's section in the browser; the question that links to it
still opens it; then the note is restored. The same again with JavaScript off. Every page
axe-clean and readable at 390 px."""

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.support import (
    CALIBRATION_STEM,
    MIXED_PRECISION,
    NOTE_PATH,
    Account,
    assert_accessible,
    assert_markup_accessible,
    assert_no_horizontal_scroll,
    flash,
    log_in,
    open_question,
)

ANCHOR = "working-with-mixed-precision"
PHONE = {"width": 390, "height": 844}


def _move_rename_and_restore(page: Page, renamed: str, check: Callable[[Page, str], None]) -> None:
    page.goto(NOTE_PATH)
    page.get_by_role("link", name="Edit this note").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("^Edit note"))
    check(page, "note editor")
    heading = page.locator(f'input[name$="-heading"][value="{MIXED_PRECISION}"]')
    n = int(str(heading.get_attribute("name")).split("-")[1])
    move, moved_to = ("Move up", n - 1) if n > 1 else ("Move down", n + 1)
    page.get_by_role("button", name=f"{move} section {n}", exact=True).click()
    moved = page.get_by_label(f"Section {moved_to}: heading")
    expect(moved).to_have_value(MIXED_PRECISION)
    moved.fill(renamed)
    page.get_by_label("Why you change it").fill("Shorter heading, earlier")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("region", name="Preview")).to_contain_text(renamed)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(flash(page)).to_contain_text("saved as a new revision")
    expect(page.get_by_label(f"Section {moved_to}: heading")).to_have_value(renamed)

    open_question(page, CALIBRATION_STEM)
    page.get_by_role("link", name=renamed).first.click()
    expect(page).to_have_url(re.compile(f"{NOTE_PATH}#{ANCHOR}$"))
    expect(page.locator(f"#{ANCHOR}")).to_contain_text(renamed)
    check(page, "note after the edit")

    page.goto(NOTE_PATH)
    page.get_by_role("link", name="Edit this note").click()
    page.get_by_role("link", name="History").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("^History of the note"))
    check(page, "note history")
    page.get_by_role("button", name=re.compile(r"^Restore this revision")).first.click()
    expect(flash(page)).to_contain_text("The revision was restored")
    page.goto(NOTE_PATH)
    expect(page.locator(f"#{ANCHOR}")).to_contain_text(MIXED_PRECISION)


def test_an_author_moves_and_renames_a_section_and_its_question_still_opens_it(
    page: Page, create_account: Callable[..., Account]
) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, create_account("author", role="author"))

    def check(page: Page, state: str) -> None:
        assert_accessible(page, state)
        assert_no_horizontal_scroll(page, state)

    _move_rename_and_restore(page, "Mixed precision, in short", check)


def test_the_note_editor_works_without_javascript(
    no_js_page: Page, page: Page, create_account: Callable[..., Account]
) -> None:
    no_js_page.set_viewport_size(PHONE)
    log_in(no_js_page, create_account("author", role="author"))

    def check(shown: Page, state: str) -> None:
        assert_no_horizontal_scroll(shown, f"{state}, no JavaScript")
        assert_markup_accessible(page, shown.url, shown.content(), f"{state}, no JavaScript")

    _move_rename_and_restore(no_js_page, "Mixed precision, briefly", check)
