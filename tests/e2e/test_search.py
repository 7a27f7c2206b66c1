"""Search in the browser: from the header to a note, a question and back, on any screen."""

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    MIXED_PRECISION,
    NOTE_PATH,
    QUESTION_URL,
    assert_accessible,
    assert_markup_accessible,
    assert_no_horizontal_scroll,
    choose,
    open_question,
)

SEARCH_URL = re.compile(r"/search\?q=calibration$")
PHONE = {"width": 390, "height": 844}


def search_from_header(page: Page, query: str) -> None:
    page.get_by_role("search").get_by_role("searchbox").fill(query)
    page.get_by_role("search").get_by_role("searchbox").press("Enter")


def results(page: Page, group: str):  # type: ignore[no-untyped-def]
    return page.get_by_role("region", name=re.compile(f"^{group}"))


def test_search_from_the_header_to_a_note_a_question_and_back(
    page: Page, screenshot: Callable[[Page, str], None]
) -> None:
    """Header search, a note result, its question, answered, then its note link back."""
    page.goto("/")
    search_from_header(page, "calibration")
    expect(page).to_have_url(SEARCH_URL)
    expect(page.get_by_role("heading", level=1)).to_have_text("Search")
    expect(page.get_by_role("searchbox")).to_have_value("calibration")
    notes, questions = results(page, "Notes"), results(page, "Questions")
    expect(notes.locator("mark").first).to_have_text(re.compile("calibration", re.I))
    expect(questions.get_by_role("link", name=CALIBRATION_STEM)).to_be_visible()
    assert_accessible(page, "search results")
    screenshot(page, "search")

    notes.get_by_role("link", name=MIXED_PRECISION).click()
    expect(page).to_have_url(re.compile(f"{NOTE_PATH}#working-with-mixed-precision$"))
    section = page.locator("#working-with-mixed-precision")
    section.get_by_role("link", name=CALIBRATION_STEM).click()
    expect(page).to_have_url(QUESTION_URL)
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    page.get_by_role("link", name=re.compile(MIXED_PRECISION)).first.click()
    expect(page).to_have_url(re.compile(f"{NOTE_PATH}#working-with-mixed-precision$"))


def test_search_works_without_javascript(no_js_page: Page, page: Page, base_url: str) -> None:
    """The header's box is a plain form: the results page is the same without scripts."""
    no_js_page.goto("/")
    search_from_header(no_js_page, "kSTRICT_TYPES")
    expect(no_js_page).to_have_url(re.compile(r"/search\?q=kSTRICT_TYPES$"))
    # PostgreSQL also marks the word "types" on its own: look for the whole term.
    marks = results(no_js_page, "Notes").locator("mark")
    expect(marks.filter(has_text="kSTRICT_TYPES").first).to_have_text("kSTRICT_TYPES")
    assert_markup_accessible(page, no_js_page.url, no_js_page.content(), "without JavaScript")


def test_filters_narrow_the_results(page: Page) -> None:
    page.goto("/search?q=calibration")
    page.get_by_label("Show").select_option("questions")
    page.get_by_label("Topic").select_option("precision-int8-calibration")
    page.get_by_role("main").get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(r"topic=precision-int8-calibration&type=questions"))
    expect(results(page, "Notes")).to_have_count(0)
    expect(results(page, "Questions").get_by_role("link")).to_have_count(1)
    assert_accessible(page, "filtered")


def test_typing_in_the_header_box_on_a_question_picks_no_choice(page: Page) -> None:
    """Digits typed into the search box are text, not the choice shortcuts."""
    open_question(page, CALIBRATION_STEM)
    box = page.get_by_role("search").get_by_role("searchbox")
    box.click()
    page.keyboard.type("2:4")
    expect(box).to_have_value("2:4")
    expect(page.locator("input[name=choice]:checked")).to_have_count(0)


def test_the_header_box_is_reached_with_the_keyboard(page: Page) -> None:
    page.goto("/")
    box = page.get_by_role("search").get_by_role("searchbox")
    for _ in range(4):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.type") == "search":
            break
    expect(box).to_be_focused()
    page.keyboard.type("2:4")
    page.keyboard.press("Enter")
    expect(results(page, "Questions").locator("mark").first).to_have_text("2:4")


@pytest.mark.browser_context_args(viewport=PHONE)
@pytest.mark.parametrize("path", ["/", "/search?q=calibration", NOTE_PATH])
def test_search_fits_a_phone(
    page: Page, path: str, screenshot: Callable[[Page, str], None]
) -> None:
    page.goto(path)
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert_no_horizontal_scroll(page)
    if "search" in path:
        screenshot(page, "search-phone")
    page.set_viewport_size({"width": 320, "height": 640})
    assert_no_horizontal_scroll(page, "320 pixels")


@pytest.mark.browser_context_args(color_scheme="dark")
def test_search_results_are_accessible_in_the_dark_theme(page: Page) -> None:
    page.goto("/search?q=calibration")
    expect(page.locator("mark").first).to_be_visible()
    assert_accessible(page, "dark theme")


@pytest.fixture(params=[{"width": 1280, "height": 800}, PHONE], ids=["desktop", "phone"])
def shipped_page(
    shipped_server: dict[str, str], browser: Browser, request: pytest.FixtureRequest
) -> Iterator[Page]:
    """A page on the server of the shipped content, written in Markdown of every kind."""
    context = browser.new_context(base_url=shipped_server["url"], viewport=request.param)
    yield context.new_page()
    context.close()


def test_results_show_markdown_as_plain_text_and_each_stem_apart(shipped_page: Page) -> None:
    page = shipped_page
    page.goto("/search?q=IPluginV3")
    questions = results(page, "Questions").get_by_role("listitem")
    stem = "IPluginV3 groups a plugin's behaviour into capability interfaces."
    question = questions.filter(has=page.get_by_role("heading", name=re.compile(stem)))
    expect(question.get_by_role("link")).to_have_text(re.compile(f"^{stem}"))
    expect(question.locator(".snippet")).to_contain_text("Core, build and runtime")
    expect(question.locator(".snippet")).not_to_contain_text("capability interfaces. Which")
    expect(question.locator(".snippet mark").first).to_have_text("IPluginV3")
    text = page.get_by_role("main").locator(".search-results").all_inner_texts()
    assert len(text) == 2 and not [
        mark for mark in ("**", "`", "| ", "](") if mark in "".join(text)
    ]
    assert_no_horizontal_scroll(page)
    assert_accessible(page, "plain-text results")
