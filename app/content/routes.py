"""Content pages: home, topics, notes, question sets and practice questions."""

from functools import partial

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from app.accounts.dependencies import CurrentViewer, load_viewer
from app.content import queries
from app.content.dependencies import NoteDep, QuestionDep, Slug
from app.content.errors import InvalidAnswer
from app.content.service import check_answer
from app.content.views import QuestionView
from app.progress.service import save_answer
from app.web.dependencies import CacheDep
from app.web.templating import is_htmx, render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])


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
async def question(request: Request, view: QuestionDep) -> HTMLResponse:
    """Show a practice question, ready to answer."""
    return render(request, "content/question.html", {"view": view, "result": None})


@router.post("/questions/{question_id}", name="answer_question")
async def answer_question(
    request: Request, view: QuestionDep, viewer: CurrentViewer
) -> HTMLResponse:
    """Grade a practice answer, keep it for a logged-in learner, show the explanation."""
    form = await request.form()
    block = "practice" if is_htmx(request) else None
    try:
        choice_ids = [int(str(value)) for value in form.getlist("choice")]
        result = check_answer(view, choice_ids)
    except (ValueError, InvalidAnswer) as exc:
        message = exc.message if isinstance(exc, InvalidAnswer) else "That answer was not valid."
        return _practice(request, view, None, message, 422, block)
    if viewer is not None:
        await run_in_threadpool(save_answer, request.app.state.db, viewer.id, result)
    return _practice(request, view, result, None, 200, block)


def _practice(
    request: Request,
    view: QuestionView,
    result: object,
    error: str | None,
    status_code: int,
    block: str | None,
) -> HTMLResponse:
    context = {"view": view, "result": result, "error": error}
    return render(request, "content/question.html", context, status_code=status_code, block=block)
