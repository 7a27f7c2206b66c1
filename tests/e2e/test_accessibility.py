"""axe-core on the pages the journey does not visit, in the dark theme, and on itself."""

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import (
    CALIBRATION_STEM,
    CALIBRATION_WRONG,
    NOTE_PATH,
    SET_PATH,
    assert_accessible,
    axe_violations,
    choose,
    open_question,
)


@pytest.mark.parametrize("path", ["/topics/inference-optimization-tensorrt", SET_PATH])
def test_pages_off_the_journey_are_accessible(page: Page, path: str) -> None:
    """The parent topic (subtopic cards) and the question set (question list)."""
    page.goto(path)
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert_accessible(page)


@pytest.mark.browser_context_args(color_scheme="dark")
@pytest.mark.parametrize("path", ["/", NOTE_PATH])
def test_dark_theme_is_accessible(page: Page, path: str) -> None:
    """The dark palette has contrast of its own: chips and buttons, the note's boxes."""
    page.goto(path)
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    assert_accessible(page, "dark theme")


@pytest.mark.browser_context_args(color_scheme="dark")
def test_dark_theme_answer_is_accessible(page: Page) -> None:
    """Right and wrong answer colours in the dark theme."""
    open_question(page, CALIBRATION_STEM)
    choose(page, CALIBRATION_WRONG)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Not quite.")).to_be_visible()
    assert_accessible(page, "dark theme, wrong answer")


def test_axe_check_reports_violations(page: Page) -> None:
    """The check itself works: a page with known faults must not pass."""
    page.goto("/")
    page.evaluate(
        """() => {
            const img = document.createElement('img');
            img.src = '/static/favicon.svg';
            const input = document.createElement('input');
            input.type = 'text';
            document.querySelector('main').append(img, input);
        }"""
    )
    found = {violation["id"] for violation in axe_violations(page)}
    assert {"image-alt", "label"} <= found
    with pytest.raises(pytest.fail.Exception, match="image-alt"):
        assert_accessible(page)
