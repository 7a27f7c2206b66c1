"""Exam pages: the list, starting or resuming, one question a page, summary, submit, results.

Every page works without JavaScript (a form post, then a redirect); with htmx each change
of a choice or a flag is saved at once and only the navigator block comes back.
"""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import Field

from app.accounts.dependencies import CurrentViewer, RequiredViewer, load_viewer, require_role
from app.accounts.service import Viewer
from app.content.dependencies import PageNumber, Slug
from app.exams import allowances, answers, queries, service
from app.exams.custom import CustomExam, custom_paper
from app.exams.dependencies import (
    AttemptId,
    OwnedAttempt,
    Position,
    get_attempt,
    grace_of,
    now_of,
    quota_of,
)
from app.exams.errors import (
    AttemptClosed,
    InvalidExamAnswer,
    InvalidExamSpec,
    QuotaReached,
    TimeUp,
)
from app.exams.read_models import AttemptHeader, ResultView, TakeView
from app.progress.study_routes import study_url
from app.web.dependencies import DatabaseDep
from app.web.forms import decimal_number, whole_number, whole_numbers
from app.web.limits import FieldText
from app.web.metrics import EXAM_ANSWERS
from app.web.templating import is_htmx, render, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
ChoiceField = Annotated[list[FieldText] | None, Form(max_length=26)]
Checkbox = Annotated[FieldText | None, Form(max_length=5)]
# Where to go after a save: a step, the summary, or a question's number (the navigator's).
Go = Literal["next", "prev", "summary", "stay"] | Annotated[int, Field(ge=1, le=1000)]
Admin = Annotated[Viewer, Depends(require_role("admin"))]
Show = Annotated[
    Literal["all", "wrong", "unanswered", "flagged"], Query(description="Which questions")
]
PRACTICE_MOST = 20  # the questions a study session's address can name


@router.get("/exams", name="exams")
async def exams(
    request: Request, db: DatabaseDep, viewer: CurrentViewer, page: PageNumber = 1
) -> HTMLResponse:
    """List the exams to start or resume (20 a page), a form for a custom exam, past attempts."""
    return await _exams_page(request, db, viewer, page=page)


async def _exams_page(
    request: Request,
    db: DatabaseDep,
    viewer: Viewer | None,
    *,
    form: dict[str, Any] | None = None,
    error: InvalidExamSpec | QuotaReached | None = None,
    page: int = 1,
) -> HTMLResponse:
    user_id = viewer.id if viewer is not None else None
    context = {
        "view": await db.read(queries.list_page, user_id, page),
        "form": form or {"count": 10, "minutes": 15, "mode": "exam", "topics": []},
        "errors": {error.field: error.message} if error else {},
    }
    response = render(
        request, "exams/list.html", context, status_code=error.status_code if error else 200
    )
    response.headers.update(error.headers if error else {})
    return response


@router.post("/exams/custom", name="start_custom_exam")
async def start_custom_exam(
    request: Request,
    viewer: RequiredViewer,
    db: DatabaseDep,
    topics: Annotated[list[FieldText] | None, Form(max_length=200)] = None,
    count: Annotated[FieldText, Form(max_length=10)] = "",
    minutes: Annotated[FieldText, Form(max_length=10)] = "",
    mode: Annotated[FieldText, Form(max_length=10)] = "exam",
    only_wrong: Checkbox = None,
    only_unseen: Checkbox = None,
) -> Response:
    """Build a custom exam from the learner's choices and start it."""
    form = {
        "topics": topics or [],
        "count": count,
        "minutes": minutes,
        "mode": mode,
        "only_wrong": only_wrong is not None,
        "only_unseen": only_unseen is not None,
    }
    try:
        wanted = CustomExam(
            topics=tuple(dict.fromkeys(topics or [])),
            count=_number(count, "count", "Enter how many questions, as a number."),
            minutes=_number(
                minutes or "0", "minutes", "Enter the minutes as a number (0: untimed)."
            ),
            mode=mode,
            only_wrong=only_wrong is not None,
            only_unseen=only_unseen is not None,
        )
        drawn = await db.read(custom_paper, viewer.id, wanted)
        started = await db.write(
            service.sit,
            viewer.id,
            drawn,
            now_of(request),
            grace_of(request),
            quota=quota_of(request),
        )
    except (InvalidExamSpec, QuotaReached) as exc:
        return await _exams_page(request, db, viewer, form=form, error=exc)
    return RedirectResponse(url_for("attempt", attempt_id=started.attempt_id), status_code=303)


def _number(value: str, field: str, message: str) -> int:
    number = whole_number(value)
    if number is None:
        raise InvalidExamSpec(field, message)
    return number


@router.post("/exams/{slug}/start", name="start_exam")
async def start_exam(
    request: Request, slug: Slug, viewer: RequiredViewer, db: DatabaseDep
) -> Response:
    """Start an exam, or resume the open attempt at it."""
    drawn = await db.read(service.blueprint_paper, slug)
    try:
        started = await db.write(
            service.sit,
            viewer.id,
            drawn,
            now_of(request),
            grace_of(request),
            quota=quota_of(request),
        )
    except QuotaReached as exc:
        return await _exams_page(request, db, viewer, error=exc)
    return RedirectResponse(url_for("attempt", attempt_id=started.attempt_id), status_code=303)


def _goto(attempt_id: int, position: int, query: str = "") -> RedirectResponse:
    target = url_for("attempt_question", attempt_id=attempt_id, position=position)
    return RedirectResponse(target + query, status_code=303)


def _result(attempt_id: int, *, time_up: bool) -> RedirectResponse:
    """Go to an attempt's result; one the clock closed says so at the top."""
    target = url_for("attempt", attempt_id=attempt_id) + ("?timeup=1" if time_up else "")
    return RedirectResponse(target, status_code=303)


@router.get("/attempts/{attempt_id}", name="attempt")
async def attempt_result(
    request: Request, attempt: OwnedAttempt, db: DatabaseDep, show: Show = "all"
) -> Response:
    """Show a closed attempt's result and review; an open one goes on where it was left."""
    if attempt.is_open:
        return _goto(attempt.id, await db.read(queries.resume_position, attempt.id))
    view = await db.read(queries.result, attempt)
    context = {
        "view": view,
        "shown": view.shown(show),
        "show": show,
        "late": "late" in request.query_params,
        "time_up": "timeup" in request.query_params,
        "practice_url": _practice_url(view),
        "practice_most": PRACTICE_MOST,
        "related_score": request.app.state.settings.related_threshold,
    }
    return render(request, "exams/result.html", context)


def _practice_url(view: ResultView) -> str | None:
    """A study session of the questions missed (the first ones, when there are many)."""
    ids = view.missed_question_ids[:PRACTICE_MOST]
    return study_url("study_question", ids, question_id=ids[0]) if ids else None


@router.get("/attempts/{attempt_id}/review", name="attempt_review")
async def attempt_review(
    request: Request, attempt: OwnedAttempt, db: DatabaseDep, show: Show = "all"
) -> Response:
    """Review a closed attempt question by question: all, or the wrong, unanswered or flagged."""
    return await attempt_result(request, attempt, db, show)


@router.get("/attempts/{attempt_id}/questions/{position}", name="attempt_question")
async def attempt_question(
    request: Request,
    attempt_id: AttemptId,
    position: Position,
    viewer: RequiredViewer,
    db: DatabaseDep,
) -> Response:
    """Show one question of an open attempt with the navigator and the time left.

    The page learners load most during an exam: one read. A closed attempt, or one whose
    time ran out (finalised here then), goes to its result, which says when the clock ended it.
    """
    now = now_of(request)
    view = await db.read(queries.take_open, attempt_id, viewer.id, position, now, grace_of(request))
    if view is None:
        attempt = await get_attempt(request, attempt_id, viewer)
        return _result(attempt.id, time_up=attempt.status == "expired")
    late = request.query_params.get("saved") == "late"
    return _show(request, view, saved=late, saved_late=late)


def _show(
    request: Request,
    view: TakeView,
    *,
    error: str | None = None,
    saved: bool = False,
    saved_late: bool = False,
    status_code: int = 200,
    block: str | None = None,
) -> HTMLResponse:
    context = {
        "view": view,
        "error": error,
        "saved": saved,
        "saved_late": saved_late,
        "related_score": request.app.state.settings.related_threshold,
    }
    return render(request, "exams/question.html", context, status_code=status_code, block=block)


@router.post("/attempts/{attempt_id}/questions/{position}", name="save_attempt_question")
async def save_attempt_question(
    request: Request,
    attempt_id: AttemptId,
    position: Position,
    viewer: RequiredViewer,
    db: DatabaseDep,
    choice: ChoiceField = None,
    flagged: Checkbox = None,
    go: Annotated[Go, Form()] = "stay",
) -> Response:
    """Save a question's choices and flag, then go where the learner asked.

    The save itself checks that the attempt is the learner's, open and in time. With htmx
    the answer is the navigator as the save left it, read in the save's own transaction;
    without, a redirect. A save after the deadline, in the grace, says so.
    """
    block = "status" if is_htmx(request) else None
    now = now_of(request)
    try:
        save = answers.PageSave(
            attempt_id,
            viewer.id,
            position,
            _choice_ids(choice or []),
            flagged=flagged is not None,
            now=now,
            grace=grace_of(request),
        )
        if block is None:
            _, attempt = await db.write(answers.save_page, save)
            _count_answer(choice)
            return _after_save(attempt, position, go, late=answers.past_deadline(attempt, now))
        view = await db.write(answers.save_page_and_take, save)
        _count_answer(choice)
    except InvalidExamAnswer as exc:
        attempt = await get_attempt(request, attempt_id, viewer)
        shown = await db.read(queries.take, attempt, position, now)
        return _show(request, shown, error=exc.message, status_code=422, block=block)
    except AttemptClosed as exc:
        if block is None and isinstance(exc, TimeUp) and not choice:
            return _result(attempt_id, time_up=True)  # no answer was lost: only say time ran out
        if block is None:
            raise
        return Response(status_code=409, headers={"HX-Redirect": exc.page_redirect or "/"})
    late = answers.past_deadline(view.attempt, now)
    return _show(request, view, saved=True, saved_late=late, block=block)


def _count_answer(choice: list[str] | None) -> None:
    """Count a committed save that held a choice (a page left blank answers nothing)."""
    if choice:
        EXAM_ANSWERS.inc()


def _after_save(attempt: AttemptHeader, position: int, go: Go, *, late: bool) -> RedirectResponse:
    if go == "summary" or (go == "next" and position >= attempt.question_count):
        target = url_for("attempt_summary", attempt_id=attempt.id)
        return RedirectResponse(target, status_code=303)
    if isinstance(go, int):
        to = min(go, attempt.question_count)
    else:
        to = max(1, position + {"next": 1, "prev": -1}.get(go, 0))
    return _goto(attempt.id, to, "?saved=late" if late else "")


def _choice_ids(values: list[str]) -> list[int]:
    ids = whole_numbers(values)
    if ids is None:
        raise InvalidExamAnswer("That answer was not valid.")
    return ids


@router.get("/attempts/{attempt_id}/summary", name="attempt_summary")
async def attempt_summary(request: Request, attempt: OwnedAttempt, db: DatabaseDep) -> Response:
    """List unanswered and flagged questions before the learner submits."""
    if not attempt.is_open:
        return _result(attempt.id, time_up=attempt.status == "expired")
    view = await db.read(queries.summary, attempt, now_of(request))
    return render(request, "exams/summary.html", {"view": view})


@router.post("/attempts/{attempt_id}/submit", name="submit_attempt")
async def submit_attempt(request: Request, attempt: OwnedAttempt, db: DatabaseDep) -> Response:
    """Submit an attempt and show its result (saying so when the clock ended it: the page's
    script submits when the time is up)."""
    now = now_of(request)
    status = await db.write(
        service.submit,
        attempt_id=attempt.id,
        user_id=attempt.user_id,
        now=now,
        grace=grace_of(request),
    )
    forced = attempt.is_open and answers.past_deadline(attempt, now)
    return _result(attempt.id, time_up=status == "expired" or forced)


@router.get("/exams/extra-time", name="allowances")
async def allowances_page(request: Request, db: DatabaseDep, admin: Admin) -> HTMLResponse:
    """Show who has extra time on timed exams, and a form to give it (admins only)."""
    return await _allowances(request, db)


async def _allowances(
    request: Request, db: DatabaseDep, *, error: str | None = None, username: str = ""
) -> HTMLResponse:
    context = {
        "allowances": await db.read(allowances.list_allowances),
        "error": error,
        "username": username,
        "done": request.query_params.get("done") == "1",
    }
    return render(request, "exams/allowances.html", context, status_code=422 if error else 200)


@router.post("/exams/extra-time", name="set_allowance")
async def set_allowance(
    request: Request,
    admin: Admin,
    db: DatabaseDep,
    username: Annotated[FieldText, Form(max_length=32)] = "",
    multiplier: Annotated[FieldText, Form(max_length=5)] = "",
) -> Response:
    """Give a learner extra time on the timed exams they start from now on."""
    try:
        factor = decimal_number(multiplier, 1, 4) or 0.0
        await db.write(
            allowances.set_allowance,
            actor=admin,
            username=username,
            multiplier=factor,
            now=now_of(request),
        )
    except InvalidExamSpec as exc:
        return await _allowances(request, db, error=exc.message, username=username)
    return RedirectResponse(url_for("allowances") + "?done=1", status_code=303)
