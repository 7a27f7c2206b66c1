"""Account pages: sign up, log in, log out, the account page, and user admin.

Every form follows POST/redirect/GET; the write session commits when a route returns, before
the response goes out, and a route that refuses input rolls back what it had begun.
"""

from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

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
from app.accounts.models import ROLES, ApiToken, User
from app.accounts.passwords import in_turn
from app.accounts.service import Candidate, Policy, Verified, Viewer
from app.config import Settings
from app.db import Database, utcnow
from app.web.dependencies import SessionDep, WriteSessionDep, unit_of_work
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


def _start(request: Request, session: Session, user: User, target: str) -> RedirectResponse:
    """Open a fresh session for user (ending the one this browser had) and go to target."""
    old = request.cookies.get(cookie_name(_settings(request)))
    token = service.start_session(session, user, policy(_settings(request)), replacing=old)
    return _signed_in(request, token, target)


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
def signup(
    request: Request,
    session: WriteSessionDep,
    username: FormText = "",
    password: FormText = "",
    next: FormText = "/",
) -> Response:
    """Create a learner account and log it in."""
    values = {"username": username[:64], "next": safe_next(next)}
    rules = policy(_settings(request))
    try:
        user = service.sign_up(session, username, password, _client(request), rules)
    except AccountError as exc:
        session.rollback()
        if isinstance(exc, InvalidInput):  # a refused attempt still counts against the limit
            service.count_signup_attempt(session, _client(request))
        open_ = _settings(request).signup_open
        return _form_page(request, "accounts/signup.html", exc, values, signup_open=open_)
    return _start(request, session, user, _with_done(values["next"], "signed-up"))


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
    username: FormText = "",
    password: FormText = "",
    next: FormText = "/",
) -> Response:
    """Check the credentials (hashing in turn, before the write lock) and start a fresh session."""
    values = {"username": username[:64], "next": safe_next(next)}
    rules, address = policy(_settings(request)), _client(request)
    find = partial(_candidate, request.app.state.db, username, address, rules)
    try:
        candidate = await run_in_threadpool(find)
    except RateLimited as exc:
        return _form_page(request, "accounts/login.html", exc, values)
    verified = await in_turn(partial(service.verify_candidate, candidate, password))
    old = request.cookies.get(cookie_name(_settings(request)))
    log_in = partial(
        _log_in,
        username=username,
        password=password,
        address=address,
        rules=rules,
        verified=verified,
        old=old,
    )
    try:  # with the other small writes (answers, saves) in one queue, where there is one
        async with request.app.state.address_turns.turn(address):
            outcome = await unit_of_work(request).run(log_in)
    except RateLimited as exc:
        return _form_page(request, "accounts/login.html", exc, values)
    if isinstance(outcome, InvalidCredentials):
        return _form_page(request, "accounts/login.html", outcome, values)
    return _signed_in(request, outcome, values["next"])


def _candidate(db: Database, username: str, address: str, rules: Policy) -> Candidate | None:
    with db.session_scope() as session:
        return service.log_in_candidate(session, username, address, rules)


def _log_in(
    session: Session,
    username: str,
    password: str,
    address: str,
    rules: Policy,
    verified: Verified | None,
    old: str | None,
) -> str | InvalidCredentials:
    """Log in and open a fresh session (its token); a refusal is returned, its failure kept."""
    try:
        user = service.log_in_verified(session, username, password, address, rules, verified)
    except InvalidCredentials as exc:
        return exc
    return service.start_session(session, user, rules, replacing=old)


@router.post("/logout", name="logout")
def logout(request: Request, session: WriteSessionDep) -> Response:
    """End this session."""
    if token := request.cookies.get(cookie_name(_settings(request))):
        service.end_session(session, token)
    return _logged_out(request, "/?done=logged-out")


def _account_page(
    request: Request, session: Session, viewer: Viewer, status_code: int = 200, **extra: Any
) -> HTMLResponse:
    context = {
        "tokens": service.list_api_tokens(session, viewer),
        "token_lifetimes": service.TOKEN_LIFETIMES,
        "now": utcnow(),
        **extra,
    }
    return render(request, "accounts/account.html", context, status_code=status_code)


def _account_error(
    request: Request, session: Session, viewer: Viewer, exc: AccountError, form: str, field: str
) -> HTMLResponse:
    """Roll back and show the account page with the error beside the form's field."""
    session.rollback()
    return _account_page(
        request, session, viewer, exc.status_code, error=exc.message, error_field=field, form=form
    )


@router.get("/account", name="account")
def account(request: Request, viewer: RequiredViewer, session: SessionDep) -> HTMLResponse:
    """Show the account page: password, API tokens, deleting the account.

    A token created a moment ago comes in a short-lived cookie and is shown this once.
    """
    new = service.fresh_api_token(session, viewer, request.cookies.get(NEW_TOKEN_COOKIE, ""))
    extra: dict[str, Any] = {"new_token": new[1], "new_token_name": new[0].name} if new else {}
    response = _account_page(request, session, viewer, **extra)
    if NEW_TOKEN_COOKIE in request.cookies:
        response.delete_cookie(NEW_TOKEN_COOKIE, path="/account", httponly=True)
    response.headers["cache-control"] = "no-store"
    return response


@router.post("/account/password", name="change_password")
def change_password(
    request: Request,
    viewer: RequiredViewer,
    session: WriteSessionDep,
    current_password: FormText = "",
    new_password: FormText = "",
) -> Response:
    """Change the password and log out every other session."""
    try:
        user = service.change_password(session, viewer, current_password, new_password)
    except AccountError as exc:
        field = getattr(exc, "field", None) or ""
        field = "new_password" if field == "password" else field
        return _account_error(request, session, viewer, exc, "password", field)
    return _start(request, session, user, "/account?done=password-changed")


@router.post("/account/delete", name="delete_account")
def delete_account(
    request: Request,
    viewer: RequiredViewer,
    session: WriteSessionDep,
    delete_password: FormText = "",
) -> Response:
    """Delete the account and all of its data."""
    try:
        service.delete_account(session, viewer, delete_password)
    except AccountError as exc:
        return _account_error(request, session, viewer, exc, "delete", "delete_password")
    return _logged_out(request, "/?done=account-deleted")


@router.post("/account/tokens", name="create_token")
def create_token(
    request: Request,
    viewer: RequiredViewer,
    session: WriteSessionDep,
    name: FormText = "",
    days: FormText = "90",
) -> Response:
    """Create a personal API token, then show it once on the account page."""
    try:
        lifetime = int(days) if days.isdigit() and len(days) < 5 else 0
        row, token = service.create_api_token(session, viewer, name, lifetime)
    except AccountError as exc:
        return _account_error(request, session, viewer, exc, "token", "name")
    response = RedirectResponse("/account", status_code=303)  # the page shows the token
    _cookie(
        request, response, NEW_TOKEN_COOKIE, token, max_age=120, path="/account", samesite="strict"
    )
    return response


@router.post("/account/tokens/{item_id}/revoke", name="revoke_token")
def revoke_token(
    request: Request,
    session: WriteSessionDep,
    token: Annotated[ApiToken, Depends(owned(ApiToken))],
) -> Response:
    """Revoke one of my API tokens."""
    service.revoke_api_token(session, token)
    return RedirectResponse("/account?done=token-revoked", status_code=303)


@router.get("/admin/users", name="admin_users")
def admin_users(request: Request, session: SessionDep, viewer: Admin) -> HTMLResponse:
    """List every account with its role (admins only)."""
    users = service.list_users(session)
    return render(request, "accounts/admin_users.html", {"users": users, "roles": ROLES})


@router.post("/admin/users/{username}/role", name="set_role")
def set_role(
    request: Request, username: str, session: WriteSessionDep, viewer: Admin, role: FormText = ""
) -> Response:
    """Change someone's role (admins only)."""
    try:
        service.set_role(session, viewer, username, role)
    except AccountError as exc:
        session.rollback()
        users = service.list_users(session)
        context = {"users": users, "roles": ROLES, "error": exc.message}
        return render(request, "accounts/admin_users.html", context, status_code=exc.status_code)
    return RedirectResponse("/admin/users?done=role-changed", status_code=303)
