"""Notes, search and errata in the browser, with axe-core on every page visited.

From the header's search box to a note, to a question it teaches, answered, and back to the
note; then a learner reports a problem and an author shows it as an erratum and resolves it.
"""

import re
from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, expect

from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    MIXED_PRECISION,
    NOTE_PATH,
    QUESTION_URL,
    Account,
    assert_accessible,
    choose,
    flash,
    log_in,
    nav,
    open_question,
)

SECTION_URL = re.compile(f"{NOTE_PATH}#working-with-mixed-precision$")


def test_search_a_note_its_question_and_back_accessible_all_the_way(page: Page) -> None:
    page.goto("/")
    assert_accessible(page, "home")
    box = page.get_by_role("search").get_by_role("searchbox")
    box.fill("calibration")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/search\?q=calibration$"))
    assert_accessible(page, "search results")

    notes = page.get_by_role("region", name=re.compile("^Notes"))
    notes.get_by_role("link", name=MIXED_PRECISION).click()
    expect(page).to_have_url(SECTION_URL)
    section = page.locator("#working-with-mixed-precision")
    erratum = section.get_by_role("complementary", name=f"Errata for {MIXED_PRECISION}")
    expect(erratum).to_contain_text("Set kINT8")
    expect(erratum).to_contain_text("kFP16")
    assert_accessible(page, "note")

    section.get_by_role("link", name=CALIBRATION_STEM).click()
    expect(page).to_have_url(QUESTION_URL)
    assert_accessible(page, "question")
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    assert_accessible(page, "answered")

    page.get_by_role("link", name=re.compile(MIXED_PRECISION)).first.click()
    expect(page).to_have_url(SECTION_URL)
    expect(page.locator("#working-with-mixed-precision")).to_be_in_viewport()
    assert_accessible(page, "note, back from the question")


def test_a_learner_reports_a_problem_and_an_author_resolves_it(
    page: Page,
    new_context: Callable[..., BrowserContext],
    create_account: Callable[..., Account],
) -> None:
    learner, author = create_account("learner"), create_account("author", role="author")
    problem = f"The explanation names the wrong calibrator ({learner.username})."
    log_in(page, learner)
    question_url = open_question(page, CALIBRATION_STEM)

    page.get_by_role("link", name="Report a problem with this question").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Report a problem")
    assert_accessible(page, "report form")
    page.get_by_role("button", name="Send the report").click()  # nothing chosen: the browser asks
    expect(page.get_by_role("heading", level=1)).to_have_text("Report a problem")
    page.get_by_label("Wrong answer").check()
    page.get_by_label("What is wrong").fill("bad")
    page.get_by_role("button", name="Send the report").click()
    expect(page.get_by_text("Say what is wrong in 5 to 1000 characters.")).to_be_visible()
    assert_accessible(page, "report form with an error")
    page.get_by_label("What is wrong").fill(problem)
    page.get_by_role("button", name="Send the report").click()
    expect(page).to_have_url(re.compile(r"/questions/\d+\?done=reported$"))
    expect(flash(page)).to_contain_text("your report was sent")
    expect(page.get_by_role("complementary", name="Errata for this question")).to_have_count(0)
    assert_accessible(page, "question after the report")

    desk = new_context().new_page()
    log_in(desk, author)
    desk.goto(question_url)  # authors see the question's note links, to decide on suggestions
    expect(
        desk.get_by_role("heading", name="Note sections linked to this question")
    ).to_be_visible()
    assert_accessible(desk, "question, as an author")
    desk.goto(NOTE_PATH)
    expect(desk.get_by_role("button", name=re.compile("^Confirm")).first).to_be_visible()
    assert_accessible(desk, "note, as an author")
    nav(desk).get_by_role("link", name="Reports").click()
    expect(desk.get_by_role("heading", level=1)).to_have_text("Problem reports")
    assert_accessible(desk, "the queue")
    card = desk.locator(".report").filter(has_text=problem)
    expect(card).to_contain_text(f"reported by {learner.username}")
    card.get_by_role("button", name=re.compile("Show it on the content as an erratum")).click()
    expect(flash(desk)).to_contain_text("shown on its content as an erratum")

    page.goto(question_url)  # the erratum may name the right answer: it waits for the answer
    erratum = page.get_by_role("complementary", name="Errata for this question")
    expect(page.get_by_text("This question has a known erratum")).to_be_visible()
    expect(erratum).to_have_count(0)
    expect(page.get_by_text(problem)).to_have_count(0)
    assert_accessible(page, "question with an erratum, not answered")
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(erratum).to_contain_text(problem)
    expect(page.get_by_text("This question has a known erratum")).to_have_count(0)
    assert_accessible(page, "question with an erratum, answered")

    card = desk.locator(".report").filter(has_text=problem)
    card.get_by_label(re.compile("Resolution")).fill("The explanation was corrected.")
    card.get_by_role("button", name=re.compile("Resolve")).click()
    expect(flash(desk)).to_contain_text("The report was resolved.")
    expect(desk.locator(".report").filter(has_text=problem)).to_have_count(0)
    desk.get_by_role("link", name="Resolved").click()
    resolved = desk.locator(".report").filter(has_text=problem)
    expect(resolved).to_contain_text("The explanation was corrected.")
    assert_accessible(desk, "resolved reports")

    page.reload()
    expect(page.get_by_role("complementary", name="Errata for this question")).to_have_count(0)


def test_a_note_section_problem_is_reported_from_the_section(
    page: Page, create_account: Callable[..., Account]
) -> None:
    log_in(page, create_account("learner"))
    page.goto(NOTE_PATH)
    page.get_by_role("link", name=f"Report a problem in “{MIXED_PRECISION}”").click()
    expect(page.get_by_label("Where in the note")).to_have_value("working-with-mixed-precision")
    assert_accessible(page, "note report form")
    page.get_by_label("Outdated").check()
    page.get_by_label("What is wrong").fill("TensorRT 10 renamed this builder flag.")
    page.get_by_role("button", name="Send the report").click()
    expect(page).to_have_url(
        re.compile(rf"{NOTE_PATH}\?done=reported#working-with-mixed-precision$")
    )
    expect(flash(page)).to_contain_text("your report was sent")
