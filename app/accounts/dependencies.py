"""Who is asking: the session cookie, or an API token on the API, checked once per request."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Path, Request

from app.accounts import service
from app.accounts.errors import NotAuthenticated, PermissionDenied
from app.accounts.models import ROLE_SCOPES, SCOPES
from app.accounts.service import Policy, Viewer
from app.config import Settings
from app.db import Database
from app.errors import NotFound
from app.web.csrf import SAFE_METHODS
from app.web.dependencies import DatabaseDep
from app.web.errors import wants_json

T = TypeVar("T")


def cookie_name(settings: Settings) -> str:
    # __Host- cookies must be Secure, so the prefix only comes with HTTPS.
    return "__Host-studyhall_session" if settings.secure_cookies else "studyhall_session"


def policy(settings: Settings) -> Policy:
    """Build the account policy from the settings."""
    from datetime import timedelta

    return Policy(
        signup_open=settings.signup_open,
        idle=timedelta(minutes=settings.session_idle_minutes),
        lifetime=timedelta(days=settings.session_max_days),
        per_account=settings.login_limit_per_account,
        per_address=settings.login_limit_per_address,
        window=timedelta(minutes=settings.rate_limit_window_minutes),
    )


class AddressTurns:
    """Log-ins from one address take turns in this worker before they reach the database.

    Each log-in holds a lock on its address's rate-limit key until it commits (on PostgreSQL
    an advisory lock, on SQLite the write lock). A class behind one NAT address logging in at
    once would otherwise have every waiting log-in hold a pooled connection while it waits,
    and leave none for the pages and answers of those already in. Waiting here holds nothing
    but a place in the queue.
    """

    def __init__(self) -> None:
        self._queues: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def turn(self, address: str) -> AsyncIterator[None]:
        lock, waiting = self._queues.get(address) or (asyncio.Lock(), 0)
        self._queues[address] = (lock, waiting + 1)
        try:
            async with lock:
                yield
        finally:
            lock, waiting = self._queues[address]
            if waiting > 1:
                self._queues[address] = (lock, waiting - 1)
            else:
                del self._queues[address]

    def __len__(self) -> int:
        return len(self._queues)


async def load_viewer(request: Request) -> Viewer | None:
    """Return the logged-in person, if any; guests cost no database query.

    A browser's session cookie counts everywhere; an API token only on the JSON API (and
    /metrics), within its scope: a read token may only read, and `Viewer.may` caps its
    owner's role at the scope's. A credential is looked up by key in a brief read; the visit
    is written at most once a minute, in a short transaction of its own.
    """
    if hasattr(request.state, "viewer"):
        return request.state.viewer
    settings: Settings = request.app.state.settings
    db: Database = request.app.state.db
    viewer = None
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer ") and wants_json(request):  # pages ignore tokens
        bearer = auth[7:].strip()
        viewer, stale = await db.read(service.token_viewer, bearer)
        if viewer is None:
            raise NotAuthenticated("That API token is not valid or was revoked.")
        if stale:
            await db.write(service.touch_token, bearer)
        if viewer.scope == "read" and request.method not in SAFE_METHODS:
            raise PermissionDenied(
                "This API token's scope is read: it may only read. Make a token with the "
                "practise scope on your account page to answer questions and sit exams."
            )
    elif token := request.cookies.get(cookie_name(settings)):
        viewer, stale = await db.read(service.session_viewer, token, policy(settings))
        if stale:
            await db.write(service.touch_session, token)
    request.state.viewer = viewer
    return viewer


CurrentViewer = Annotated[Viewer | None, Depends(load_viewer)]


def viewer_of(request: Request) -> Viewer | None:
    """Who is asking, on a route whose router loads the viewer (saves solving a dependency)."""
    return request.state.viewer


async def require_viewer(request: Request, viewer: CurrentViewer) -> Viewer:
    """Let only logged-in people through; others are sent to log in (pages) or get 401 (API)."""
    if viewer is None:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        raise NotAuthenticated(next_url=target)
    return viewer


RequiredViewer = Annotated[Viewer, Depends(require_viewer)]


def require_role(*roles: str) -> Callable[..., Any]:
    """Build a dependency that lets only the given roles (and admins) through."""

    async def dependency(viewer: RequiredViewer) -> Viewer:
        if viewer.may(*roles):
            return viewer
        if replace(viewer, scope=None).may(*roles):  # the owner may, the token's scope not
            needed = min((ROLE_SCOPES[role] for role in roles), key=SCOPES.index)
            raise PermissionDenied(
                f"This API token's scope is {viewer.scope}; that needs the {needed} scope."
            )
        raise PermissionDenied()

    return dependency


ItemId = Annotated[int, Path(ge=1, le=999_999_999, description="The number of one of my items")]


def owned(model: type[T]) -> Callable[..., Awaitable[T]]:
    """Build a dependency that reads model by the path's item_id and checks it is the viewer's.

    It returns the row read (detached: its columns only); a route that changes it does so in
    a `db.write` of its own. Another user's object answers 404, exactly like a missing one,
    so ids reveal nothing.
    """

    async def dependency(item_id: ItemId, viewer: RequiredViewer, db: DatabaseDep) -> T:
        obj = await db.read(service.find_owned, model, item_id, viewer.id)
        if obj is None:
            raise NotFound("There is nothing here with that number.")
        return obj

    return dependency
