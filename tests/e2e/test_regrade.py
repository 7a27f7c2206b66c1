"""An author fixes the key of a question a learner answered in an exam, looks at the dry run,
regrades, and the learner sees the regraded result; the same again with JavaScript off.
The key is put back at the end: other browser tests share the server's content."""

import json
import re
from collections.abc import Callable

from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, text

from tests.e2e.support import (
    Account,
    assert_accessible,
    assert_no_horizontal_scroll,
    flash,
    log_in,
)

ATTEMPT_URL = re.compile(r"/attempts/(\d+)$")
PHONE = {"width": 390, "height": 844}


def _sit(page: Page, learner: Account) -> int:
    """Answer the first question with its first choice and submit; return the attempt's id."""
    log_in(page, learner, next_path="/exams")
    page.get_by_role("button", name=re.compile("^Start ")).first.click()
    expect(page).to_have_url(re.compile(r"/attempts/\d+/questions/1$"))
    page.locator("input[name=choice] + label").first.click()
    page.get_by_role("button", name="Save and next").click()
    expect(page).to_have_url(re.compile(r"/questions/2$"))
    page.get_by_role("link", name="Review and submit").click()
    page.get_by_role("button", name="Submit the exam").click()
    expect(page).to_have_url(ATTEMPT_URL)
    found = ATTEMPT_URL.search(page.url)
    assert found
    return int(found.group(1))


def _answered(database_url: str, attempt_id: int) -> tuple[int, int, list[int], str]:
    """The first question's id, the position of the chosen choice, the right positions now,
    and the percent the attempt scored."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            qid, selected = connection.execute(
                text(
                    "SELECT question_id, selected_ids FROM exam_attempt_item"
                    " WHERE attempt_id = :a AND position = 1"
                ),
                {"a": attempt_id},
            ).one()
            selected = selected if isinstance(selected, list) else json.loads(selected)
            rows = connection.execute(
                text("SELECT id, position, is_correct FROM choice WHERE question_id = :q"),
                {"q": qid},
            ).all()
            score = connection.execute(
                text("SELECT percent FROM exam_attempt WHERE id = :a"), {"a": attempt_id}
            ).scalar_one()
    finally:
        engine.dispose()
    chosen = next(position for cid, position, _ in rows if cid == selected[0])
    right = sorted(position for _, position, ok in rows if ok)
    return qid, chosen, right, f"{score:.0f}%"


def _set_key(page: Page, qid: int, right: list[int], note: str) -> None:
    """Mark the choices at these positions right in the editor, the others wrong, and save."""
    page.goto(f"/author/questions/{qid}/edit")
    for box in page.locator("input[name=right]").all():
        box.set_checked(box.get_attribute("value") in [str(n) for n in right])
    page.get_by_label("Why you change it").fill(note)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(flash(page)).to_contain_text("with different right answers")


def _journey(
    learner_page: Page,
    author_page: Page,
    create_account: Callable[..., Account],
    database_url: str,
    check: bool,
) -> None:
    attempt_id = _sit(learner_page, create_account("regraded"))
    qid, chosen, right, before = _answered(database_url, attempt_id)
    # the learner's choice becomes the only right one; if it was already, another one does
    fixed = chosen if right != [chosen] else (1 if chosen != 1 else 2)
    log_in(author_page, create_account("fixer", role="author"))
    _set_key(author_page, qid, [fixed], "The key named the wrong choice")
    try:
        # the save leads straight to the dry run
        expect(author_page.get_by_role("heading", level=1)).to_have_text(
            re.compile("^Regrade question")
        )
        expect(author_page.locator("#dry-run")).to_contain_text("change score")
        if check:
            assert_accessible(author_page, "regrade dry run")
            assert_no_horizontal_scroll(author_page, "regrade dry run")
        author_page.get_by_role("button", name=re.compile("^Regrade ")).click()
        expect(flash(author_page)).to_contain_text("The regrade is done")
        expect(author_page.get_by_role("heading", name="Regrades of this question")).to_be_visible()
        learner_page.goto(f"/attempts/{attempt_id}")
        note = learner_page.locator(".regrade-note")
        expect(note).to_contain_text(re.compile(rf"Regraded on \d{{4}}-\d\d-\d\d: {before} → \d+%"))
        if check:
            assert_accessible(learner_page, "regraded result")
            assert_no_horizontal_scroll(learner_page, "regraded result")
        learner_page.goto("/progress")
        expect(learner_page.locator(".regrade-notice")).to_contain_text(f"{before} →")
        if check:
            assert_accessible(learner_page, "dashboard telling of a regrade")
            assert_no_horizontal_scroll(learner_page, "dashboard telling of a regrade")
    finally:
        _set_key(author_page, qid, right, "Back as it was")


def test_an_author_regrades_and_the_learner_sees_it(
    page: Page, new_context: Callable[..., Page], create_account, database_url: str
) -> None:
    author = new_context().new_page()
    for shown in (page, author):
        shown.set_viewport_size(PHONE)
    _journey(page, author, create_account, database_url, check=True)


def test_the_regrade_works_without_javascript(
    no_js_page: Page, new_context: Callable[..., Page], create_account, database_url: str
) -> None:
    author = new_context(java_script_enabled=False).new_page()
    _journey(no_js_page, author, create_account, database_url, check=False)
