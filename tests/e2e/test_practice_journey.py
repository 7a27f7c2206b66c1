"""The practice journey: home, topic, note, the note's question, the answer, the next question.

Once with JavaScript (the answer is checked in place by htmx) and once without (the form
posts and the server sends the whole page back).
"""

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, Response, expect

from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    CALIBRATION_WRONG,
    MIXED_PRECISION,
    NOTE,
    NOTE_PATH,
    PARENT_TOPIC,
    POSITION,
    QUESTION_URL,
    SECTIONS,
    TOPIC,
    TOPIC_PATH,
    assert_accessible,
    assert_markup_accessible,
    choose,
    open_question,
)

DESKTOP = {"width": 1280, "height": 900}
NOTE_LINK = f"{NOTE} — {MIXED_PRECISION}"
# The question after the calibration one in the seed set.
REFIT_STEM = re.compile(r"builder_config\.set_flag\(trt\.BuilderFlag\.REFIT\)")
REFIT_RIGHT = "Updating model weights in the compiled engine without rebuilding it from scratch"
REFIT_WRONG = "Allowing the engine to adjust layer precision dynamically at runtime"


def open_topic_from_home(page: Page) -> None:
    """Follow the subtopic chip on the home page's topic card."""
    expect(page.get_by_role("heading", level=1)).to_have_text("Study for your certification")
    chips = page.get_by_role("list", name=f"Subtopics of {PARENT_TOPIC}")
    chips.get_by_role("link", name=TOPIC).click()
    expect(page).to_have_url(re.compile(f"{TOPIC_PATH}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(TOPIC)
    breadcrumbs = page.get_by_role("navigation", name="Breadcrumb")
    expect(breadcrumbs.get_by_role("link", name=PARENT_TOPIC)).to_be_visible()


def open_note_from_topic(page: Page) -> None:
    """Open the note filed under the topic, and check its outline."""
    notes = page.get_by_role("region", name="Notes")
    notes.get_by_role("link", name=NOTE, exact=True).click()
    expect(page).to_have_url(re.compile(f"{NOTE_PATH}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(NOTE)

    toc = page.get_by_role("navigation", name="Contents")
    expect(toc.get_by_role("link")).to_have_text(list(SECTIONS.values()))
    for anchor, heading in SECTIONS.items():
        expect(toc.get_by_role("link", name=heading, exact=True)).to_have_attribute(
            "href", f"#{anchor}"
        )
        # The contents link must land on the section that carries this heading.
        section_heading = page.locator(f"#{anchor}").get_by_role(
            "heading", level=2, name=heading, exact=True
        )
        expect(section_heading).to_be_visible()


def open_question_from_note(page: Page) -> str:
    """Follow the calibration question in the section's "Test yourself" box."""
    box = page.get_by_role("complementary", name=f"Questions on {MIXED_PRECISION}")
    expect(box.get_by_role("heading", name="Test yourself")).to_be_visible()
    box.get_by_role("link", name=CALIBRATION_STEM).click()
    expect(page).to_have_url(QUESTION_URL)
    expect(page.get_by_role("heading", level=1)).to_have_text(CALIBRATION_STEM)
    expect(page.get_by_role("radio")).to_have_count(4)
    expect(page.get_by_role("button", name="Check answer")).to_be_visible()
    return page.url


def position(page: Page) -> tuple[int, int]:
    """The "Question N of M" of the current question page."""
    label = page.get_by_text(POSITION)
    expect(label).to_be_visible()
    match = POSITION.search(label.text_content() or "")
    assert match, label.text_content()
    return int(match[1]), int(match[2])


def submit_answer(page: Page) -> Response:
    """Click "Check answer" and return the response to the POST it sends.

    htmx gets the result block (200); a plain form post is redirected to a page that only
    reads (303), so reloading the result never sends the answer again.
    """
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Check answer").click()
    response = answer.value
    expected = 200 if response.request.headers.get("hx-request") else 303
    assert response.status == expected, response.status
    return response


def expect_calibration_result(page: Page) -> None:
    """The right answer to the calibration question, its explanation and its note."""
    result = page.get_by_role("region", name="Correct!")
    expect(result).to_be_visible()
    expect(result).to_contain_text("KL-divergence")
    expect(result.get_by_role("link", name=NOTE_LINK)).to_have_attribute(
        "href", re.compile(r"#working-with-mixed-precision$")
    )
    picked = page.get_by_role("radio", name=CALIBRATION_RIGHT)
    expect(picked).to_be_checked()
    expect(picked).to_be_disabled()
    expect(page.locator("label").filter(has_text="Right answer")).to_contain_text(CALIBRATION_RIGHT)
    expect(page.get_by_role("button", name="Check answer")).to_have_count(0)


@pytest.mark.browser_context_args(viewport=DESKTOP)
def test_practice_journey_with_javascript(
    page: Page, console_errors: list[str], screenshot: Callable[[Page, str], None]
) -> None:
    """Browse to a question through its note, answer it in place, and go on to the next."""
    page.goto("/")
    assert_accessible(page, "home")
    screenshot(page, "home")

    open_topic_from_home(page)
    assert_accessible(page, "topic")

    open_note_from_topic(page)
    assert_accessible(page, "note")
    screenshot(page, "note")

    question_url = open_question_from_note(page)
    number, total = position(page)
    assert_accessible(page, "question")

    choose(page, CALIBRATION_RIGHT)
    # A page load would forget this; an htmx swap keeps the same document.
    page.evaluate("window.__stillTheSamePage = true")
    response = submit_answer(page)
    assert response.request.headers.get("hx-request") == "true"
    assert not response.request.is_navigation_request()
    fragment = response.text()
    assert fragment.lstrip().startswith('<div id="practice"'), fragment[:200]
    assert "<html" not in fragment

    expect_calibration_result(page)
    expect(page).to_have_url(question_url)
    assert page.evaluate("window.__stillTheSamePage") is True
    expect(page.locator("#practice")).to_have_count(1)
    assert_accessible(page, "after answering")
    screenshot(page, "question")

    page.get_by_role("region", name="Correct!").get_by_role("link", name="Next question").click()
    expect(page).to_have_url(QUESTION_URL)
    assert page.url != question_url
    assert position(page) == (number + 1, total)
    expect(page.get_by_role("heading", level=1)).to_have_text(REFIT_STEM)
    expect(page.get_by_role("button", name="Check answer")).to_be_enabled()
    expect(page.get_by_role("region", name="Correct!")).to_have_count(0)
    assert_accessible(page, "next question")

    assert console_errors == []


def test_practice_journey_without_javascript(no_js_page: Page, page: Page) -> None:
    """The same journey with JavaScript off: plain form posts, whole pages back."""
    no_js_page.goto("/")
    open_topic_from_home(no_js_page)
    open_note_from_topic(no_js_page)
    question_url = open_question_from_note(no_js_page)
    # htmx defines window.htmx when it runs; here it must not have run.
    assert no_js_page.evaluate("typeof window.htmx") == "undefined"

    choose(no_js_page, CALIBRATION_RIGHT)
    response = submit_answer(no_js_page)
    assert response.request.is_navigation_request()
    assert "hx-request" not in response.request.headers
    expect_calibration_result(no_js_page)
    # The page scrolls to the result, which matters on a phone.
    expect(no_js_page).to_have_url(
        re.compile(re.escape(question_url) + r"\?choice=\d+#result-heading$")
    )
    # The whole page came back, not the fragment htmx would get.
    expect(no_js_page).to_have_title(re.compile(r"^Question \d+ of \d+ · "))
    expect(no_js_page.get_by_role("navigation", name="Main")).to_be_visible()
    expect(no_js_page.get_by_role("heading", level=1)).to_have_text(CALIBRATION_STEM)

    no_js_page.get_by_role("link", name="Next question").click()
    expect(no_js_page).to_have_url(QUESTION_URL)
    assert no_js_page.url != question_url
    expect(no_js_page.get_by_role("heading", level=1)).to_have_text(REFIT_STEM)

    choose(no_js_page, REFIT_WRONG)
    response = submit_answer(no_js_page)
    assert response.request.is_navigation_request()
    result = no_js_page.get_by_role("region", name="Not quite.")
    expect(result).to_be_visible()
    expect(result).to_contain_text("IRefitter")
    expect(no_js_page.get_by_role("radio", name=REFIT_WRONG)).to_be_checked()
    right = no_js_page.locator("label").filter(has_text="Right answer")
    expect(right).to_have_count(1)
    expect(right).to_contain_text(REFIT_RIGHT)
    mine = no_js_page.locator("label").filter(has_text="Your answer")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text(REFIT_WRONG)

    assert_markup_accessible(
        page, no_js_page.url, no_js_page.content(), "wrong answer, JavaScript off"
    )


@pytest.mark.parametrize(
    ("pick", "badge"), [(CALIBRATION_RIGHT, "Right answer"), (CALIBRATION_WRONG, "Your answer")]
)
def test_picked_answer_takes_the_result_colour(page: Page, pick: str, badge: str) -> None:
    """Once checked, the picked choice is outlined in its badge's colour (green or red)."""
    open_question(page, CALIBRATION_STEM)
    choose(page, pick)
    page.get_by_role("button", name="Check answer").click()
    label = page.locator("label").filter(has_text=pick)
    expect(label).to_contain_text(badge)
    border, badge_colour = label.evaluate(
        """label => [
            getComputedStyle(label).borderTopColor,
            getComputedStyle(label.querySelector('.choice-state')).color,
        ]"""
    )
    assert border == badge_colour, f"border {border}, badge {badge_colour}"


DEPLOYMENT = "Deployment, Jetson & DLA"


@pytest.mark.browser_context_args(viewport=DESKTOP)
def test_practising_a_topic_stays_in_the_topic_to_the_end(
    page: Page, console_errors: list[str]
) -> None:
    """Practising a topic walks its own questions only, and says when it is through."""
    page.goto("/topics/deployment-jetson-dla")
    expected = page.get_by_role("region", name="Questions").get_by_role("listitem").count()
    page.get_by_role("link", name="Practise this topic").click()
    seen: list[str] = []
    while page.get_by_role("button", name="Check answer").count():
        intro = page.locator(".study-intro")
        expect(intro).to_contain_text(f"Practising {DEPLOYMENT}")
        eyebrow = page.locator(".eyebrow")
        expect(eyebrow).to_contain_text(f"Question {len(seen) + 1} of {expected}")
        expect(eyebrow.get_by_role("link")).to_have_text(DEPLOYMENT)
        seen.append(page.get_by_role("heading", level=1).inner_text())
        page.get_by_role("radio").first.check()
        page.get_by_role("button", name="Check answer").click()
        result = page.get_by_role("region", name=re.compile(r"^(Correct!|Not quite\.)$"))
        if len(seen) == 1:
            assert_accessible(page, "a topic's question, answered")
        result.get_by_role("link", name=re.compile(r"^(Next question|Finish)$")).click()
    assert len(seen) == len(set(seen)) == expected == 2
    expect(page.get_by_role("heading", level=1)).to_have_text("You have been through this topic")
    expect(page.get_by_role("link", name="Practise this topic again")).to_be_visible()
    expect(page.get_by_role("link", name="Read the topic’s notes")).to_have_attribute(
        "href", "/topics/deployment-jetson-dla"
    )
    assert_accessible(page, "the end of a topic's practice")
    assert console_errors == []
