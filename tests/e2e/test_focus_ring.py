"""The keyboard focus ring stands out against the page (3:1 or more, WCAG 1.4.11) in the light
and the dark theme, and the exam navigator marks the question shown in another way."""

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import Account, log_in
from tests.e2e.test_exam_journey import nav_item, start_exam

SCHEMES = ["light", "dark"]
FOCUS_CONTRAST_MIN = 3.0


def rgb(css: str) -> tuple[float, ...]:
    """The red, green and blue of a computed `rgb(...)`/`rgba(...)` colour, opaque only."""
    parts = [float(p) for p in re.findall(r"[\d.]+", css)]
    assert len(parts) == 3 or parts[3] == 1, f"not an opaque colour: {css}"
    return tuple(parts[:3])


def luminance(colour: tuple[float, ...]) -> float:
    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(c) for c in colour)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one: str, other: str) -> float:
    lighter, darker = sorted((luminance(rgb(one)), luminance(rgb(other))), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def focus_ring(page: Page, selector: str) -> dict[str, str]:
    """The outline of the element (the focused one if no selector) and the page's background."""
    return page.evaluate(
        """selector => {
            const el = selector ? document.querySelector(selector) : document.activeElement;
            const style = getComputedStyle(el);
            return {
                style: style.outlineStyle, width: style.outlineWidth, colour: style.outlineColor,
                page: getComputedStyle(document.body).backgroundColor,
            };
        }""",
        selector,
    )


def assert_visible_ring(ring: dict[str, str], where: str) -> None:
    assert ring["style"] == "solid" and float(ring["width"].removesuffix("px")) >= 2, where
    ratio = contrast(ring["colour"], ring["page"])
    assert ratio >= FOCUS_CONTRAST_MIN, (
        f"{where}: {ring['colour']} on {ring['page']} is {ratio:.2f}:1"
    )


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_focus_ring_contrasts_with_the_page(
    new_context: Callable[..., Any], scheme: str
) -> None:
    """A link and a practice choice reached with the keyboard get a ring of 3:1 or more."""
    page = new_context(color_scheme=scheme).new_page()
    page.goto("/")
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Tab")  # the brand
    expect(page.get_by_role("link", name="Studyhall")).to_be_focused()
    assert_visible_ring(focus_ring(page, ""), f"a focused link, {scheme}")

    page.goto("/questions/1")
    page.keyboard.press("1")
    expect(page.get_by_role("radio").first).to_be_focused()
    assert_visible_ring(focus_ring(page, "input[name=choice]:focus + label"), f"a choice, {scheme}")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_question_shown_in_the_navigator_is_not_a_focus_ring(
    new_context: Callable[..., Any], create_account: Callable[..., Account], scheme: str
) -> None:
    """The current question is filled in, without an outline; focused, it gets the ring."""
    page: Page = new_context(color_scheme=scheme).new_page()
    account = create_account("focus")
    log_in(page, account, next_path="/exams")
    start_exam(page, account, logged_in=True)
    current, other = nav_item(page, 1), nav_item(page, 2)
    expect(current).to_have_attribute("aria-current", "page")
    looks = """el => {
        const s = getComputedStyle(el);
        return {outline: s.outlineStyle, background: s.backgroundColor};
    }"""
    shown, plain = current.evaluate(looks), other.evaluate(looks)
    assert shown["outline"] == "none", scheme
    assert contrast(shown["background"], plain["background"]) >= FOCUS_CONTRAST_MIN, scheme

    other.focus()
    page.keyboard.press("Shift+Tab")  # back onto the current one, from the keyboard
    expect(current).to_be_focused()
    ring = focus_ring(page, "")
    assert_visible_ring(ring, f"the current question focused, {scheme}")
