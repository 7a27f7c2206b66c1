"""Content pages: home, topics, notes, question sets and practice questions."""

import secrets
from functools import partial

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from app.accounts.dependencies import CurrentViewer, load_viewer
from app.accounts.service import Viewer
from app.content import queries
from app.content.dependencies import NoteDep, QuestionDep, ShownGradeDep, Slug
from app.content.read_models import Grade, QuestionView
from app.content.service import shuffle_choices
from app.web.dependencies import CacheDep
from app.web.templating import render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
GUEST_COOKIE = "studyhall_guest"


@router.get("/", name="home")
async def home(request: Request, cache: CacheDep) -> HTMLResponse:
    """Show topics, question sets and notes."""
    view = await cache.get("home", queries.home)
    return render(request, "content/home.html", {"view": view})


@router.get("/topics/{slug}", name="topic")
async def topic(request: Request, slug: Slug, cache: CacheDep) -> HTMLResponse:
    """Show a topic with its subtopics, notes and questions."""
    view = await cache.get(("topic", slug), partial(queries.topic, slug=slug))
    return render(request, "content/topic.html", {"view": view})


@router.get("/sets/{slug}", name="question_set")
async def question_set(request: Request, slug: Slug, cache: CacheDep) -> HTMLResponse:
    """Show a question set and its questions."""
    view = await cache.get(("set", slug), partial(queries.question_set, slug=slug))
    return render(request, "content/set.html", {"view": view})


@router.get("/notes/{slug}", name="note")
async def note(request: Request, view: NoteDep) -> HTMLResponse:
    """Show a note with its outline and the questions each section teaches."""
    return render(request, "content/note.html", {"view": view})


@router.get("/questions/{question_id}", name="question")
async def question(
    request: Request, view: QuestionDep, viewer: CurrentViewer, grade: ShownGradeDep
) -> HTMLResponse:
    """Show a practice question, ready to answer, or graded when choices are in the address."""
    return practice_page(request, view, viewer, grade)


def practice_page(
    request: Request,
    view: QuestionView,
    viewer: Viewer | None,
    grade: Grade | None,
    *,
    error: str | None = None,
    status_code: int = 200,
    block: str | None = None,
) -> HTMLResponse:
    """Render a practice question with its choices in this person's order (or one block)."""
    guest = None if viewer else request.cookies.get(GUEST_COOKIE) or secrets.token_urlsafe(12)
    seed = f"user:{viewer.id}" if viewer else f"guest:{guest}"
    context = {
        "view": view,
        "choices": shuffle_choices(view.choices, f"{seed}:{view.id}"),
        "result": grade,
        "error": error,
    }
    response = render(
        request, "content/question.html", context, status_code=status_code, block=block
    )
    if guest is not None and GUEST_COOKIE not in request.cookies:
        # Not a secret: it only keeps a guest's choice order the same across reloads.
        response.set_cookie(
            GUEST_COOKIE,
            guest,
            max_age=365 * 86400,
            httponly=True,
            samesite="lax",
            secure=request.app.state.settings.secure_cookies,
        )
    return response
