"""The site header: compact on a phone, with every link of the nav still reachable."""

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import (
    Account,
    assert_accessible,
    assert_no_horizontal_scroll,
    log_in,
    nav,
)

PHONE_HEADER_MAX = 140


def header_height(page: Page) -> float:
    box = page.locator(".site-header").bounding_box()
    assert box is not None
    return box["height"]


def expect_every_nav_item_reachable(page: Page, count: int) -> None:
    """Each link and button of the nav comes into view when it gets the keyboard focus."""
    items = nav(page).locator("a, button")
    expect(items).to_have_count(count)
    for item in items.all():
        item.focus()
        expect(item).to_be_focused()
        expect(item).to_be_in_viewport()


@pytest.mark.parametrize("width", [390, 320])
def test_the_header_is_compact_on_a_phone(
    page: Page, create_account: Callable[..., Account], width: int
) -> None:
    """A guest's and an admin's header fit in two short rows, the search box included."""
    page.set_viewport_size({"width": width, "height": 844})
    page.goto("/")
    expect(page.get_by_role("searchbox", name="Search notes and questions")).to_be_in_viewport()
    assert header_height(page) <= PHONE_HEADER_MAX
    expect_every_nav_item_reachable(page, 6)
    assert_no_horizontal_scroll(page, f"guest header at {width} px")
    assert_accessible(page, f"guest header at {width} px")

    log_in(page, create_account("header", role="admin"))
    assert header_height(page) <= PHONE_HEADER_MAX
    # Topics, Notes, Practice, Exams, Import, Reports, Items, Users, the account and Log out.
    expect_every_nav_item_reachable(page, 10)
    assert_no_horizontal_scroll(page, f"admin header at {width} px")
    assert_accessible(page, f"admin header at {width} px")


def test_a_phone_reaches_the_last_nav_link_with_the_keyboard(page: Page) -> None:
    """Tabbing along the nav scrolls it, and the last link opens its page."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/")
    page.get_by_role("searchbox", name="Search notes and questions").focus()
    sign_up = nav(page).get_by_role("link", name="Sign up")
    for _ in range(8):
        page.keyboard.press("Tab")
        if sign_up.evaluate("el => el === document.activeElement"):
            break
    expect(sign_up).to_be_focused()
    expect(sign_up).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text("Create an account")


def test_the_desktop_header_shows_the_whole_nav(page: Page) -> None:
    """On a desktop every nav link shows at once, nothing scrolled out of sight."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/")
    for link in nav(page).get_by_role("link").all():
        expect(link).to_be_in_viewport()
