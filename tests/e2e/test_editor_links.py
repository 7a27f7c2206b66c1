"""An author links a question to a note section from the editor: typing part of a heading
and choosing among the sections found; the same again with JavaScript off, through "Find".
The question's page then shows the link. Every state axe-clean and readable at 390 px."""

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.support import (
    Account,
    assert_accessible,
    assert_markup_accessible,
    assert_no_horizontal_scroll,
    flash,
    log_in,
)

PHONE = {"width": 390, "height": 844}
SECTION = re.compile("Working with Reformat-Free Network I.O Tensors")


def _own_question(page: Page, suffix: str) -> None:
    """Import a one-question set of this test's own and open its question's editor."""
    name = f"links-{suffix}.gift"
    gift = "::first:: Which tool builds engines? {=trtexec ~nvcc ~gdb}\n"
    page.goto("/author/import")
    page.get_by_label("Document").set_input_files(
        {"name": name, "mimeType": "text/plain", "buffer": gift.encode()}
    )
    page.get_by_role("button", name="Preview", exact=True).click()
    page.get_by_role("button", name=f"Import {name}").click()
    expect(page.get_by_role("status")).to_contain_text("questions created: 1")
    page.goto(f"/sets/links-{suffix}")
    page.get_by_role("link", name="Which tool builds engines?").click()
    page.get_by_role("link", name=re.compile("^Edit")).first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("^Edit question"))


def _saved_and_shown(page: Page) -> None:
    page.get_by_label("Why you change it").fill("Link the note on I/O formats")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(flash(page)).to_contain_text("saved as a new revision")
    links = page.get_by_role("group", name="Note sections it links to")
    expect(links.get_by_role("link", name=SECTION)).to_be_visible()
    page.get_by_role("link", name="View the question").click()
    panel = page.get_by_role("region", name="Note sections linked to this question")
    expect(panel.get_by_role("link", name=SECTION)).to_be_visible()


def test_an_author_links_a_section_by_typing_part_of_its_heading(
    page: Page, create_account: Callable[..., Account]
) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, create_account("author", role="author"))
    _own_question(page, "js")
    page.get_by_label(re.compile("^Add a link")).press_sequentially("reformat")
    found = page.get_by_role("group", name=re.compile("^Sections whose heading holds"))
    option = found.get_by_role("radio", name=SECTION)
    expect(option).to_be_visible()
    option.focus()
    page.keyboard.press("Space")  # chosen with the keyboard
    expect(option).to_be_checked()
    assert_accessible(page, "editor with sections found")
    assert_no_horizontal_scroll(page, "editor with sections found")
    _saved_and_shown(page)


def test_without_javascript_find_lists_the_sections_to_choose_from(
    no_js_page: Page, page: Page, create_account: Callable[..., Account]
) -> None:
    no_js_page.set_viewport_size(PHONE)
    log_in(no_js_page, create_account("author", role="author"))
    _own_question(no_js_page, "nojs")
    no_js_page.get_by_label(re.compile("^Add a link")).fill("Reformat-Free")
    no_js_page.get_by_role("button", name="Find", exact=True).click()
    no_js_page.get_by_role("radio", name=SECTION).check()
    assert_no_horizontal_scroll(no_js_page, "sections found, no JavaScript")
    assert_markup_accessible(
        page, no_js_page.url, no_js_page.content(), "sections found, no JavaScript"
    )
    _saved_and_shown(no_js_page)
