"""One look across pages: account pages start where content pages do; the file input is styled."""

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.support import SET_PATH, Account, log_in


def heading_top(page: Page, path: str) -> float:
    page.goto(path)
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_be_visible()
    box = heading.bounding_box()
    assert box is not None
    return box["y"]


def test_account_pages_start_at_the_height_of_content_pages(
    page: Page, create_account: Callable[..., Account]
) -> None:
    content = heading_top(page, SET_PATH)
    for path in ("/login", "/signup"):
        assert abs(heading_top(page, path) - content) <= 1, path
    log_in(page, create_account("layout", role="admin"))
    for path in ("/account", "/admin/users", "/author/import"):
        assert abs(heading_top(page, path) - content) <= 1, path


def test_the_file_input_looks_like_the_other_buttons(
    page: Page, create_account: Callable[..., Account]
) -> None:
    log_in(page, create_account("files", role="author"))
    page.goto("/author/import")
    file_input = page.locator("input[type=file]")
    expect(file_input).to_be_visible()
    style = file_input.evaluate(
        """input => {
            const button = getComputedStyle(input, '::file-selector-button');
            return [button.borderTopStyle, button.borderTopWidth, button.borderRadius, button.cursor];
        }"""
    )
    assert style == ["solid", "2px", "8px", "pointer"]
