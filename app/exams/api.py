"""The exams JSON API under /api/v1: list exams, start, read, answer, flag, submit, results.

Each attempt is visible to its owner only; anyone else gets the 404 a missing one gets.
"""

from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from app.accounts.dependencies import CurrentViewer, RequiredViewer, load_viewer
from app.content.dependencies import Slug
from app.exams import answers, queries, service
from app.exams.dependencies import OwnedAttempt, Position, grace_of, now_of, quota_of
from app.exams.errors import refuse_if_closed
from app.exams.read_models import AttemptHeader, ItemView, NavItem, ResultView
from app.exams.schemas import (
    AnswerIn,
    AttemptOut,
    AttemptQuestionOut,
    ExamOut,
    FlagIn,
    ResultOut,
)
from app.web.dependencies import DatabaseDep
from app.web.metrics import EXAM_ANSWERS
from app.web.schemas import ErrorOut

router = APIRouter(
    prefix="/api/v1",
    tags=["exams"],
    dependencies=[Depends(load_viewer)],
    responses={
        401: {"model": ErrorOut, "description": "Not logged in, or a bad API token"},
        404: {"model": ErrorOut, "description": "Not found, or not yours"},
    },
)
CLOSED: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorOut, "description": "Submitted already, or time ran out"}
}
BAD_ANSWER: dict[int | str, dict[str, Any]] = {
    422: {"description": "A choice of another question, or two; or a body that is not the schema"}
}


def _attempt_out(attempt: AttemptHeader, nav: tuple[NavItem, ...], request: Request) -> dict:
    return {
        "id": attempt.id,
        "title": attempt.title,
        "exam": attempt.blueprint_slug,
        "mode": attempt.mode,
        "status": attempt.status,
        "question_count": attempt.question_count,
        "pass_mark": attempt.pass_mark,
        "started_at": attempt.started_at,
        "deadline_at": attempt.deadline_at,
        "submitted_at": attempt.submitted_at,
        "remaining_s": attempt.remaining_s(now_of(request)) if attempt.is_open else None,
        "percent": attempt.percent,
        "passed": attempt.passed,
        "questions": nav,
    }


@router.get("/exams", response_model=list[ExamOut])
async def list_exams(db: DatabaseDep, viewer: CurrentViewer) -> Any:
    """List the exams (with the caller's open attempt at each, when logged in)."""
    return await db.read(queries.blueprints, viewer.id if viewer is not None else None)


@router.post(
    "/exams/{slug}/attempts",
    response_model=AttemptOut,
    status_code=201,
    responses={
        200: {"model": AttemptOut, "description": "The open attempt, resumed"},
        429: {"model": ErrorOut, "description": "Too many exams started today"},
    },
)
async def start_exam(request: Request, slug: Slug, viewer: RequiredViewer, db: DatabaseDep) -> Any:
    """Start an attempt at an exam (201), or return the caller's open one (200)."""
    drawn = await db.read(service.blueprint_paper, slug)
    started = await db.write(
        service.sit, viewer.id, drawn, now_of(request), grace_of(request), quota=quota_of(request)
    )
    attempt, nav = await db.read(queries.header_and_marks, started.attempt_id, viewer.id)
    out = AttemptOut.model_validate(_attempt_out(attempt, nav, request))
    return JSONResponse(out.model_dump(mode="json"), status_code=200 if started.resumed else 201)


def _related(item: ItemView, request: Request) -> ItemView:
    """The question with only the note links learners see, as in the check API's `notes`."""
    if item.feedback is None:
        return item
    links = item.feedback.related_links(request.app.state.settings.related_threshold)
    return replace(item, feedback=replace(item.feedback, links=links))


@router.get("/attempts", response_model=list[AttemptOut])
async def list_attempts(request: Request, db: DatabaseDep, viewer: RequiredViewer) -> Any:
    """List the caller's attempts, newest first (the latest 50)."""
    return [_attempt_out(a, (), request) for a in await db.read(queries.history, viewer.id)]


@router.get("/attempts/{attempt_id}", response_model=AttemptOut)
async def get_attempt(request: Request, attempt: OwnedAttempt, db: DatabaseDep) -> Any:
    """Get an attempt: its state, time left and each question's answered and flagged marks."""
    return _attempt_out(attempt, await db.read(queries.marks, attempt.id), request)


@router.get(
    "/attempts/{attempt_id}/questions/{position}",
    response_model=AttemptQuestionOut,
    responses=CLOSED,
)
async def get_attempt_question(
    request: Request, attempt: OwnedAttempt, position: Position, db: DatabaseDep
) -> Any:
    """Get one question of an open attempt as it is shown (no answer key in exam mode)."""
    refuse_if_closed(attempt)
    return _related((await db.read(queries.take, attempt, position, now_of(request))).item, request)


@router.put(
    "/attempts/{attempt_id}/questions/{position}/answer",
    response_model=AttemptQuestionOut,
    responses={**CLOSED, **BAD_ANSWER},
)
async def save_answer(
    request: Request,
    attempt: OwnedAttempt,
    position: Position,
    body: AnswerIn,
    viewer: RequiredViewer,
    db: DatabaseDep,
) -> Any:
    """Save the chosen choices of one question (an empty list clears an exam-mode answer)."""
    refuse_if_closed(attempt)
    saved = await db.write(
        answers.save_answer,
        attempt_id=attempt.id,
        user_id=viewer.id,
        position=position,
        choice_ids=body.choice_ids,
        now=now_of(request),
        grace=grace_of(request),
    )
    if body.choice_ids:  # an empty list only clears the answer
        EXAM_ANSWERS.inc()
    return _related(saved.view(attempt, position), request)


@router.put(
    "/attempts/{attempt_id}/questions/{position}/flag",
    response_model=AttemptQuestionOut,
    responses=CLOSED,
)
async def flag_question(
    request: Request,
    attempt: OwnedAttempt,
    position: Position,
    body: FlagIn,
    viewer: RequiredViewer,
    db: DatabaseDep,
) -> Any:
    """Flag a question for review, or take the flag off."""
    refuse_if_closed(attempt)
    flagged = await db.write(
        answers.set_flag,
        attempt_id=attempt.id,
        user_id=viewer.id,
        position=position,
        flagged=body.flagged,
        now=now_of(request),
        grace=grace_of(request),
    )
    return _related(flagged.view(attempt, position), request)


@router.post("/attempts/{attempt_id}/submit", response_model=ResultOut)
async def submit(
    request: Request, attempt: OwnedAttempt, viewer: RequiredViewer, db: DatabaseDep
) -> Any:
    """Submit an attempt (submitting twice is no error) and return its result."""
    await db.write(
        service.submit,
        attempt_id=attempt.id,
        user_id=attempt.user_id,
        now=now_of(request),
        grace=grace_of(request),
    )
    return _result(await db.read(queries.submitted_result, attempt.id, viewer.id), request)


def _result(view: ResultView, request: Request) -> dict:
    threshold = request.app.state.settings.related_threshold
    items = tuple(replace(item, links=item.related_links(threshold)) for item in view.items)
    return {**vars(view), "items": items, "attempt": _attempt_out(view.attempt, (), request)}


@router.get(
    "/attempts/{attempt_id}/result",
    response_model=ResultOut,
    responses={409: {"model": ErrorOut, "description": "Not submitted yet"}},
)
async def get_result(
    request: Request, attempt: OwnedAttempt, viewer: RequiredViewer, db: DatabaseDep
) -> Any:
    """Get a submitted attempt's score, per-topic breakdown and review with explanations."""
    return _result(await db.read(queries.submitted_result, attempt.id, viewer.id), request)
