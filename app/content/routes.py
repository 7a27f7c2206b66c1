"""Content pages: home, topics, notes, question sets and practice questions."""

import secrets
from collections.abc import Hashable
from functools import partial
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.accounts.dependencies import load_viewer, viewer_of
from app.accounts.service import Viewer
from app.content import queries
from app.content.dependencies import (
    NoteDep,
    PageNumber,
    QuestionDep,
    Slug,
    chosen_ids,
    shown_grade,
)
from app.content.errors import NotFound
from app.content.read_models import Grade, QuestionView
from app.content.service import shuffle_choices
from app.web.dependencies import CacheDep
from app.web.templating import render, render_page, url_for
from app.web.timing import stamp

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
GUEST_COOKIE = "studyhall_guest"
GUEST_COOKIE_AGE = 365 * 86400
QUESTION_PAGE = "content/question.html"


@router.get("/", name="home")
async def home(request: Request, cache: CacheDep) -> HTMLResponse:
    """Show topics, question sets and notes."""
    view = await cache.get("home", queries.home)
    status = await _learner_status(request)
    context = {"view": view, "learner_status": status}
    return render_page(request, "content/home.html", context, version=cache.version)


async def _learner_status(request: Request) -> Hashable | None:
    """Ask the application for the logged-in learner's standing (what is due), if it gives one.

    Content knows no feature above it: the application hands over the function.
    """
    status = getattr(request.app.state, "learner_status", None)
    return await status(request) if status is not None else None


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


@router.get("/topics/{slug}", name="topic")
async def topic(
    request: Request, slug: Slug, cache: CacheDep, page: PageNumber = 1
) -> HTMLResponse:
    """Show a topic with its subtopics, notes and a page of its questions."""
    view = await cache.get(("topic", slug, page), partial(queries.topic, slug=slug, page=page))
    return render_page(request, "content/topic.html", {"view": view}, version=cache.version)


@router.get("/topics/{slug}/practice", name="practice_topic")
async def practice_topic(slug: Slug, cache: CacheDep) -> RedirectResponse:
    """Start practising a topic (with its subtopics) at its first question."""
    view = await cache.get(("topic", slug, 1), partial(queries.topic, slug=slug, page=1))
    if not view.questions:
        raise NotFound(f"The topic “{view.topic.title}” has no questions yet.")
    target = url_for("question", question_id=view.questions[0].id)
    return RedirectResponse(target, status_code=303)


@router.get("/sets/{slug}", name="question_set")
async def question_set(
    request: Request, slug: Slug, cache: CacheDep, page: PageNumber = 1
) -> HTMLResponse:
    """Show a question set and a page of its questions."""
    view = await cache.get(("set", slug, page), partial(queries.question_set, slug=slug, page=page))
    return render_page(request, "content/set.html", {"view": view}, version=cache.version)


@router.get("/notes/{slug}", name="note")
async def note(request: Request, view: NoteDep) -> HTMLResponse:
    """Show a note with its outline and the questions each section teaches.

    A logged-in learner also sees whether they read it, and can mark it as read.
    """
    hook = getattr(request.app.state, "note_standing", None)
    standing = await hook(request, view) if hook is not None else None
    context = {"view": view, "note_standing": standing}
    return render_page(request, "content/note.html", context, version=_version(request))


@router.get("/questions/{question_id}", name="question")
async def question(request: Request, view: QuestionDep) -> HTMLResponse:
    """Show a practice question, ready to answer, or graded when choices are in the address.

    The busiest page takes no more parameters than it must: each one FastAPI solves costs
    more than rendering the page. The router has already loaded the viewer.
    """
    grade = await shown_grade(request, view.id, chosen_ids(request))
    standing = await learner_standing(request, view)
    return practice_page(request, view, viewer_of(request), grade, standing=standing)


async def learner_standing(request: Request, view: QuestionView) -> Hashable | None:
    """Ask the application for the learner's standing in the question's set, if it gives one."""
    standing = getattr(request.app.state, "practice_standing", None)
    return await standing(request, view) if standing is not None else None


def _version(request: Request) -> int | None:
    """The content version of what the content cache hands out (see `render_page`)."""
    return request.app.state.cache.version


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
    standing: Hashable | None = None,
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
        "shown_stamp": stamp(request.app.state.clock()) if viewer else None,
        **(extra or {}),
    }
    if grade is None and error is None and block is None and extra is None:
        response = render_page(request, QUESTION_PAGE, context, version=_version(request))
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
