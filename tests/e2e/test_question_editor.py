"""An author fixes an explanation in the browser, previews it, and restores the older revision;
the same again with JavaScript off. Every page axe-clean and readable at 390 px."""

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.support import (
    SET_PATH,
    Account,
    assert_accessible,
    assert_markup_accessible,
    assert_no_horizontal_scroll,
    flash,
    log_in,
    open_question,
)

STEM = re.compile(r"what is the function of 'mark_output\(\)'")
ORIGINAL = "mark_output() tells TensorRT which tensors should be accessible as outputs"
PHONE = {"width": 390, "height": 844}


def _fix_and_restore(page: Page, fixed: str, check: Callable[[Page, str], None]) -> None:
    """Fix the explanation, save it with a note, then restore the revision before it."""
    page.get_by_role("link", name=re.compile("^Edit")).first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("^Edit question"))
    check(page, "editor")
    explanation = page.get_by_label("Explanation (Markdown)")
    expect(explanation).to_have_value(re.compile(re.escape(ORIGINAL)))
    explanation.fill(fixed)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#note-error")).to_contain_text("Say in a few words why you change it")
    expect(page.get_by_label("Explanation (Markdown)")).to_have_value(fixed)  # kept
    check(page, "editor refusing a save")
    page.get_by_label("Why you change it").fill("Say what the bindings are")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("region", name="Preview")).to_contain_text("bindings, by name")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(flash(page)).to_contain_text("saved as a new revision")
    page.get_by_role("link", name="History").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("^History of question"))
    changes = page.get_by_role("list", name="Changes")
    expect(changes.locator(".diff-added")).to_contain_text(["Explanation: " + fixed])
    check(page, "history")
    restore = page.get_by_role("button", name=re.compile(r"^Restore this revision"))
    restore.last.click()
    expect(flash(page)).to_contain_text("The revision was restored")
    expect(page.locator(".revision").first).to_contain_text("Restored revision")
    page.get_by_role("link", name="Edit the question").click()
    expect(page.get_by_label("Explanation (Markdown)")).to_have_value(
        re.compile(re.escape(ORIGINAL))
    )


def test_an_author_fixes_an_explanation_and_restores_it(
    page: Page, create_account: Callable[..., Account]
) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, create_account("author", role="author"))
    open_question(page, STEM)

    def check(page: Page, state: str) -> None:
        assert_accessible(page, state)
        assert_no_horizontal_scroll(page, state)

    _fix_and_restore(
        page, "It names a tensor an output: the engine lists it among its bindings, by name.", check
    )


def test_the_editor_works_without_javascript(
    no_js_page: Page, page: Page, create_account: Callable[..., Account]
) -> None:
    no_js_page.set_viewport_size(PHONE)
    log_in(no_js_page, create_account("author", role="author"))
    open_question(no_js_page, STEM)

    def check(shown: Page, state: str) -> None:
        assert_no_horizontal_scroll(shown, f"{state}, no JavaScript")
        assert_markup_accessible(page, shown.url, shown.content(), f"{state}, no JavaScript")

    _fix_and_restore(
        no_js_page, "An output tensor: the engine keeps its bindings, by name, for it.", check
    )


def test_the_new_question_form_is_accessible_on_a_phone(
    page: Page, create_account: Callable[..., Account]
) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, create_account("author", role="author"))
    page.goto(SET_PATH)
    page.get_by_role("link", name="Add a question to this set").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("New question")
    page.get_by_role("button", name="Add a choice").click()  # nothing is saved
    expect(page.get_by_label("Choice 5", exact=True)).to_be_visible()
    assert_accessible(page, "new question")
    assert_no_horizontal_scroll(page, "new question")


def _two_right_answers(page: Page, suffix: str) -> None:
    """Import a one-question set, add a question with two right answers to it, and answer it
    right in practice."""
    name = f"two-right-{suffix}.gift"
    gift = "::first:: Which tool builds engines? {=trtexec ~nvcc ~gdb}\n"
    page.goto("/author/import")
    page.get_by_label("Document").set_input_files(
        {"name": name, "mimeType": "text/plain", "buffer": gift.encode()}
    )
    page.get_by_role("button", name="Preview", exact=True).click()
    page.get_by_role("button", name=f"Import {name}").click()
    expect(page.get_by_role("status")).to_contain_text("questions created: 1")
    page.goto(f"/sets/two-right-{suffix}")
    page.get_by_role("link", name="Add a question to this set").click()
    page.get_by_label("Question (Markdown)").fill("Which two precisions can an engine use?")
    page.get_by_label("Several right answers").check()
    for n, text in enumerate(("FP16", "FP64", "INT8", "BF64"), start=1):
        page.get_by_label(f"Choice {n}", exact=True).fill(text)
    page.get_by_label("Choice 1 is right").check()
    page.get_by_label("Choice 3 is right").check()
    page.get_by_label("Explanation (Markdown)").fill("Engines run layers in FP16 and INT8.")
    page.get_by_label("Why you change it").fill("A question on precisions")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(flash(page)).to_contain_text("added to its set")

    page.goto(f"/sets/two-right-{suffix}")
    page.get_by_role("link", name="Which two precisions can an engine use?").click()
    page.get_by_text("FP16", exact=True).click()
    page.get_by_text("INT8", exact=True).click()
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("region", name="Correct!")).to_contain_text("FP16 and INT8")


def test_an_author_adds_a_question_with_two_right_answers(
    page: Page, create_account: Callable[..., Account]
) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, create_account("author", role="author"))
    _two_right_answers(page, "js")
    assert_accessible(page, "a new question answered")
    assert_no_horizontal_scroll(page, "a new question answered")


def test_an_author_adds_a_question_with_two_right_answers_without_javascript(
    no_js_page: Page, create_account: Callable[..., Account]
) -> None:
    log_in(no_js_page, create_account("author", role="author"))
    _two_right_answers(no_js_page, "nojs")
