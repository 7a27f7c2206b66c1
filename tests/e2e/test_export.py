"""An author downloads the question bank from the export page, with and without JavaScript."""

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.support import (
    Account,
    assert_accessible,
    assert_markup_accessible,
    assert_no_horizontal_scroll,
    log_in,
    nav,
)


def test_an_author_downloads_gift_of_one_topic(
    page: Page, create_account: Callable[..., Account]
) -> None:
    log_in(page, create_account("exporter", role="author"))
    page.set_viewport_size({"width": 360, "height": 740})
    nav(page).get_by_role("link", name="Import", exact=True).click()
    page.get_by_role("link", name="Export questions").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Export questions")
    assert_accessible(page, "export form")
    assert_no_horizontal_scroll(page, "export form at 360 px")
    page.get_by_label("GIFT (Moodle text)").check()
    page.get_by_label("Topic").select_option("precision-int8-calibration")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download").click()
    assert (
        download.value.suggested_filename == "studyhall-questions-precision-int8-calibration.gift"
    )
    text = open(download.value.path(), encoding="utf-8").read()
    assert "$CATEGORY: $course$/top/" in text and "::[markdown]" in text


def test_the_form_works_without_javascript(
    no_js_page: Page, page: Page, create_account: Callable[..., Account]
) -> None:
    log_in(no_js_page, create_account("exporter", role="author"), next_path="/author/export")
    assert_markup_accessible(page, no_js_page.url, no_js_page.content(), "export form, JS off")
    no_js_page.get_by_label("CSV (spreadsheets)").check()
    with no_js_page.expect_download() as download:
        no_js_page.get_by_role("button", name="Download").click()
    assert download.value.suggested_filename == "studyhall-questions.csv"
    with open(download.value.path(), "rb") as file:
        assert file.read(3) == b"\xef\xbb\xbf"
