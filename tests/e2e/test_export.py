"""An author downloads the question bank from the export page, with and without JavaScript;
a learner downloads their missed questions as an Anki deck from the account page."""

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.support import (
    CALIBRATION_STEM,
    CALIBRATION_WRONG,
    Account,
    assert_accessible,
    assert_markup_accessible,
    assert_no_horizontal_scroll,
    choose,
    flash,
    log_in,
    nav,
    open_question,
)
from tests.exporters.conftest import read_apkg
from tests.factories import SEED_SET

DECK_LINK = "Download my missed and flagged questions as an Anki deck"


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


def test_an_author_downloads_an_anki_deck_without_javascript(
    no_js_page: Page, create_account: Callable[..., Account]
) -> None:
    log_in(no_js_page, create_account("exporter", role="author"), next_path="/author/export")
    no_js_page.get_by_label("Anki deck").check()
    # the seed set: other browser tests import sets of their own into the shared server
    no_js_page.locator(f"input[name=set][value='{SEED_SET}']").check()
    with no_js_page.expect_download() as download:
        no_js_page.get_by_role("button", name="Download").click()
    assert download.value.suggested_filename == f"studyhall-questions-{SEED_SET}.apkg"
    with open(download.value.path(), "rb") as file:
        assert len(read_apkg(file.read()).notes) == 7  # the seed set's


def test_a_learner_downloads_the_questions_they_missed_as_an_anki_deck(
    page: Page, create_account: Callable[..., Account]
) -> None:
    account = create_account("ankilearner")
    log_in(page, account)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_accessible(page, "account page with the Anki deck")
    assert_no_horizontal_scroll(page, "account page at 390 px")
    page.get_by_role("link", name=DECK_LINK).click()  # nothing missed yet: a message, no file
    expect(flash(page)).to_contain_text("You have no missed or flagged questions yet")
    assert_accessible(page, "account page, no deck yet")
    open_question(page, CALIBRATION_STEM)
    choose(page, CALIBRATION_WRONG)
    page.get_by_role("button", name="Check answer").click()
    expect(page.locator("label").filter(has_text=CALIBRATION_WRONG)).to_contain_text("Your answer")
    page.goto("/account")
    with page.expect_download() as download:
        page.get_by_role("link", name=DECK_LINK).click()
    name = download.value.suggested_filename
    assert name.startswith(f"studyhall-{account.username}-missed-and-flagged-")
    assert name.endswith(".apkg")
    with open(download.value.path(), "rb") as file:
        (note,) = read_apkg(file.read()).notes
    assert "calibration algorithm is most suitable" in note.fields["Question"]
    assert CALIBRATION_WRONG in note.fields["Choices"]
