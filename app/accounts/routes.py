"""Account pages: sign up, log in, log out, the account page, and user admin.

Every form follows POST/redirect/GET; its change is one `db.write`, committed before the
response goes out, and a change that refuses input is rolled back whole.
"""

from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts import service
from app.accounts.dependencies import (
    CurrentViewer,
    RequiredViewer,
    cookie_name,
    load_viewer,
    owned,
    policy,
    require_role,
)
from app.accounts.errors import AccountError, InvalidCredentials, InvalidInput, RateLimited
from app.accounts.models import ROLES, ApiToken
from app.accounts.passwords import in_turn, verify_password
from app.accounts.service import Viewer
from app.config import Settings
from app.db import utcnow
from app.web import zones
from app.web.dependencies import DatabaseDep
from app.web.forms import whole_number
from app.web.limits import FieldText
from app.web.templating import render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
FormText = Annotated[FieldText, Form()]
NEW_TOKEN_COOKIE = "studyhall_new_token"
Admin = Annotated[Viewer, Depends(require_role("admin"))]


def _settings(request: Request) -> Settings:
    return request.app.state.settings


def safe_next(target: str | None) -> str:
    """Keep a redirect target only when it is a path on this site."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return "/"
    return target


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _cookie(request: Request, response: Response, name: str, value: str, **options: Any) -> None:
    response.set_cookie(
        name, value, httponly=True, secure=_settings(request).secure_cookies, **options
    )


def _old_session(request: Request) -> str | None:
    """The session this browser had, which a new one ends."""
    return request.cookies.get(cookie_name(_settings(request)))


def _signed_in(request: Request, token: str, target: str) -> RedirectResponse:
    """Go to target with the new session's cookie."""
    response = RedirectResponse(target, status_code=303)
    max_age = _settings(request).session_max_days * 86400
    _cookie(request, response, cookie_name(_settings(request)), token, max_age=max_age, path="/")
    return response


def _logged_out(request: Request, target: str) -> RedirectResponse:
    response = RedirectResponse(target, status_code=303)
    settings = _settings(request)
    response.delete_cookie(
        cookie_name(settings), path="/", secure=settings.secure_cookies, httponly=True
    )
    return response


def _with_done(target: str, done: str) -> str:
    return f"{target}{'&' if '?' in target else '?'}done={done}"


def _form_page(
    request: Request, name: str, error: AccountError, values: dict[str, Any], **extra: Any
) -> HTMLResponse:
    """Show a form again with its values and every problem (field by field where known)."""
    errors = error.errors if isinstance(error, InvalidInput) else {}
    context = {"error": error.message, "errors": errors, "values": values, **extra}
    response = render(request, name, context, status_code=error.status_code)
    response.headers.update(error.headers)
    return response


@router.get("/signup", name="signup")
def signup_page(request: Request, viewer: CurrentViewer, next: str = "/") -> HTMLResponse:
    """Show the sign-up form."""
    open_ = _settings(request).signup_open
    context = {"values": {"next": safe_next(next)}, "errors": {}, "signup_open": open_}
    return render(request, "accounts/signup.html", context, status_code=200 if open_ else 403)


@router.post("/signup", name="signup_post")
async def signup(
    request: Request,
    db: DatabaseDep,
    username: FormText = "",
    password: FormText = "",
    next: FormText = "/",
    time_zone: FormText = "",
) -> Response:
    """Create a learner account and log it in (in the time zone the browser reports)."""
    values = {"username": username[:64], "next": safe_next(next)}
    rules, address, old = policy(_settings(request)), _client(request), _old_session(request)
    try:  # a refused address costs no hash; the write checks every rule again, and counts
        await db.read(service.sign_up_allowed, address, rules)
        hashed = await in_turn(partial(service.new_password_hash, password, username))
        outcome = await db.write(
            service.sign_up_and_start, username, password, address, rules, old, time_zone, hashed
        )
    except AccountError as exc:
        outcome = exc
    if isinstance(outcome, AccountError):
        open_ = _settings(request).signup_open
        return _form_page(request, "accounts/signup.html", outcome, values, signup_open=open_)
    return _signed_in(request, outcome, _with_done(values["next"], "signed-up"))


@router.get("/login", name="login")
def login_page(request: Request, viewer: CurrentViewer, next: str = "/") -> Response:
    """Show the log-in form (or go on when already logged in)."""
    if viewer is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    context = {"values": {"next": safe_next(next)}, "errors": {}}
    return render(request, "accounts/login.html", context)


@router.post("/login", name="login_post")
async def login(
    request: Request,
    db: DatabaseDep,
    username: FormText = "",
    password: FormText = "",
    next: FormText = "/",
    time_zone: FormText = "",
) -> Response:
    """Check the credentials (hashing in turn, before the write lock) and start a fresh session.

    An account without a time zone takes the one the browser reports.
    """
    values = {"username": username[:64], "next": safe_next(next)}
    rules, address = policy(_settings(request)), _client(request)
    try:
        candidate = await db.read(service.log_in_candidate, username, address, rules)
    except RateLimited as exc:
        return _form_page(request, "accounts/login.html", exc, values)
    verified = await in_turn(partial(service.verify_candidate, candidate, password))
    old = _old_session(request)
    try:  # with the other small writes (answers, saves) in one queue, where there is one
        async with request.app.state.address_turns.turn(address):
            outcome = await db.write(
                service.log_in_and_start,
                username,
                password,
                address,
                rules,
                verified,
                old,
                time_zone,
            )
    except RateLimited as exc:
        return _form_page(request, "accounts/login.html", exc, values)
    if isinstance(outcome, InvalidCredentials):
        return _form_page(request, "accounts/login.html", outcome, values)
    return _signed_in(request, outcome, values["next"])


@router.post("/logout", name="logout")
async def logout(request: Request, db: DatabaseDep) -> Response:
    """End this session."""
    if token := _old_session(request):
        await db.write(service.end_session, token)
    return _logged_out(request, "/?done=logged-out")


def _account_page(
    request: Request,
    viewer: Viewer,
    page: tuple[list[ApiToken], service.StudyDay],
    status_code: int = 200,
    **extra: Any,
) -> HTMLResponse:
    tokens, day = page
    context = {
        "tokens": tokens,
        "study_day": day,
        "daily_limit_max": service.DAILY_LIMIT_MAX,
        "time_zones": zones.names(),
        "token_lifetimes": service.TOKEN_LIFETIMES,
        "token_scopes": service.scopes_for(viewer.role),
        "token_scope": "read",
        "now": utcnow(),
        **extra,
    }
    return render(request, "accounts/account.html", context, status_code=status_code)


async def _account_error(
    request: Request,
    db: DatabaseDep,
    viewer: Viewer,
    exc: AccountError,
    form: str,
    field: str,
    **extra: Any,
) -> HTMLResponse:
    """Show the account page (the change rolled back) with the error beside the form's field."""
    page = await db.read(service.account_page, viewer)
    return _account_page(
        request,
        viewer,
        page,
        exc.status_code,
        error=exc.message,
        error_field=field,
        form=form,
        **extra,
    )


@router.get("/account", name="account")
async def account(request: Request, viewer: RequiredViewer, db: DatabaseDep) -> HTMLResponse:
    """Show the account page: study day, password, API tokens, your data, deleting the account.

    A token created a moment ago comes in a short-lived cookie and is shown this once.
    """
    page = await db.read(service.account_page, viewer)
    new_token = request.cookies.get(NEW_TOKEN_COOKIE, "")
    new = service.fresh_api_token(page[0], new_token)
    extra: dict[str, Any] = {"new_token": new_token, "new_token_name": new.name} if new else {}
    response = _account_page(request, viewer, page, **extra)
    if NEW_TOKEN_COOKIE in request.cookies:
        response.delete_cookie(NEW_TOKEN_COOKIE, path="/account", httponly=True)
    response.headers["cache-control"] = "no-store"
    return response


@router.post("/account/study-day", name="set_study_day")
async def set_study_day(
    request: Request,
    viewer: RequiredViewer,
    db: DatabaseDep,
    new_per_day: FormText = "",
    reviews_per_day: FormText = "",
    time_zone: FormText = "",
) -> Response:
    """Change my daily limits of new questions and reviews, and my time zone."""
    values = {"new_per_day": new_per_day, "reviews_per_day": reviews_per_day}
    try:
        await db.write(service.set_study_day, viewer, new_per_day, reviews_per_day, time_zone)
    except InvalidInput as exc:
        page = await db.read(service.account_page, viewer)
        context = {"form": "study_day", "errors": exc.errors, "values": values}
        zone = {"chosen_zone": time_zone} if zones.known(time_zone.strip()) else {}
        return _account_page(request, viewer, page, exc.status_code, **context, **zone)
    return RedirectResponse("/account?done=study-day-saved#study-day-heading", status_code=303)


@router.post("/account/password", name="change_password")
async def change_password(
    request: Request,
    viewer: RequiredViewer,
    db: DatabaseDep,
    current_password: FormText = "",
    new_password: FormText = "",
) -> Response:
    """Change the password and log out every other session."""
    rules, old = policy(_settings(request)), _old_session(request)
    try:  # the passwords are checked and hashed in turn, before the write
        stored = await db.read(service.password_hash_of, viewer)
        checked = await in_turn(
            partial(
                service.check_password_change,
                stored,
                current_password,
                new_password,
                viewer.username,
            )
        )
        token = await db.write(service.change_password_and_start, viewer, checked, rules, old)
    except AccountError as exc:
        field = getattr(exc, "field", None) or ""
        field = "new_password" if field == "password" else field
        return await _account_error(request, db, viewer, exc, "password", field)
    return _signed_in(request, token, "/account?done=password-changed")


@router.post("/account/delete", name="delete_account")
async def delete_account(
    request: Request,
    viewer: RequiredViewer,
    db: DatabaseDep,
    delete_password: FormText = "",
) -> Response:
    """Delete the account and all of its data."""
    try:  # the password is checked in turn, before the write
        stored = await db.read(service.password_hash_of, viewer)
        right = await in_turn(partial(verify_password, stored, delete_password))
        # a wrong password matches no stored hash: the write refuses it, with its message
        await db.write(service.delete_account, viewer, delete_password, stored if right else "")
    except AccountError as exc:
        return await _account_error(request, db, viewer, exc, "delete", "delete_password")
    return _logged_out(request, "/?done=account-deleted")


@router.post("/account/tokens", name="create_token")
async def create_token(
    request: Request,
    viewer: RequiredViewer,
    db: DatabaseDep,
    name: FormText = "",
    days: FormText = "90",
    scope: FormText = "read",
) -> Response:
    """Create a personal API token with the scope chosen, then show it once on the account page."""
    try:
        lifetime = whole_number(days, 1, 9999) or 0
        _, token = await db.write(service.create_api_token, viewer, name, lifetime, scope)
    except AccountError as exc:
        field = "scope" if getattr(exc, "field", None) == "scope" else "name"
        return await _account_error(
            request, db, viewer, exc, "token", field, token_scope=scope[:10]
        )
    response = RedirectResponse("/account", status_code=303)  # the page shows the token
    _cookie(
        request, response, NEW_TOKEN_COOKIE, token, max_age=120, path="/account", samesite="strict"
    )
    return response


@router.post("/account/tokens/{item_id}/revoke", name="revoke_token")
async def revoke_token(
    db: DatabaseDep, token: Annotated[ApiToken, Depends(owned(ApiToken))]
) -> Response:
    """Revoke one of my API tokens."""
    await db.write(service.revoke_api_token, token.id)
    return RedirectResponse("/account?done=token-revoked", status_code=303)


@router.get("/admin/users", name="admin_users")
async def admin_users(request: Request, db: DatabaseDep, viewer: Admin) -> HTMLResponse:
    """List every account with its role (admins only)."""
    users = await db.read(service.list_users)
    return render(request, "accounts/admin_users.html", {"users": users, "roles": ROLES})


@router.post("/admin/users/{username}/role", name="set_role")
async def set_role(
    request: Request, username: str, db: DatabaseDep, viewer: Admin, role: FormText = ""
) -> Response:
    """Change someone's role (admins only)."""
    try:
        await db.write(service.set_role, viewer, username, role)
    except AccountError as exc:
        users = await db.read(service.list_users)
        context = {"users": users, "roles": ROLES, "error": exc.message}
        return render(request, "accounts/admin_users.html", context, status_code=exc.status_code)
    return RedirectResponse("/admin/users?done=role-changed", status_code=303)
