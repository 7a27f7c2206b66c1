"""Going on where I left off, in a real browser: after two answers in a set and an exam begun,
the home page lists the open exam and the set to continue, the set's card goes on at the first
question not answered, and the set page marks the two answers; after a topic's walk home
continues that topic instead; accessible and phone-readable."""

import re
from collections.abc import Callable
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import (
    PARENT_TOPIC,
    SET_PATH,
    Account,
    assert_accessible,
    assert_no_horizontal_scroll,
    choose,
    log_in,
)

SET = "NCA Inference Optimization & TensorRT 5"
EXAM = "TensorRT practice exam"
RIGHT_1 = "Exploiting 2:4 structured sparsity"  # question 1's right choice
WRONG_2 = "CUDA Lite runtime packaged specifically for Jetson"  # a wrong choice of question 2
ATTEMPT_QUESTION = re.compile(r"/attempts/(\d+)/questions/1$")


def _answer(page: Page, choice: str, result: str) -> None:
    choose(page, choice)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name=result)).to_be_visible()


def _begin(page: Page) -> tuple[str, str]:
    """Answer the set's first question rightly and its second wrongly, then start the exam
    and save its first answer; return the third question's address and the exam's."""
    page.goto(SET_PATH)
    page.get_by_role("link", name="Start").click()
    _answer(page, RIGHT_1, "Correct!")
    page.get_by_role("link", name="Next question").click()
    _answer(page, WRONG_2, "Not quite.")
    page.get_by_role("link", name="Next question").click()
    third = urlparse(page.url).path
    page.goto("/exams")
    page.get_by_role("button", name=f"Start {EXAM}").click()
    expect(page).to_have_url(ATTEMPT_QUESTION)
    attempt = ATTEMPT_QUESTION.search(page.url)
    assert attempt
    page.locator("input[name=choice] + label").first.click()
    page.get_by_role("button", name="Save and next").click()
    expect(page).to_have_url(re.compile(r"/questions/2$"))
    return third, f"/attempts/{attempt.group(1)}/questions/2"


@pytest.mark.parametrize("width", [1280, 390])
def test_home_and_the_set_page_go_on_where_i_left_off(
    page: Page, create_account: Callable[..., Account], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, create_account("resume"), "/")
    expect(page.get_by_role("heading", name="Continue")).to_have_count(0)
    third, exam = _begin(page)

    page.goto("/")
    section = page.get_by_role("region", name="Continue")
    expect(section.get_by_role("listitem").first).to_contain_text(
        re.compile(rf"{EXAM} · 1 of 7 questions answered · \d+ min( \d+ s)? left")
    )
    expect(section.get_by_role("link", name=f"Resume {EXAM}")).to_have_attribute("href", exam)
    expect(section).to_contain_text(f"Continue practising {SET} · 2 of 7 answered")
    expect(section.get_by_role("link", name=f"Continue {SET} (question 3 of 7)")).to_have_attribute(
        "href", third
    )
    card = page.get_by_role("region", name="Question sets").get_by_role("listitem")
    card = card.filter(has=page.get_by_role("link", name=SET, exact=True))
    expect(card).to_contain_text("7 questions · 2 answered")
    expect(card.get_by_role("link", name=f"Continue {SET} (question 3)")).to_have_attribute(
        "href", third
    )
    assert_accessible(page, f"home with things to continue at {width} px")
    assert_no_horizontal_scroll(page, f"home at {width} px")

    page.goto(SET_PATH)
    questions = page.get_by_role("region", name="Questions").get_by_role("link")
    expect(questions.nth(0)).to_have_accessible_name(re.compile(r" — right$"))
    expect(questions.nth(1)).to_have_accessible_name(re.compile(r" — wrong$"))
    expect(questions.nth(2)).to_have_accessible_name(re.compile(r" — not answered$"))
    marks = page.locator(".question-mark")
    expect(marks).to_have_text(["✓", "✗", "–", "–", "–", "–", "–"])
    expect(page.get_by_role("link", name="Continue (question 3 of 7)")).to_have_attribute(
        "href", third
    )
    assert_accessible(page, f"set page with marks at {width} px")
    assert_no_horizontal_scroll(page, f"set page at {width} px")

    page.goto("/")
    page.get_by_role("link", name=f"Resume {EXAM}").click()
    expect(page).to_have_url(re.compile(re.escape(exam) + "$"))


TOPIC_PATH = "/topics/inference-optimization-tensorrt"


@pytest.mark.parametrize("width", [1280, 390])
def test_home_continues_the_topic_i_practised_last_and_a_set_answer_switches_it_back(
    page: Page, create_account: Callable[..., Account], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, create_account("topic-walk"), TOPIC_PATH)
    page.get_by_role("link", name="Practise this topic").click()
    expect(page.get_by_text(f"Practising {PARENT_TOPIC}")).to_be_visible()
    _answer(page, RIGHT_1, "Correct!")

    page.goto("/")
    section = page.get_by_role("region", name="Continue")
    expect(section).to_contain_text(f"Continue practising {PARENT_TOPIC} · 1 of 7 answered")
    expect(section).not_to_contain_text(SET)
    assert_accessible(page, f"home with a topic to continue at {width} px")
    assert_no_horizontal_scroll(page, f"home with a topic at {width} px")
    section.get_by_role("link", name=f"Continue {PARENT_TOPIC} (first not answered)").click()
    # a fresh walk of the topic, at its first question not answered: the set's second
    expect(page).to_have_url(re.compile(r"/study/\d+\?plan=[0-9.]+&topic=inference-"))
    expect(page.get_by_text(f"Practising {PARENT_TOPIC}")).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Question 1 of 7 ·"))).to_be_visible()
    expect(page.get_by_role("radio", name=WRONG_2)).to_be_visible()

    page.goto(SET_PATH)
    page.get_by_role("link", name="Continue (question 2 of 7)").click()
    _answer(page, WRONG_2, "Not quite.")
    page.goto("/")
    section = page.get_by_role("region", name="Continue")
    expect(section).to_contain_text(f"Continue practising {SET} · 2 of 7 answered")
    expect(section).not_to_contain_text(f"Continue practising {PARENT_TOPIC}")
