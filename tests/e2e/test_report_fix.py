"""From a learner's report to a corrected question: the author edits it beside the report,
saving resolves it, and the learner finds a notice on their home page and dismisses it; the
same again with JavaScript off. Every page axe-clean and readable at 390 px."""

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
    open_question,
)

STEM = re.compile(r"throughput mode \('maximize throughput' flag in trtexec\)")
PHONE = {"width": 390, "height": 844}
CORRECTED = "was corrected after your report"
Check = Callable[[Page, str], None]


def _journey(
    learner_page: Page, desk: Page, learner: Account, author: Account, check: Check, js: bool
) -> None:
    problem = f"The explanation should name CUDA streams ({learner.username})."
    log_in(learner_page, learner)
    open_question(learner_page, STEM)
    learner_page.get_by_role("link", name="Report a problem with this question").click()
    learner_page.get_by_label("Other").check()
    learner_page.get_by_label("What is wrong").fill(problem)
    learner_page.get_by_role("button", name="Send the report").click()
    expect(flash(learner_page)).to_contain_text("your report was sent")

    log_in(desk, author)
    nav(desk).get_by_role("link", name="Reports").click()
    card = desk.locator(".report").filter(has_text=problem)
    card.get_by_role("link", name=re.compile("^Edit this question")).click()
    expect(desk.get_by_role("heading", level=1)).to_have_text(re.compile("^Edit question"))
    beside = desk.get_by_role("region", name=re.compile(r"^Problem report \d+"))
    expect(beside).to_contain_text(problem)
    expect(beside).to_contain_text(f"reported by {learner.username}")
    box = desk.get_by_label("Resolve the report and tell the reporter")
    expect(box).to_be_checked()
    check(desk, "editor beside a report")
    explanation = desk.get_by_label("Explanation (Markdown)")
    explanation.fill(explanation.input_value() + f" Each stream is a CUDA stream ({problem[-10:]})")
    desk.get_by_role("button", name="Save", exact=True).click()  # no note: refused, kept
    expect(desk.locator("#note-error")).to_contain_text("Say in a few words why you change it")
    expect(desk.get_by_label("Resolve the report and tell the reporter")).to_be_checked()
    expect(desk.get_by_role("region", name=re.compile(r"^Problem report"))).to_contain_text(problem)
    desk.get_by_label("Why you change it").fill("Name the CUDA streams")
    desk.get_by_role("button", name="Save", exact=True).click()
    expect(flash(desk)).to_contain_text("the report resolved")
    expect(desk.locator(".report").filter(has_text=problem)).to_have_count(0)
    check(desk, "queue after the fix")

    learner_page.goto("/")
    notices = learner_page.get_by_role("region", name="Notices")
    expect(notices).to_contain_text(CORRECTED)
    check(learner_page, "home with a notice")
    notices.get_by_role("button", name=re.compile("^Dismiss")).click()
    expect(learner_page.get_by_text(CORRECTED)).to_have_count(0)
    if not js:  # the form's post came back to the home page, saying what it did
        expect(flash(learner_page)).to_contain_text("The notice was dismissed.")
    learner_page.goto("/progress")
    expect(learner_page.get_by_text(CORRECTED)).to_have_count(0)


def test_a_report_becomes_a_fix_and_a_notice(
    page: Page, new_context: Callable[..., BrowserContext], create_account: Callable[..., Account]
) -> None:
    page.set_viewport_size(PHONE)
    desk = new_context(viewport=PHONE).new_page()

    def check(shown: Page, state: str) -> None:
        assert_accessible(shown, state)
        assert_no_horizontal_scroll(shown, state)

    learner, author = create_account("learner"), create_account("author", role="author")
    _journey(page, desk, learner, author, check, js=True)


def test_a_report_becomes_a_fix_and_a_notice_without_javascript(
    page: Page, new_context: Callable[..., BrowserContext], create_account: Callable[..., Account]
) -> None:
    learner_page = new_context(java_script_enabled=False, viewport=PHONE).new_page()
    desk = new_context(java_script_enabled=False, viewport=PHONE).new_page()

    def check(shown: Page, state: str) -> None:
        assert_no_horizontal_scroll(shown, f"{state}, no JavaScript")
        assert_markup_accessible(page, shown.url, shown.content(), f"{state}, no JavaScript")

    learner, author = create_account("learner"), create_account("author", role="author")
    _journey(learner_page, desk, learner, author, check, js=False)


def test_an_admin_reads_the_audit_log_on_a_phone(
    page: Page, create_account: Callable[..., Account]
) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, create_account("admin", role="admin"), next_path="/admin/users")
    page.get_by_role("link", name="audit log").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Audit log")
    page.get_by_label("Show").select_option(label="Question edits")
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"/admin/audit\?kind=content$"))
    expect(page.locator("tbody tr").first).to_contain_text("revision")
    assert_accessible(page, "audit log")
    assert_no_horizontal_scroll(page, "audit log")
