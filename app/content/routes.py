"""Content pages: topics, notes and question sets, and how a practice question is shown (the
pages that add a learner's standing, a topic's and a set's among them, are assembled in
`app.pages`)."""

import re
import secrets
from functools import partial
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from app.accounts.dependencies import load_viewer
from app.accounts.service import Viewer
from app.content import queries
from app.content.dependencies import PageNumber
from app.content.errors import NotFound
from app.content.read_models import Grade, QuestionView, SetTally
from app.content.service import shuffle_choices
from app.web.dependencies import CacheDep, DatabaseDep
from app.web.templating import render, render_page
from app.web.timing import stamp

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
GUEST_COOKIE = "studyhall_guest"
GUEST_COOKIE_AGE = 365 * 86400
QUESTION_PAGE = "content/question.html"
_SHA256 = re.compile(r"[0-9a-f]{64}")
# An image's address names its bytes' digest: what it serves never changes
MEDIA_CACHE = "public, max-age=31536000, immutable"


@router.get("/media/{sha256}/{name}", name="media", response_class=Response)
async def media(sha256: str, name: str, db: DatabaseDep) -> Response:
    """Send an image of the media store (the name is for people; the digest finds it)."""
    if not _SHA256.fullmatch(sha256):
        raise NotFound("There is no such image.")
    content_type, data = await db.read(queries.media, sha256)
    return Response(data, media_type=content_type, headers={"Cache-Control": MEDIA_CACHE})


@router.get("/sets", name="sets")
async def sets(request: Request, cache: CacheDep, page: PageNumber = 1) -> HTMLResponse:
    """List the question sets, 50 a page."""
    view = await cache.get(("sets", page), partial(queries.sets_page, page=page))
    return render_page(request, "content/sets.html", {"view": view}, version=cache.version)


@router.get("/notes", name="notes")
async def notes(request: Request, cache: CacheDep, page: PageNumber = 1) -> HTMLResponse:
    """List the notes, 50 a page."""
    view = await cache.get(("notes", page), partial(queries.notes_page, page=page))
    return render_page(request, "content/notes.html", {"view": view}, version=cache.version)


@router.get("/topics", name="topics")
async def topics(request: Request, cache: CacheDep, page: PageNumber = 1) -> HTMLResponse:
    """List the top-level topics, 50 a page, each with its first subtopics."""
    view = await cache.get(("topics", page), partial(queries.topics_page, page=page))
    return render_page(request, "content/topics.html", {"view": view}, version=cache.version)


def practice_page(
    request: Request,
    view: QuestionView,
    viewer: Viewer | None,
    grade: Grade | None,
    *,
    error: str | None = None,
    status_code: int = 200,
    block: str | None = None,
    page: str = QUESTION_PAGE,
    extra: dict[str, Any] | None = None,
    standing: SetTally | None = None,
) -> HTMLResponse:
    """Render a practice question with its choices in this person's order (or one block).

    `standing` is the learner's tally in the set, shown above the choices. Other pages that
    serve questions in practice style (`page`, extending the question page)
    add their `extra` context. A learner's form carries the time the page was shown, so the
    answer measures how long it took.
    """
    guest = None if viewer else request.cookies.get(GUEST_COOKIE) or secrets.token_urlsafe(12)
    seed = f"user:{viewer.id}" if viewer else f"guest:{guest}"
    choices = shuffle_choices(view.choices, f"{seed}:{view.id}")
    context = {
        "view": view,
        "choices": choices,
        "result": grade,
        "error": error,
        "standing": standing,
        "related_score": request.app.state.settings.related_threshold,
        "shown_stamp": stamp(request.app.state.clock()) if viewer else None,
        **(extra or {}),
    }
    if grade is None and error is None and block is None and extra is None:
        response = render_page(
            request, QUESTION_PAGE, context, version=request.app.state.cache.version
        )
    else:
        # a block is rendered from the page that defines it
        name = QUESTION_PAGE if block is not None else page
        response = render(request, name, context, status_code=status_code, block=block)
    if guest is not None and GUEST_COOKIE not in request.cookies:
        # Not a secret: it only keeps a guest's choice order the same across reloads. Written
        # by hand (the token is URL-safe): SimpleCookie would cost more than the page itself.
        secure = "; Secure" if request.app.state.settings.secure_cookies else ""
        cookie = f"{GUEST_COOKIE}={guest}; HttpOnly; Max-Age={GUEST_COOKIE_AGE}; Path=/"
        response.raw_headers.append((b"set-cookie", f"{cookie}; SameSite=lax{secure}".encode()))
    return response
