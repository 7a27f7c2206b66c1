"""On a phone-size viewport nothing may scroll sideways (WCAG 1.4.10 Reflow)."""

import httpx2 as httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    CALIBRATION_WRONG,
    NOTE_PATH,
    SET_PATH,
    TOPIC_PATH,
    assert_no_horizontal_scroll,
    choose,
    key_of,
    open_question,
)

PHONE = {"width": 390, "height": 844}
SEED_QUESTIONS = 7

pytestmark = pytest.mark.browser_context_args(viewport=PHONE)


def test_question_page_fits_a_phone(page: Page) -> None:
    """The journey's question, before and after answering, fits 390 px."""
    open_question(page, CALIBRATION_STEM)
    assert_no_horizontal_scroll(page, "question")
    choose(page, CALIBRATION_WRONG)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Not quite.")).to_be_visible()
    assert_no_horizontal_scroll(page, "after answering")


@pytest.mark.parametrize(
    "number",
    range(1, SEED_QUESTIONS + 1),
)
def test_every_seed_question_fits_a_phone(page: Page, number: int) -> None:
    """Each question of the seed set fits 390 px."""
    page.goto(SET_PATH)
    links = page.get_by_role("region", name="Questions").get_by_role("link")
    expect(links).to_have_count(SEED_QUESTIONS)
    links.nth(number - 1).click()
    expect(page.get_by_text(f"Question {number} of {SEED_QUESTIONS}")).to_be_visible()
    assert_no_horizontal_scroll(page)


def test_every_shipped_question_fits_a_phone(
    browser: Browser, shipped_server: dict[str, str]
) -> None:
    """Every question `make run` serves, code blocks included, fits 390 px; a code line
    wider than the screen scrolls inside its block, which takes keyboard focus to do so."""
    url = shipped_server["url"]
    ids = [
        item["id"]
        for offset in (0, 200)
        for item in httpx.get(f"{url}/api/v1/questions?limit=200&offset={offset}").json()["items"]
    ]
    assert len(ids) > 200
    context = browser.new_context(base_url=url, viewport=PHONE)
    page = context.new_page()
    scrolled_blocks = 0
    for question_id in ids:
        page.goto(f"/questions/{question_id}")
        assert_no_horizontal_scroll(page, f"question {question_id}")
        for block in page.locator("pre").all():
            expect(block).to_have_attribute("tabindex", "0")
            scrolled_blocks += block.evaluate("b => b.scrollWidth > b.clientWidth")
    context.close()
    assert scrolled_blocks, "no shipped code block is wider than a phone: the test shows nothing"


@pytest.mark.parametrize("path", ["/", TOPIC_PATH, NOTE_PATH, SET_PATH])
def test_content_pages_fit_a_phone(page: Page, path: str) -> None:
    """Home, topic, note and set pages fit 390 px."""
    page.goto(path)
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert_no_horizontal_scroll(page)


def test_answered_question_reflows_at_320_pixels(page: Page) -> None:
    """WCAG 1.4.10 asks for no sideways scrolling at 320 CSS pixels."""
    page.set_viewport_size({"width": 320, "height": 640})
    open_question(page, CALIBRATION_STEM)
    page.keyboard.press(key_of(page, CALIBRATION_RIGHT))
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    assert_no_horizontal_scroll(page, "after answering, 320 px")


@pytest.mark.parametrize("path", ["/", NOTE_PATH, "/login", "/signup"])
def test_pages_reflow_at_320_pixels(page: Page, path: str) -> None:
    """The deepest note outline and the account forms still fit 320 CSS pixels."""
    page.set_viewport_size({"width": 320, "height": 640})
    page.goto(path)
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert_no_horizontal_scroll(page, f"{path} at 320 px")
