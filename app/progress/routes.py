"""Practice answers from the question pages, and the review of questions that are due."""

from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import CurrentViewer, RequiredViewer, load_viewer, viewer_of
from app.accounts.service import Viewer
from app.content.dependencies import (
    QuestionDep,
    Slug,
    chosen_ids,
    get_question,
    shown_grade,
)
from app.content.errors import InvalidAnswer
from app.content.read_models import Grade, QuestionView
from app.content.routes import practice_page
from app.progress import queries, service
from app.progress.dependencies import AnswerWorkDep, NowDep, now_of
from app.progress.read_models import ReviewStatus, SetTally
from app.web.dependencies import UnitOfWork, unit_of_work
from app.web.templating import is_htmx, render, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
ChoiceField = Annotated[list[str] | None, Form(max_length=26)]
REVIEW_PAGE = "progress/review.html"


async def _answer(
    request: Request,
    view: QuestionView,
    viewer: Viewer | None,
    work: UnitOfWork,
    choice: list[str] | None,
    now: datetime,
    shown_at: str,
    extra: Callable[[], Awaitable[dict[str, Any]]] | None = None,
) -> Response:
    """Grade and keep an answer, then show the result (htmx) or redirect to it (no script)."""
    block = "practice" if is_htmx(request) else None
    user_id = viewer.id if viewer is not None else None
    try:
        ids = _choice_ids(choice or [])
        result = await work.run(
            partial(
                service.check_answer, user_id=user_id, question_id=view.id, choice_ids=ids, now=now
            )
        )
    except InvalidAnswer as exc:
        context = await extra() if extra else None
        return await _page(request, view, viewer, None, context, error=exc.message, block=block)
    if block is not None:
        context = await extra() if extra else None
        return await _page(request, view, viewer, result, context, block=block)
    query = urlencode([("choice", choice_id) for choice_id in result.selected_ids])
    return RedirectResponse(f"{shown_at}?{query}#result-heading", status_code=303)


async def _page(
    request: Request,
    view: QuestionView,
    viewer: Viewer | None,
    grade: Grade | None,
    extra: dict[str, Any] | None,
    *,
    error: str | None = None,
    block: str | None = None,
) -> HTMLResponse:
    status_code = 422 if error else 200
    if extra is None:
        standing = await practice_standing(request, view)
        return practice_page(
            request,
            view,
            viewer,
            grade,
            error=error,
            status_code=status_code,
            block=block,
            standing=standing,
        )
    return practice_page(
        request,
        view,
        viewer,
        grade,
        error=error,
        status_code=status_code,
        block=block,
        page=REVIEW_PAGE,
        extra=extra,
    )


@router.post("/questions/{question_id}", name="answer_question")
async def answer_question(
    request: Request,
    view: QuestionDep,
    viewer: CurrentViewer,
    work: AnswerWorkDep,
    now: NowDep,
    choice: ChoiceField = None,
) -> Response:
    """Grade a practice answer, keep it for a logged-in learner, then show the result.

    Without JavaScript the result is a redirect to a page that only reads (POST/redirect/GET),
    so reloading it never records the answer twice; htmx gets the result block in place.
    """
    shown_at = url_for("question", question_id=view.id)
    return await _answer(request, view, viewer, work, choice, now, shown_at)


def _choice_ids(values: list[str]) -> list[int]:
    try:
        return [int(value) for value in values]
    except ValueError:
        raise InvalidAnswer("That answer was not valid.") from None


async def _status(request: Request, viewer: Viewer) -> ReviewStatus:
    work = unit_of_work(request, write=False)
    return await work.run(partial(queries.review_status, user_id=viewer.id, now=now_of(request)))


async def learner_status(request: Request) -> ReviewStatus | None:
    """Return the logged-in learner's review status (for the home page), or None for a guest."""
    viewer = viewer_of(request)
    return await _status(request, viewer) if viewer is not None else None


@router.get("/review", name="review")
async def review(request: Request, viewer: RequiredViewer, now: NowDep) -> HTMLResponse:
    """Serve the question that has been due longest, with how many are due and when the next are."""
    work = unit_of_work(request, write=False)
    status, question_id = await work.run(partial(queries.review_page, user_id=viewer.id, now=now))
    if question_id is None:
        return render(request, "progress/review_done.html", {"status": status})
    view = await get_question(request, question_id)
    return await _page(request, view, viewer, None, _review_context(view, status))


def _review_context(view: QuestionView, status: ReviewStatus) -> dict[str, Any]:
    return {"review": status, "answer_url": url_for("answer_review", question_id=view.id)}


@router.get("/review/{question_id}", name="review_question")
async def review_question(
    request: Request, view: QuestionDep, viewer: RequiredViewer
) -> HTMLResponse:
    """Show one question in review, graded when choices are in the address (after an answer)."""
    grade = await shown_grade(request, view.id, chosen_ids(request))
    status = await _status(request, viewer)
    return await _page(request, view, viewer, grade, _review_context(view, status))


@router.post("/review/{question_id}", name="answer_review")
async def answer_review(
    request: Request,
    view: QuestionDep,
    viewer: RequiredViewer,
    now: NowDep,
    choice: ChoiceField = None,
) -> Response:
    """Grade a review answer, reschedule the question, then show the result and what is left."""

    async def context() -> dict[str, Any]:
        return _review_context(view, await _status(request, viewer))

    work = unit_of_work(request)
    shown_at = url_for("review_question", question_id=view.id)
    return await _answer(request, view, viewer, work, choice, now, shown_at, extra=context)


@router.get("/progress", name="progress")
async def progress(request: Request, viewer: RequiredViewer, now: NowDep) -> HTMLResponse:
    """Show my dashboard: reviews due, mastery per topic (weakest first), activity and streak."""
    work = unit_of_work(request, write=False)
    view = await work.run(partial(queries.dashboard, user_id=viewer.id, now=now))
    response = render(request, "progress/dashboard.html", {"view": view})
    response.headers["cache-control"] = "no-store"
    return response


async def practice_standing(request: Request, view: QuestionView) -> SetTally | None:
    """Return the logged-in learner's running tally in the question's set, or None for a guest."""
    viewer = viewer_of(request)
    if viewer is None:
        return None
    work = unit_of_work(request, write=False)
    return await work.run(
        partial(queries.set_tally, user_id=viewer.id, set_slug=view.set.slug, total=view.total)
    )


@router.get("/sets/{slug}/summary", name="set_summary")
async def set_summary(request: Request, slug: Slug, viewer: RequiredViewer) -> HTMLResponse:
    """Show my result in a question set: score, the ones got wrong, the note sections to read."""
    work = unit_of_work(request, write=False)
    view = await work.run(partial(queries.set_summary, user_id=viewer.id, set_slug=slug))
    response = render(request, "progress/summary.html", {"view": view})
    response.headers["cache-control"] = "no-store"
    return response
