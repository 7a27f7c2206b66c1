"""Accounts in the browser: sign up, log in and out, the account page, API tokens, user admin.

Every test makes accounts of its own (unique names), because the server and its database
are shared by the whole run. Learners, authors and admins that a test only needs to exist
are made with `studyhall users create`, as an operator would; only the sign-up tests use the
sign-up form, which the server rate-limits per client address.
"""

import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import (
    APIRequestContext,
    BrowserContext,
    Locator,
    Page,
    Playwright,
    Response,
    expect,
)

from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    Account,
    assert_accessible,
    assert_markup_accessible,
    assert_no_horizontal_scroll,
    choose,
    expect_logged_in,
    expect_logged_out,
    flash,
    log_in,
    nav,
    new_password,
    open_question,
    submit_login,
    unique_username,
)

PROJECT_ROOT = Path(__file__).resolve().parents[2]
STUDYHALL = Path(sys.executable).parent / "studyhall"
PHONE = {"width": 390, "height": 844}

WRONG_CREDENTIALS = "Wrong username or password."
SIGNED_UP = "Welcome! Your account is ready and you are logged in."
LOGGED_OUT = "You are logged out."
PASSWORD_CHANGED = (
    "Your password was changed. Other devices were logged out and your API tokens were revoked."
)
ACCOUNT_DELETED = "Your account and everything in it were deleted."
TOKEN_REVOKED = "The token was revoked; scripts using it can no longer sign in."
ROLE_CHANGED = "The role was changed."
FORBIDDEN = "You are not allowed to do that"


# --- accounts -----------------------------------------------------------------------------


@pytest.fixture
def api(playwright: Playwright, base_url: str) -> Iterator[APIRequestContext]:
    """HTTP requests from a script: no browser cookies, only the headers a test sends."""
    context = playwright.request.new_context(base_url=base_url)
    yield context
    context.dispose()


# --- page helpers -------------------------------------------------------------------------


def log_out(page: Page, username: str) -> None:
    nav(page).get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(r"/\?done=logged-out$"))
    expect(flash(page)).to_have_text(LOGGED_OUT)
    expect_logged_out(page, username)


def login_refused(page: Page, username: str, password: str) -> Response:
    """Send the log-in form with these credentials; it must come back with the error."""
    page.goto("/login")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        submit_login(page, username, password)
    expect(page.get_by_role("alert")).to_have_text(WRONG_CREDENTIALS)
    expect_logged_out(page, username)
    return posted.value


def expect_field_error(field: Locator, message: str) -> None:
    """The field is marked invalid and its error is part of its accessible description."""
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_accessible_description(re.compile(re.escape(message)))


def answer_calibration_question(page: Page) -> None:
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("region", name="Correct!")).to_be_visible()


# --- sign up, log in, log out -------------------------------------------------------------


def test_sign_up_practise_and_log_out(page: Page) -> None:
    """A guest signs up from a question page, is logged in, answers, and logs out."""
    username = unique_username("learner")
    password = new_password()
    question_url = open_question(page, CALIBRATION_STEM)
    expect(page.get_by_text("to keep a record of your answers")).to_be_visible()
    assert_accessible(page, "question, guest")

    nav(page).get_by_role("link", name="Sign up").click()
    expect(page).to_have_url(re.compile(r"/signup(\?next=.*)?$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Create an account")
    assert_accessible(page, "sign-up form")

    # A common password is refused beside its field; the username stays filled in.
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill("password")
    page.get_by_role("button", name="Create account").click()
    expect_field_error(
        page.get_by_label("Password", exact=True),
        "That password is one of the most common ones; pick another.",
    )
    expect(page.get_by_label("Username")).to_have_value(username)
    expect_logged_out(page, username)
    assert_accessible(page, "sign-up form, password refused")

    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Create account").click()
    expect(page).to_have_url(re.compile(r"[?&]done=signed-up$"))
    expect(flash(page)).to_have_text(SIGNED_UP)
    expect_logged_in(page, username)
    assert_accessible(page, "just signed up")

    page.goto(question_url)
    expect(page.get_by_role("heading", level=1)).to_have_text(CALIBRATION_STEM)
    expect_logged_in(page, username)
    expect(page.get_by_text("to keep a record of your answers")).to_have_count(0)
    answer_calibration_question(page)
    assert_accessible(page, "question answered, logged in")

    log_out(page, username)
    assert_accessible(page, "logged out")
    # The session is over on the server too, not only in the nav.
    page.goto("/account")
    expect(page).to_have_url(re.compile(r"/login\?next="))


def test_log_in_returns_to_the_page_asked_for(
    page: Page, create_account: Callable[..., Account]
) -> None:
    """/account sends a guest to log in and back; so does the nav's "Log in" link."""
    account = create_account("learner")

    page.goto("/account")
    expect(page).to_have_url(re.compile(r"/login\?next=(/|%2F)account$"))
    assert_accessible(page, "log-in form")
    submit_login(page, account.username, account.password)
    expect(page).to_have_url(re.compile(r"/account$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Your account")
    expect(page.get_by_role("main")).to_contain_text(f"Logged in as {account.username}")
    expect_logged_in(page, account.username)
    assert_accessible(page, "account page")

    log_out(page, account.username)
    question_url = open_question(page, CALIBRATION_STEM)
    nav(page).get_by_role("link", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/login\?next=(/|%2F)questions(/|%2F)\d+$"))
    submit_login(page, account.username, account.password)
    expect(page).to_have_url(question_url)
    expect(page.get_by_role("heading", level=1)).to_have_text(CALIBRATION_STEM)
    expect_logged_in(page, account.username)
    assert_accessible(page, "question, back after logging in")


def test_wrong_password_keeps_the_username_and_says_why(
    page: Page, create_account: Callable[..., Account]
) -> None:
    """The error names no field (accounts cannot be probed) and the username stays."""
    account = create_account("learner")

    response = login_refused(page, account.username, "not-" + account.password)
    assert response.status == 400, response.status
    error = page.get_by_role("alert")
    expect(error).to_be_visible()
    expect(page.get_by_label("Username")).to_have_value(account.username)
    # The password is never sent back in the page.
    expect(page.get_by_label("Password", exact=True)).to_have_value("")
    assert account.password not in page.content()
    assert_accessible(page, "wrong password")

    # The kept username is enough: only the password needs typing again.
    page.get_by_label("Password", exact=True).fill(account.password)
    page.get_by_role("main").get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/$"))
    expect_logged_in(page, account.username)


# --- the account page ---------------------------------------------------------------------


def test_change_password(
    page: Page, new_context: Callable[..., BrowserContext], create_account: Callable[..., Account]
) -> None:
    """A wrong current password is refused at its field; a right one changes the password,
    logs out the other devices, and only the new password logs in afterwards."""
    account = create_account("learner")
    other_device = new_context().new_page()
    log_in(other_device, account)
    log_in(page, account)

    current = page.get_by_label("Current password")
    new = page.get_by_label("New password")
    changed = new_password()
    current.fill("not-" + account.password)
    new.fill(changed)
    page.get_by_role("button", name="Change password").click()
    expect_field_error(current, "Your current password is not right.")
    expect(new).not_to_have_attribute("aria-invalid", "true")
    assert_accessible(page, "change password, wrong current password")

    current.fill(account.password)
    new.fill(changed)
    page.get_by_role("button", name="Change password").click()
    expect(page).to_have_url(re.compile(r"/account\?done=password-changed$"))
    expect(flash(page)).to_have_text(PASSWORD_CHANGED)
    expect(current).not_to_have_attribute("aria-invalid", "true")
    expect_logged_in(page, account.username)
    assert_accessible(page, "password changed")

    other_device.goto("/account")
    expect(other_device).to_have_url(re.compile(r"/login\?next="))

    log_out(page, account.username)
    login_refused(page, account.username, account.password)
    log_in(page, Account(account.username, changed))


def test_api_token_works_until_revoked(
    page: Page, api: APIRequestContext, create_account: Callable[..., Account]
) -> None:
    """A new token, with the scope chosen by its label, is shown once, authenticates
    /api/v1/me, and stops working when revoked."""
    account = create_account("learner")
    log_in(page, account)
    expect(page.get_by_text("You have no API tokens.")).to_be_visible()

    token_name = "laptop script"
    page.get_by_label("Token name").fill(token_name)
    expect(page.get_by_label("Read: questions, notes, search")).to_be_checked()
    expect(page.get_by_label("Admin: also")).to_have_count(0)  # a learner's role is below it
    page.get_by_label("Practise: also answer questions and sit exams").check()
    page.get_by_role("button", name="Create token").click()
    shown = page.locator("code#new-token")
    expect(shown).to_have_text(re.compile(r"^shpat_\S{20,}$"))
    token = shown.inner_text()
    tokens = page.get_by_role("table", name="Your API tokens")
    row = tokens.get_by_role("row").filter(has_text=token_name)
    expect(row).to_have_count(1)
    expect(row).to_contain_text(f"…{token[-4:]}")
    expect(row).to_contain_text("practise")
    assert_accessible(page, "new API token shown")

    me = api.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status == 200, me.text()
    assert me.json() == {"username": account.username, "role": "learner", "scope": "practise"}

    page.goto("/account")
    expect(row).to_have_count(1)
    expect(page.locator("#new-token")).to_have_count(0)
    assert token not in page.content()

    row.get_by_role("button", name=f"Revoke {token_name}", exact=True).click()
    expect(page).to_have_url(re.compile(r"/account\?done=token-revoked$"))
    expect(flash(page)).to_have_text(TOKEN_REVOKED)
    expect(row).to_contain_text("revoked")
    expect(row.get_by_role("button")).to_have_count(0)
    assert_accessible(page, "token revoked")

    me = api.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status == 401, me.text()
    assert me.headers.get("www-authenticate") == "Bearer"


def test_delete_account(page: Page, create_account: Callable[..., Account]) -> None:
    """The wrong password deletes nothing; the right one deletes the account for good."""
    account = create_account("learner")
    log_in(page, account)

    confirm = page.get_by_label("Password, to confirm")
    confirm.fill("not-" + account.password)
    page.get_by_role("button", name="Delete my account").click()
    expect_field_error(confirm, "That password is not right; your account was not deleted.")
    expect_logged_in(page, account.username)
    assert_accessible(page, "delete account, wrong password")

    page.goto("/account")
    expect(page.get_by_role("main")).to_contain_text(f"Logged in as {account.username}")
    confirm.fill(account.password)
    page.get_by_role("button", name="Delete my account").click()
    expect(page).to_have_url(re.compile(r"/\?done=account-deleted$"))
    expect(flash(page)).to_have_text(ACCOUNT_DELETED)
    expect_logged_out(page, account.username)
    assert_accessible(page, "account deleted")

    login_refused(page, account.username, account.password)


def test_sign_up_and_log_in_without_javascript(no_js_page: Page, page: Page) -> None:
    """With JavaScript off every account form is a plain post that answers with a page."""
    username = unique_username("nojs")
    password = new_password()
    question_url = open_question(no_js_page, CALIBRATION_STEM)
    assert no_js_page.evaluate("typeof window.htmx") == "undefined"

    nav(no_js_page).get_by_role("link", name="Log in").click()
    expect(no_js_page).to_have_url(re.compile(r"/login\?next="))
    assert_markup_accessible(page, no_js_page.url, no_js_page.content(), "log in, JS off")
    # The log-in page's own "Sign up" link keeps the way back to the question.
    no_js_page.get_by_role("main").get_by_role("link", name="Sign up").click()
    expect(no_js_page).to_have_url(re.compile(r"/signup\?next="))
    assert_markup_accessible(page, no_js_page.url, no_js_page.content(), "sign up, JS off")

    no_js_page.get_by_label("Username").fill(username)
    no_js_page.get_by_label("Password", exact=True).fill(password)
    with no_js_page.expect_response(lambda r: r.request.method == "POST") as posted:
        no_js_page.get_by_role("button", name="Create account").click()
    assert posted.value.request.is_navigation_request()
    expect(no_js_page).to_have_url(f"{question_url}?done=signed-up")
    expect(flash(no_js_page)).to_have_text(SIGNED_UP)
    expect_logged_in(no_js_page, username)
    assert_markup_accessible(page, no_js_page.url, no_js_page.content(), "signed up, JS off")

    log_out(no_js_page, username)
    assert_markup_accessible(page, no_js_page.url, no_js_page.content(), "logged out, JS off")

    nav(no_js_page).get_by_role("link", name="Log in").click()
    submit_login(no_js_page, username, password)
    expect(no_js_page).to_have_url(re.compile(r"/$"))
    expect_logged_in(no_js_page, username)
    log_out(no_js_page, username)


# --- roles --------------------------------------------------------------------------------


def test_admin_makes_a_learner_an_author(
    page: Page, new_context: Callable[..., BrowserContext], create_account: Callable[..., Account]
) -> None:
    """Only admins reach /admin/users; a role changed there opens the import page."""
    admin = create_account("admin", role="admin")
    learner = create_account("learner")

    learner_page = new_context().new_page()
    log_in(learner_page, learner)
    expect(nav(learner_page).get_by_role("link", name="Users")).to_have_count(0)
    expect(nav(learner_page).get_by_role("link", name="Import")).to_have_count(0)
    for path in ("/admin/users", "/author/import"):
        response = learner_page.goto(path)
        assert response is not None
        assert response.status == 403, f"{path}: {response.status}"
        expect(learner_page.get_by_role("heading", level=1)).to_have_text(FORBIDDEN)
        expect(learner_page.get_by_text("Error 403")).to_be_visible()
        assert_accessible(learner_page, f"{path} as a learner")

    log_in(page, admin)
    nav(page).get_by_role("link", name="Users").click()
    expect(page).to_have_url(re.compile(r"/admin/users$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Users")
    assert_accessible(page, "user admin")

    role = page.get_by_label(f"Role of {learner.username}", exact=True)
    expect(role).to_have_value("learner")
    role.select_option("author")
    page.get_by_role("button", name=f"Save role of {learner.username}", exact=True).click()
    expect(page).to_have_url(re.compile(r"/admin/users\?done=role-changed$"))
    expect(flash(page)).to_have_text(ROLE_CHANGED)
    expect(role).to_have_value("author")
    expect(page.get_by_label(f"Role of {admin.username}", exact=True)).to_have_value("admin")
    assert_accessible(page, "role changed")

    # The same session of the new author sees the change on its next page.
    learner_page.goto("/")
    expect(nav(learner_page).get_by_role("link", name="Users")).to_have_count(0)
    nav(learner_page).get_by_role("link", name="Import").click()
    expect(learner_page).to_have_url(re.compile(r"/author/import$"))
    expect(learner_page.get_by_role("heading", level=1)).to_have_text("Import content")
    expect(learner_page.get_by_label("Document")).to_be_visible()
    assert_accessible(learner_page, "import form as an author")
    response = learner_page.goto("/admin/users")
    assert response is not None
    assert response.status == 403


# --- phone width --------------------------------------------------------------------------


def refuse_login(page: Page) -> None:
    page.get_by_label("Username").fill(unique_username("nobody"))
    page.get_by_label("Password", exact=True).fill(new_password())
    page.get_by_role("main").get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_have_text(WRONG_CREDENTIALS)


def refuse_signup(page: Page) -> None:
    page.get_by_label("Username").fill("not a valid name!")
    page.get_by_label("Password", exact=True).fill(new_password())
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_label("Username")).to_have_attribute("aria-invalid", "true")


@pytest.mark.browser_context_args(viewport=PHONE)
@pytest.mark.parametrize(("path", "refuse"), [("/login", refuse_login), ("/signup", refuse_signup)])
def test_guest_account_forms_fit_a_phone(
    page: Page, path: str, refuse: Callable[[Page], None]
) -> None:
    """The log-in and sign-up forms, before and after an error, fit 390 px."""
    page.goto(path)
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert_no_horizontal_scroll(page, path)
    assert_accessible(page, f"{path} on a phone")

    refuse(page)
    assert_no_horizontal_scroll(page, f"{path} with an error")
    assert_accessible(page, f"{path} with an error, on a phone")


@pytest.mark.browser_context_args(viewport=PHONE)
def test_account_page_fits_a_phone(page: Page, create_account: Callable[..., Account]) -> None:
    """/account fits 390 px: as it opens, with a field error, and with a new token shown."""
    account = create_account("ph", length=10)
    log_in(page, account)
    assert_no_horizontal_scroll(page, "/account")
    assert_accessible(page, "/account on a phone")

    page.get_by_label("Current password").fill("not-" + account.password)
    page.get_by_label("New password").fill(new_password())
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_label("Current password")).to_have_attribute("aria-invalid", "true")
    assert_no_horizontal_scroll(page, "/account with a field error")

    page.get_by_label("Token name").fill("a name as long as the form allows for tokens")
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token")).to_be_visible()
    assert_no_horizontal_scroll(page, "/account with a new token")
    assert_accessible(page, "/account with a new token, on a phone")


@pytest.mark.browser_context_args(viewport=PHONE)
def test_admin_nav_with_the_longest_username_fits_a_phone(
    page: Page, create_account: Callable[..., Account]
) -> None:
    """An admin's nav (Import, Users, a 32-character name, Log out) still fits 390 px."""
    admin = create_account("admin", role="admin", length=32)
    log_in(page, admin)
    assert_no_horizontal_scroll(page, "/account, admin with a 32-character name")
