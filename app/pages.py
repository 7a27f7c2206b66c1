"""Pages that combine features, assembled here above them.

The home page (with a person's notices), a note, a topic, a question set and a practice question show the content with
the logged-in learner's own standing beside it (progress; on the home page their open exams
too); the dashboard, its API and the data export gather a
learner's progress with their exam scores (exams). Each feature's part comes through its own
typed functions; no feature reaches into another one above it.
"""

import json
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.accounts.dependencies import RequiredViewer, load_viewer, viewer_of
from app.content import notices
from app.content import queries as content_queries
from app.content.dependencies import (
    CHOICES_IN_ADDRESS,
    NoteDep,
    PageNumber,
    QuestionDep,
    Slug,
    chosen_ids,
)
from app.content.notices import NoticeView
from app.content.routes import practice_page
from app.db import Database
from app.exams import queries as exam_queries
from app.exams.deck import learner_deck
from app.exams.dependencies import grace_of
from app.exams.dependencies import now_of as exam_now
from app.exams.read_models import OpenAttempt, RegradeNote
from app.exams.records import RECORDS as EXAM_RECORDS
from app.exams.regrade import regrade_notes
from app.progress import export
from app.progress import queries as progress_queries
from app.progress.api import Weeks, progress_json
from app.progress.dependencies import LibraryDep, NowDep, shown_grade
from app.progress.library import Library
from app.progress.read_models import Dashboard
from app.progress.routes import (
    home_resumes,
    learner_status,
    note_standing,
    practice_standing,
    question_marks,
    set_resume,
)
from app.progress.schemas import ProgressOut
from app.web.dependencies import CacheDep, DatabaseDep
from app.web.schemas import NOT_FOUND, ErrorOut
from app.web.templating import render, render_page

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
api = APIRouter(prefix="/api/v1", responses=NOT_FOUND, dependencies=[Depends(load_viewer)])
REGRADES_SHOWN = timedelta(days=30)  # how long the dashboard tells of a regraded exam
NOT_LOGGED_IN: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut, "description": "Not logged in, or a bad API token"}
}


@router.get("/", name="home")
async def home(request: Request, cache: CacheDep) -> HTMLResponse:
    """Show topics, question sets and notes; a learner's reviews due and what to continue."""
    view = await cache.get("home", content_queries.home)
    context = {
        "view": view,
        "learner_status": await learner_status(request),
        "open_attempts": await _open_attempts(request),
        "resumes": await home_resumes(request, [s.slug for s in view.sets]),
        "notices": await _notices(request),
    }
    return render_page(request, "pages/home.html", context, version=cache.version)


async def _notices(request: Request) -> tuple[NoticeView, ...]:
    viewer = viewer_of(request)
    if viewer is None:
        return ()
    db: Database = request.app.state.db
    return await db.read(notices.open_notices, viewer.id)


async def _open_attempts(request: Request) -> tuple[OpenAttempt, ...]:
    viewer = viewer_of(request)
    if viewer is None:
        return ()
    db: Database = request.app.state.db
    return await db.read(
        exam_queries.open_attempts,
        user_id=viewer.id,
        now=exam_now(request),
        grace=grace_of(request),
    )


@router.get("/notes/{slug}", name="note")
async def note(request: Request, view: NoteDep) -> HTMLResponse:
    """Show a note with its outline and the questions each section teaches.

    A logged-in learner also sees whether they read it, and can mark it as read.
    """
    context = {
        "view": view,
        "note_standing": await note_standing(request, view),
        "related_score": request.app.state.settings.related_threshold,
    }
    return render_page(request, "pages/note.html", context, version=request.app.state.cache.version)


@router.get("/sets/{slug}", name="question_set")
async def question_set(
    request: Request, slug: Slug, cache: CacheDep, page: PageNumber = 1
) -> HTMLResponse:
    """Show a question set and a page of its questions; a learner continues where they were,
    and sees how their latest answer to each question went."""
    view = await cache.get(
        ("set", slug, page), partial(content_queries.question_set, slug=slug, page=page)
    )
    context = {
        "view": view,
        "resume": await set_resume(request, slug),
        "marks": await question_marks(request, [q.id for q in view.questions]),
    }
    return render_page(request, "content/set.html", context, version=cache.version)


@router.get("/topics/{slug}", name="topic")
async def topic(
    request: Request, slug: Slug, cache: CacheDep, page: PageNumber = 1
) -> HTMLResponse:
    """Show a topic with its subtopics, notes and a page of its questions; a learner sees how
    their latest answer to each question went."""
    view = await cache.get(
        ("topic", slug, page), partial(content_queries.topic, slug=slug, page=page)
    )
    marks = await question_marks(request, [q.id for q in view.questions])
    context = {"view": view, "marks": marks}
    return render_page(request, "content/topic.html", context, version=cache.version)


@router.get("/questions/{question_id}", name="question", openapi_extra=CHOICES_IN_ADDRESS)
async def question(request: Request, view: QuestionDep) -> HTMLResponse:
    """Show a practice question, ready to answer, or graded when choices are in the address.

    The busiest page takes no more parameters than it must: each one FastAPI solves costs
    more than rendering the page. The router has already loaded the viewer.
    """
    grade = await shown_grade(request, view.id, chosen_ids(request))
    standing = await practice_standing(request, view)
    return practice_page(request, view, viewer_of(request), grade, standing=standing)


@router.get("/progress", name="progress")
async def dashboard(
    request: Request, viewer: RequiredViewer, db: DatabaseDep, now: NowDep, library: LibraryDep
) -> HTMLResponse:
    """Show my dashboard: reviews due, mastery per topic (weakest first), activity and streak."""
    view, regrades, notes = await db.read(
        _dashboard, viewer.id, now, library=library, zone=viewer.time_zone
    )
    context = {"view": view, "regrades": regrades, "notices": notes}
    response = render(request, "progress/dashboard.html", context)
    response.headers["cache-control"] = "no-store"
    return response


def _dashboard(
    session: Session, user_id: int, now: datetime, library: Library, zone: str
) -> tuple[Dashboard, tuple[RegradeNote, ...], tuple[NoticeView, ...]]:
    """The learner's dashboard, their exams a regrade changed lately and their notices: one
    read."""
    view = progress_queries.dashboard(
        session, user_id, now, exams=EXAM_RECORDS, library=library, zone=zone
    )
    regraded = regrade_notes(session, user_id, since=now - REGRADES_SHOWN)
    return view, regraded, notices.open_notices(session, user_id)


@router.get("/account/export", name="export_my_data", response_class=JSONResponse)
async def export_my_data(viewer: RequiredViewer, db: DatabaseDep, now: NowDep) -> Response:
    """Download everything recorded about me as JSON: account, answers, cards, exams, notes read."""
    data = await db.read(export.learner_data, viewer.id, exams=EXAM_RECORDS, now=now)
    name = f"studyhall-{viewer.username}-{now.date().isoformat()}.json"
    return Response(
        json.dumps(data, indent=1),
        media_type="application/json",
        headers={
            "content-disposition": f'attachment; filename="{name}"',
            "cache-control": "no-store",
        },
    )


@router.get(
    "/account/anki-deck",
    name="my_anki_deck",
    response_class=Response,
    responses={
        200: {
            "content": {"application/x-apkg": {"schema": {"type": "string", "format": "binary"}}},
            "description": "An Anki deck",
        }
    },
)
async def my_anki_deck(viewer: RequiredViewer, db: DatabaseDep, now: NowDep) -> Response:
    """Download the questions I answered wrong or flagged as an Anki deck."""
    deck = await db.read(learner_deck, viewer.id)
    if deck is None:
        return RedirectResponse("/account?done=deck-empty", status_code=303)
    name = f"studyhall-{viewer.username}-missed-and-flagged-{now.date().isoformat()}.apkg"
    return Response(
        deck,
        media_type="application/x-apkg",
        headers={
            "content-disposition": f'attachment; filename="{name}"',
            "cache-control": "no-store",
        },
    )


@api.get("/progress", response_model=ProgressOut, tags=["progress"], responses=NOT_LOGGED_IN)
async def progress(
    viewer: RequiredViewer, db: DatabaseDep, now: NowDep, library: LibraryDep, weeks: Weeks = 12
) -> dict[str, Any]:
    """Report my reviews due, mastery per topic (weakest first), activity, exams and readiness."""
    view = await db.read(
        progress_queries.dashboard,
        viewer.id,
        now,
        weeks=weeks,
        exams=EXAM_RECORDS,
        library=library,
        zone=viewer.time_zone,
    )
    return progress_json(view)
