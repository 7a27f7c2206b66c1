"""The item statistics pages in Chromium on a 390 px phone: axe-clean, nothing scrolls
sideways but the table inside its own box, sorting and filtering by links and a GET form."""

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import Account, assert_accessible, assert_no_horizontal_scroll, log_in

PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.browser_context_args(viewport=PHONE)


def test_the_item_table_fits_a_phone_and_sorts_and_filters(
    page: Page, create_account: Callable[..., Account]
) -> None:
    log_in(page, create_account("items", role="author"))
    page.get_by_role("navigation").get_by_role("link", name="Items").first.click()
    expect(page).to_have_url(re.compile(r"/author/items$"))
    table = page.get_by_role("table", name=re.compile("Questions with their figures"))
    expect(table).to_be_visible()
    assert_accessible(page, "item table")
    assert_no_horizontal_scroll(page, "item table")
    box = page.locator(".item-table-wrap")
    wide, room = box.evaluate("el => [el.scrollWidth, el.clientWidth]")
    assert wide > room  # the table scrolls inside its box, not the page

    table.get_by_role("link", name=re.compile("^Facility")).click()
    expect(page).to_have_url(re.compile(r"sort=facility"))
    expect(page.locator("th[aria-sort=ascending]")).to_contain_text("Facility")

    page.get_by_label("Source").select_option("practice")
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(re.compile(r"source=practice.*sort=facility"))
    expect(page.get_by_text("Practice has no attempt")).to_be_visible()
    assert_accessible(page, "item table, practice")

    page.get_by_role("table").get_by_role("row").nth(1).get_by_role("link").first.click()
    expect(page.get_by_role("heading", name="Exams")).to_be_visible()
    expect(page.get_by_text("not recorded").first).to_be_visible()
    assert_accessible(page, "one question's statistics")
    assert_no_horizontal_scroll(page, "one question's statistics")
