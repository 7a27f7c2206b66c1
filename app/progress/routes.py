"""Practice answers from the question pages, and the review of questions that are due."""

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import CurrentViewer, RequiredViewer, load_viewer, viewer_of
from app.accounts.service import Viewer
from app.content.dependencies import (
    CHOICES_IN_ADDRESS,
    QuestionDep,
    Slug,
    chosen_ids,
    get_question,
)
from app.content.errors import InvalidAnswer
from app.content.read_models import Grade, NoteView, QuestionView, SetTally
from app.content.routes import practice_page
from app.db import Database
from app.progress import queries, service, study
from app.progress.dependencies import NowDep, exams_of, now_of, shown_grade
from app.progress.errors import InOpenExam
from app.progress.read_models import NoteStanding, ReviewStatus
from app.progress.study import HomeResumes, SetResume
from app.web.dependencies import DatabaseDep
from app.web.forms import whole_numbers
from app.web.limits import FieldText
from app.web.metrics import PRACTICE_ANSWERS
from app.web.templating import is_htmx, render, url_for
from app.web.timing import elapsed

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
ChoiceField = Annotated[list[FieldText] | None, Form(max_length=26)]
# the time the question was shown (see app.web.timing); a bad one only goes unmeasured
ShownField = Annotated[FieldText | None, Form(max_length=40)]
REVIEW_PAGE = "progress/review.html"
NOTE_READ = "progress/note_read.html"
DASHBOARD = "progress/dashboard.html"


async def answer(
    request: Request,
    view: QuestionView,
    viewer: Viewer | None,
    db: Database,
    choice: list[str] | None,
    now: datetime,
    shown_at: str,
    extra: Callable[[], Awaitable[dict[str, Any]]] | None = None,
    shown: str | None = None,
    page: str = REVIEW_PAGE,
    walk: str | None = None,
) -> Response:
    """Grade an answer, keep it for a learner, then show the result (htmx) or redirect to it.

    `walk` names the walk the answer is given in (models.walk_name), if any. A guest's check
    only reads, so it never queues for SQLite's write lock.
    """
    block = "practice" if is_htmx(request) else None
    user_id = viewer.id if viewer is not None else None
    run = db.write if user_id is not None else db.read
    try:
        ids = _choice_ids(choice or [])
        result = await run(
            service.check_answer,
            user_id=user_id,
            question_id=view.id,
            choice_ids=ids,
            now=now,
            seconds=elapsed(shown, now),
            exams=exams_of(request),
            walk=walk,
        )
    except (InvalidAnswer, InOpenExam) as exc:
        context = await extra() if extra else None
        return await _page(
            request,
            view,
            viewer,
            None,
            context,
            error=exc.message,
            status_code=exc.status_code,
            block=block,
            page=page,
        )
    if user_id is not None:  # kept (and committed) only for a learner
        PRACTICE_ANSWERS.inc()
    if block is not None:
        context = await extra() if extra else None
        return await _page(request, view, viewer, result, context, block=block, page=page)
    query = urlencode([("choice", choice_id) for choice_id in result.selected_ids])
    joint = "&" if "?" in shown_at else "?"
    return RedirectResponse(f"{shown_at}{joint}{query}#result-heading", status_code=303)


async def _page(
    request: Request,
    view: QuestionView,
    viewer: Viewer | None,
    grade: Grade | None,
    extra: dict[str, Any] | None,
    *,
    error: str | None = None,
    status_code: int = 200,
    block: str | None = None,
    page: str = REVIEW_PAGE,
) -> HTMLResponse:
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
        page=page,
        extra=extra,
    )


@router.post("/questions/{question_id}", name="answer_question")
async def answer_question(
    request: Request,
    view: QuestionDep,
    viewer: CurrentViewer,
    db: DatabaseDep,
    now: NowDep,
    choice: ChoiceField = None,
    shown: ShownField = None,
) -> Response:
    """Grade a practice answer, keep it for a logged-in learner, then show the result.

    Without JavaScript the result is a redirect to a page that only reads (POST/redirect/GET),
    so reloading it never records the answer twice; htmx gets the result block in place.
    """
    shown_at = url_for("question", question_id=view.id)
    return await answer(request, view, viewer, db, choice, now, shown_at, shown=shown)


def _choice_ids(values: list[str]) -> list[int]:
    ids = whole_numbers(values)
    if ids is None:
        raise InvalidAnswer("That answer was not valid.")
    return ids


async def learner_status(request: Request) -> ReviewStatus | None:
    """Return the logged-in learner's review status (for the home page), or None for a guest."""
    viewer = viewer_of(request)
    if viewer is None:
        return None
    db: Database = request.app.state.db
    return await db.read(
        queries.review_status, user_id=viewer.id, now=now_of(request), zone=viewer.time_zone
    )


@router.get("/review", name="review")
async def review(
    request: Request, viewer: RequiredViewer, db: DatabaseDep, now: NowDep
) -> HTMLResponse:
    """Serve the first question of my queue (within the day's limits), with how many are due
    and when the next are, or say the day is done."""
    status, question_id = await db.read(
        queries.review_page, user_id=viewer.id, now=now, zone=viewer.time_zone
    )
    if question_id is None:
        return render(request, "progress/review_done.html", {"status": status})
    view = await get_question(request, question_id)
    return await _page(request, view, viewer, None, _review_context(view, status))


def _review_context(view: QuestionView, status: ReviewStatus) -> dict[str, Any]:
    return {"review": status, "answer_url": url_for("answer_review", question_id=view.id)}


@router.get("/review/{question_id}", name="review_question", openapi_extra=CHOICES_IN_ADDRESS)
async def review_question(
    request: Request, view: QuestionDep, viewer: RequiredViewer, db: DatabaseDep, now: NowDep
) -> HTMLResponse:
    """Show one question in review, graded when choices are in the address (after an answer)."""
    grade = await shown_grade(request, view.id, chosen_ids(request))
    status = await db.read(queries.review_status, user_id=viewer.id, now=now, zone=viewer.time_zone)
    return await _page(request, view, viewer, grade, _review_context(view, status))


@router.post("/review/{question_id}", name="answer_review")
async def answer_review(
    request: Request,
    view: QuestionDep,
    viewer: RequiredViewer,
    db: DatabaseDep,
    now: NowDep,
    choice: ChoiceField = None,
    shown: ShownField = None,
) -> Response:
    """Grade a review answer, reschedule the question, then show the result and what is left."""

    async def context() -> dict[str, Any]:
        status = await db.read(
            queries.review_status, user_id=viewer.id, now=now_of(request), zone=viewer.time_zone
        )
        return _review_context(view, status)

    shown_at = url_for("review_question", question_id=view.id)
    return await answer(
        request, view, viewer, db, choice, now, shown_at, extra=context, shown=shown
    )


async def practice_standing(request: Request, view: QuestionView) -> SetTally | None:
    """Return the logged-in learner's running tally in the question's set, or None for a guest."""
    viewer = viewer_of(request)
    if viewer is None:
        return None
    db: Database = request.app.state.db
    return await db.read(
        queries.set_tally, user_id=viewer.id, set_slug=view.set.slug, total=view.total
    )


async def set_resume(request: Request, set_slug: str) -> SetResume | None:
    """Return where the logged-in learner is in a set (for its start button), or None."""
    viewer = viewer_of(request)
    if viewer is None:
        return None
    db: Database = request.app.state.db
    return await db.read(study.set_resume, user_id=viewer.id, set_slug=set_slug)


async def home_resumes(request: Request, set_slugs: list[str]) -> HomeResumes | None:
    """Return where the logged-in learner is in these sets and the set they practised last."""
    viewer = viewer_of(request)
    if viewer is None:
        return None
    db: Database = request.app.state.db
    return await db.read(study.home_resumes, user_id=viewer.id, set_slugs=set_slugs)


async def question_marks(request: Request, question_ids: list[int]) -> dict[int, bool] | None:
    """Return whether the logged-in learner's latest answer to each question was right (the
    unanswered left out), or None for a guest."""
    viewer = viewer_of(request)
    if viewer is None:
        return None
    db: Database = request.app.state.db
    return await db.read(queries.question_marks, user_id=viewer.id, question_ids=question_ids)


@router.get("/sets/{slug}/summary", name="set_summary")
async def set_summary(
    request: Request, slug: Slug, viewer: RequiredViewer, db: DatabaseDep
) -> HTMLResponse:
    """Show my result in a question set: score, the ones got wrong, the note sections to read."""
    view = await db.read(
        queries.set_summary,
        user_id=viewer.id,
        set_slug=slug,
        related_score=request.app.state.settings.related_threshold,
    )
    response = render(request, "progress/summary.html", {"view": view})
    response.headers["cache-control"] = "no-store"
    return response


@router.post("/notes/{slug}/read", name="mark_note_read")
async def mark_note_read(
    request: Request, slug: Slug, viewer: RequiredViewer, db: DatabaseDep, now: NowDep
) -> Response:
    """Mark a note as read: back to the note without JavaScript, the new status in place with it."""
    read_at = await db.write(service.mark_read, user_id=viewer.id, slug=slug, now=now)
    if is_htmx(request):
        return render(request, NOTE_READ, {"note_standing": NoteStanding(slug, read_at)})
    return RedirectResponse(url_for("note", slug=slug) + "#note-read", status_code=303)


async def note_standing(request: Request, view: NoteView) -> NoteStanding | None:
    """Return whether (and when) the logged-in learner read a note, or None for a guest."""
    viewer = viewer_of(request)
    if viewer is None:
        return None
    db: Database = request.app.state.db
    read_at = await db.read(queries.note_read_at, user_id=viewer.id, slug=view.slug)
    return NoteStanding(view.slug, read_at)
