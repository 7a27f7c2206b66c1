"""A learner reports that an exam question's key is wrong; the author fixes the key from the
report, which resolves it, goes on to the regrade's dry run and regrades; the learner finds
the notice and their regraded result. The same again with JavaScript off. The key is put
back at the end: other browser tests share the server's content."""

import re
from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, expect

from tests.e2e.support import (
    Account,
    assert_accessible,
    assert_markup_accessible,
    assert_no_horizontal_scroll,
    flash,
    log_in,
    nav,
)
from tests.e2e.test_regrade import _answered, _set_key, _sit

PHONE = {"width": 390, "height": 844}
Check = Callable[[Page, str], None]


def _journey(
    learner_page: Page,
    desk: Page,
    create_account: Callable[..., Account],
    database_url: str,
    check: Check,
) -> None:
    learner = create_account("reporter")
    attempt_id = _sit(learner_page, learner)
    qid, chosen, right, before = _answered(database_url, attempt_id)
    fixed = chosen if right != [chosen] else (1 if chosen != 1 else 2)
    problem = f"Choice {fixed} is the right one, not the key's ({learner.username})."

    learner_page.goto(f"/questions/{qid}")
    learner_page.get_by_role("link", name="Report a problem with this question").click()
    learner_page.get_by_label("Wrong answer").check()
    learner_page.get_by_label("What is wrong").fill(problem)
    learner_page.get_by_role("button", name="Send the report").click()
    expect(flash(learner_page)).to_contain_text("your report was sent")

    log_in(desk, create_account("keyfixer", role="author"))
    try:
        nav(desk).get_by_role("link", name="Reports").click()
        card = desk.locator(".report").filter(has_text=problem)
        card.get_by_role("link", name=re.compile("^Edit this question")).click()
        expect(desk.get_by_role("region", name=re.compile("^Problem report"))).to_contain_text(
            problem
        )
        expect(desk.get_by_label("Resolve the report and tell the reporter")).to_be_checked()
        for box in desk.locator("input[name=right]").all():
            box.set_checked(box.get_attribute("value") == str(fixed))
        desk.get_by_label("Why you change it").fill("The report is right about the key")
        desk.get_by_role("button", name="Save", exact=True).click()

        # the save resolved the report and led on to the regrade's dry run
        expect(flash(desk)).to_contain_text("the report resolved")
        expect(desk.get_by_role("heading", level=1)).to_have_text(re.compile("^Regrade question"))
        expect(desk.locator("#dry-run")).to_contain_text(
            re.compile(r"[1-9]\d* attempts? change score")
        )
        check(desk, "dry run after a key fix from a report")
        desk.get_by_role("button", name=re.compile("^Regrade ")).click()
        expect(flash(desk)).to_contain_text("The regrade is done")
        nav(desk).get_by_role("link", name="Reports").click()
        expect(desk.locator(".report").filter(has_text=problem)).to_have_count(0)

        learner_page.goto("/")
        notices = learner_page.get_by_role("region", name="Notices")
        expect(notices).to_contain_text("was corrected after your report")
        check(learner_page, "home telling the reporter")
        learner_page.goto(f"/attempts/{attempt_id}")
        expect(learner_page.locator(".regrade-note")).to_contain_text(
            re.compile(rf"Regraded on \d{{4}}-\d\d-\d\d: {before} → \d+%")
        )
        check(learner_page, "the reporter's regraded result")
    finally:
        _set_key(desk, qid, right, "Back as it was")


def test_a_reported_key_is_fixed_and_the_reporter_regraded(
    page: Page,
    new_context: Callable[..., BrowserContext],
    create_account: Callable[..., Account],
    database_url: str,
) -> None:
    page.set_viewport_size(PHONE)
    desk = new_context(viewport=PHONE).new_page()

    def check(shown: Page, state: str) -> None:
        assert_accessible(shown, state)
        assert_no_horizontal_scroll(shown, state)

    _journey(page, desk, create_account, database_url, check)


def test_a_reported_key_is_fixed_and_the_reporter_regraded_without_javascript(
    page: Page,
    new_context: Callable[..., BrowserContext],
    create_account: Callable[..., Account],
    database_url: str,
) -> None:
    learner_page = new_context(java_script_enabled=False, viewport=PHONE).new_page()
    desk = new_context(java_script_enabled=False, viewport=PHONE).new_page()

    def check(shown: Page, state: str) -> None:
        assert_no_horizontal_scroll(shown, f"{state}, no JavaScript")
        assert_markup_accessible(page, shown.url, shown.content(), f"{state}, no JavaScript")

    _journey(learner_page, desk, create_account, database_url, check)
