"""A parent topic in the browser: its subtopics' notes in one contents, and practice."""

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import (
    MIXED_PRECISION,
    NOTE_PATH,
    PARENT_TOPIC,
    TOPIC,
    assert_accessible,
    assert_no_horizontal_scroll,
)

PARENT_PATH = "/topics/inference-optimization-tensorrt"
# practising the topic walks its questions, the topic named in the address
WALK_URL = re.compile(r"/study/\d+\?plan=[\d.]+&topic=inference-optimization-tensorrt$")


def test_a_parent_topic_leads_to_its_subtopics_note_sections_and_practice(
    page: Page, screenshot: Callable[[Page, str], None]
) -> None:
    page.goto(PARENT_PATH)
    expect(page.get_by_role("heading", level=1)).to_have_text(PARENT_TOPIC)
    contents = page.get_by_role("navigation", name="Contents of the notes")
    expect(contents.get_by_role("link", name=TOPIC, exact=True)).to_be_visible()
    assert_accessible(page, "parent topic")
    screenshot(page, "topic-guide")
    contents.get_by_role("link", name=MIXED_PRECISION).click()
    expect(page).to_have_url(re.compile(f"{NOTE_PATH}#working-with-mixed-precision$"))

    page.goto(PARENT_PATH)
    page.get_by_role("link", name="Practise this topic").click()
    expect(page).to_have_url(WALK_URL)
    expect(page.locator(".eyebrow")).to_have_text(re.compile(r"^Question 1 of 7"))


def test_practise_is_reached_with_the_keyboard(page: Page) -> None:
    page.goto(PARENT_PATH)
    practise = page.get_by_role("link", name="Practise this topic")
    for _ in range(20):
        page.keyboard.press("Tab")
        if practise.evaluate("link => link === document.activeElement"):
            break
    expect(practise).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(WALK_URL)


@pytest.mark.browser_context_args(color_scheme="dark")
def test_the_guide_is_accessible_in_the_dark_theme(page: Page) -> None:
    page.goto(PARENT_PATH)
    assert_accessible(page, "dark theme")


@pytest.mark.parametrize("width", [390, 320])
def test_the_guide_fits_a_phone(
    page: Page, width: int, screenshot: Callable[[Page, str], None]
) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(PARENT_PATH)
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert_no_horizontal_scroll(page)
    if width == 390:
        screenshot(page, "topic-guide-phone")
