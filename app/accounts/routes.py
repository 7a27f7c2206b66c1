"""Account pages: sign up, log in, log out, the account page, and user admin."""

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
from app.accounts.service import Viewer
from app.config import Settings
from app.web.dependencies import SessionDep, WriteSessionDep
from app.web.templating import render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
FormText = Annotated[str, Form()]
OptionalText = Annotated[str, Form()]


def _settings(request: Request) -> Settings:
    return request.app.state.settings


def safe_next(target: str | None) -> str:
    """Keep a redirect target only when it is a path on this site."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return "/"
    return target


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _logged_in(request: Request, token: str, target: str) -> RedirectResponse:
    response = RedirectResponse(target, status_code=303)
    settings = _settings(request)
    response.set_cookie(
        cookie_name(settings),
        token,
        max_age=settings.session_max_days * 86400,
        path="/",
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )
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
    field = getattr(error, "field", None)
    context = {"error": error.message, "error_field": field, "values": values, **extra}
    response = render(request, name, context, status_code=error.status_code)
    if isinstance(error, RateLimited):
        response.headers["retry-after"] = str(error.retry_after_s)
    return response


@router.get("/signup", name="signup")
def signup_page(request: Request, viewer: CurrentViewer, next: str = "/") -> HTMLResponse:
    """Show the sign-up form."""
    open_ = _settings(request).signup_open
    context = {"values": {"next": safe_next(next)}, "signup_open": open_}
    return render(request, "accounts/signup.html", context, status_code=200 if open_ else 403)


@router.post("/signup", name="signup_post")
def signup(
    request: Request,
    session: WriteSessionDep,
    username: FormText = "",
    password: FormText = "",
    next: OptionalText = "/",
) -> Response:
    """Create a learner account and log it in."""
    values = {"username": username[:64], "next": safe_next(next)}
    try:
        user = service.sign_up(
            session, username, password, _client(request), policy(_settings(request))
        )
        token = service.start_session(session, user, policy(_settings(request)))
    except AccountError as exc:
        session.rollback()
        if isinstance(exc, InvalidInput):  # a refused attempt still counts against the limit
            service.count_signup_attempt(session, _client(request))
            session.commit()
        open_ = _settings(request).signup_open
        return _form_page(request, "accounts/signup.html", exc, values, signup_open=open_)
    session.commit()
    return _logged_in(request, token, _with_done(values["next"], "signed-up"))


@router.get("/login", name="login")
def login_page(request: Request, viewer: CurrentViewer, next: str = "/") -> Response:
    """Show the log-in form (or go on when already logged in)."""
    if viewer is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return render(request, "accounts/login.html", {"values": {"next": safe_next(next)}})


@router.post("/login", name="login_post")
def login(
    request: Request,
    session: WriteSessionDep,
    username: FormText = "",
    password: FormText = "",
    next: OptionalText = "/",
) -> Response:
    """Check the credentials and start a fresh session."""
    values = {"username": username[:64], "next": safe_next(next)}
    rules = policy(_settings(request))
    try:
        user = service.log_in(session, username, password, _client(request), rules)
    except InvalidCredentials as exc:
        session.commit()  # keep the counted failure
        return _form_page(request, "accounts/login.html", exc, values)
    except RateLimited as exc:
        session.rollback()
        return _form_page(request, "accounts/login.html", exc, values)
    old = request.cookies.get(cookie_name(_settings(request)))
    if old:
        service.end_session(session, old)
    token = service.start_session(session, user, rules)
    session.commit()
    return _logged_in(request, token, values["next"])


@router.post("/logout", name="logout")
def logout(request: Request, session: WriteSessionDep) -> Response:
    """End this session."""
    name = cookie_name(_settings(request))
    if token := request.cookies.get(name):
        service.end_session(session, token)
        session.commit()
    return _logged_out(request, "/?done=logged-out")


def _account_page(
    request: Request,
    session: Any,
    viewer: Viewer,
    status_code: int = 200,
    **extra: Any,
) -> HTMLResponse:
    tokens = service.list_api_tokens(session, viewer)
    return render(
        request, "accounts/account.html", {"tokens": tokens, **extra}, status_code=status_code
    )


def _account_error(
    request: Request, session: Any, viewer: Viewer, exc: AccountError, form: str, field: str
) -> HTMLResponse:
    """Roll back and show the account page with the error beside the form's field."""
    session.rollback()
    return _account_page(
        request, session, viewer, exc.status_code, error=exc.message, error_field=field, form=form
    )


@router.get("/account", name="account")
def account(request: Request, viewer: RequiredViewer, session: SessionDep) -> HTMLResponse:
    """Show the account page: password, API tokens, deleting the account."""
    return _account_page(request, session, viewer)


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
        token = service.change_password(
            session, viewer, current_password, new_password, policy(_settings(request))
        )
    except AccountError as exc:
        field = getattr(exc, "field", None) or ""
        field = "new_password" if field == "password" else field
        return _account_error(request, session, viewer, exc, "password", field)
    session.commit()
    return _logged_in(request, token, "/account?done=password-changed")


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
    session.commit()
    return _logged_out(request, "/?done=account-deleted")


@router.post("/account/tokens", name="create_token")
def create_token(
    request: Request, viewer: RequiredViewer, session: WriteSessionDep, name: FormText = ""
) -> HTMLResponse:
    """Create a personal API token and show it this once."""
    try:
        row, token = service.create_api_token(session, viewer, name)
    except AccountError as exc:
        return _account_error(request, session, viewer, exc, "token", "name")
    session.commit()
    return _account_page(request, session, viewer, 201, new_token=token, new_token_name=row.name)


@router.post("/account/tokens/{item_id}/revoke", name="revoke_token")
def revoke_token(
    session: WriteSessionDep, token: Annotated[ApiToken, Depends(owned(ApiToken))]
) -> Response:
    """Revoke one of my API tokens."""
    service.revoke_api_token(session, token)
    session.commit()
    return RedirectResponse("/account?done=token-revoked", status_code=303)


@router.get("/admin/users", name="admin_users")
def admin_users(
    request: Request,
    session: SessionDep,
    viewer: Annotated[Viewer, Depends(require_role("admin"))],
) -> HTMLResponse:
    """List every account with its role (admins only)."""
    users = service.list_users(session)
    return render(request, "accounts/admin_users.html", {"users": users, "roles": ROLES})


@router.post("/admin/users/{username}/role", name="set_role")
def set_role(
    request: Request,
    username: str,
    session: WriteSessionDep,
    viewer: Annotated[Viewer, Depends(require_role("admin"))],
    role: FormText = "",
) -> Response:
    """Change someone's role (admins only)."""
    try:
        service.set_role(session, viewer, username, role)
    except AccountError as exc:
        session.rollback()
        users = service.list_users(session)
        context = {"users": users, "roles": ROLES, "error": exc.message}
        return render(request, "accounts/admin_users.html", context, status_code=exc.status_code)
    session.commit()
    return RedirectResponse("/admin/users?done=role-changed", status_code=303)
