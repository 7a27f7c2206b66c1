"""The exam journey: start the TensorRT exam, answer, flag, reload, resume in a new browser
context, submit from the summary, and read the result and review.

Once with JavaScript (each choice saved in place, keys 1-9, n and f) and once without (every
step a form post and a redirect).
"""

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import Account, assert_accessible, log_in

EXAM = "TensorRT practice exam"
QUESTION_URL = re.compile(r"/attempts/\d+/questions/(\d+)$")


def start_exam(
    page: Page, account: Account, button: str = "Start", logged_in: bool = False
) -> None:
    if not logged_in:
        log_in(page, account, next_path="/exams")
    page.get_by_role("button", name=f"{button} {EXAM}").click()
    expect(page).to_have_url(QUESTION_URL)


def choices(page: Page):  # type: ignore[no-untyped-def]
    return page.locator("input[name=choice] + label")


def nav_item(page: Page, position: int):  # type: ignore[no-untyped-def]
    return page.get_by_role("navigation", name="Questions of this exam").get_by_role(
        "button", name=re.compile(rf"^{position}\s*,")
    )


def submit_and_check_result(page: Page, axe: bool = False) -> None:
    page.get_by_role("link", name="Review and submit").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Review and submit")
    if axe:
        assert_accessible(page, "exam summary")
    flagged = page.get_by_role("region", name="Flagged for review")
    expect(flagged.get_by_role("link", name="Question 2")).to_be_visible()
    expect(page.get_by_role("region", name="Not answered")).to_be_visible()
    page.get_by_role("button", name="Submit the exam").click()
    expect(page).to_have_url(re.compile(r"/attempts/\d+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(
        re.compile(r"^(Passed|Not passed): \d+%$")
    )
    expect(page.get_by_role("region", name="By topic")).to_be_visible()
    expect(page.locator(".review-item")).to_have_count(7)
    expect(page.locator(".review-item .explanation")).to_have_count(7)
    # items open to their explanation and the notes that teach it
    page.locator(".review-item summary", has_text="and notes").first.click()
    expect(page.get_by_role("link", name=re.compile(" — ")).first).to_have_attribute(
        "href", re.compile(r"^/notes/tensorrt-note-2#")
    )
    page.get_by_role("link", name=re.compile(r"^Flagged \d+$")).click()
    expect(page.locator(".review-item")).to_have_count(1)


def test_exam_with_javascript(
    page: Page,
    new_context: Callable[..., Any],
    create_account: Callable[..., Account],
    console_errors: list[str],
) -> None:
    account = create_account("exam")
    log_in(page, account, next_path="/exams")
    assert_accessible(page, "exams list")
    start_exam(page, account, logged_in=True)
    expect(page.get_by_role("timer")).to_have_text(re.compile(r"^(10:00|9:5\d)$"))
    assert_accessible(page, "exam question")
    choices(page).first.click()
    expect(page.locator("#exam-status").get_by_role("status")).to_have_text("Saved.")
    expect(nav_item(page, 1)).to_have_class(re.compile("is-answered"))
    page.keyboard.press("n")
    expect(page).to_have_url(re.compile(r"/questions/2$"))
    page.keyboard.press("2")
    expect(nav_item(page, 2)).to_have_class(re.compile("is-answered"))
    page.keyboard.press("f")
    expect(nav_item(page, 2)).to_have_class(re.compile("is-flagged"))
    picked = page.locator("input[name=choice]").nth(1).get_attribute("value")
    page.reload()
    expect(page.locator(f"input[name=choice][value='{picked}']")).to_be_checked()
    expect(page.get_by_label("Flag for review")).to_be_checked()
    page.context.close()

    fresh = new_context().new_page()
    start_exam(fresh, account, button="Resume")
    expect(fresh).to_have_url(re.compile(r"/questions/3$"))  # the first unanswered one
    expect(nav_item(fresh, 1)).to_have_class(re.compile("is-answered"))
    submit_and_check_result(fresh, axe=True)
    assert_accessible(fresh, "exam result")
    assert console_errors == []


def test_exam_without_javascript(
    no_js_page: Page, new_context: Callable[..., Any], create_account: Callable[..., Account]
) -> None:
    page = no_js_page
    account = create_account("exam-nojs")
    start_exam(page, account)
    choices(page).first.click()
    page.get_by_role("button", name="Save and next").click()
    expect(page).to_have_url(re.compile(r"/questions/2$"))
    choices(page).nth(1).click()
    page.get_by_label("Flag for review").check()
    page.get_by_role("button", name="Save and next").click()
    expect(page).to_have_url(re.compile(r"/questions/3$"))
    page.reload()
    nav_item(page, 2).click()
    expect(page.get_by_label("Flag for review")).to_be_checked()
    expect(page.locator("input[name=choice]:checked")).to_have_count(1)
    page.context.close()

    fresh = new_context(java_script_enabled=False).new_page()
    start_exam(fresh, account, button="Resume")
    expect(fresh).to_have_url(re.compile(r"/questions/3$"))
    submit_and_check_result(fresh)


@pytest.mark.parametrize("width", [375])
def test_exam_page_fits_a_phone(
    page: Page, create_account: Callable[..., Account], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    start_exam(page, create_account("exam-phone"))
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width", [1280, 390])
def test_custom_exam_checkboxes_and_radios_sit_beside_their_labels(
    page: Page, create_account: Callable[..., Account], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, create_account("exam-form"), next_path="/exams")
    form = page.get_by_role("region", name="Build your own exam")
    for name in ("Only questions I have not seen", "Practice: feedback after each question"):
        control = form.get_by_label(name)
        box = control.bounding_box()
        label = form.locator(f"label[for='{control.get_attribute('id')}']").bounding_box()
        assert box is not None and label is not None
        assert box["width"] < 40, f"{name}: the control is {box['width']} px wide"
        gap = label["x"] - (box["x"] + box["width"])
        assert 0 <= gap < 16, f"{name}: the label starts {gap} px after the control"
        assert abs((label["y"] + label["height"] / 2) - (box["y"] + box["height"] / 2)) < 16
    form.get_by_label("Only questions I have not seen").check()
    expect(form.get_by_label("Only questions I have not seen")).to_be_checked()
