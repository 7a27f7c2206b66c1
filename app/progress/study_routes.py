"""Study next: one button starts a short session of due reviews and unseen questions.

The session's questions travel in the address (`?plan=12.7.31`), so any page of it can be
reloaded, bookmarked or opened in a second tab; answers are kept like practice answers.
"""

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import AfterValidator

from app.accounts.dependencies import RequiredViewer, load_viewer
from app.content.dependencies import CHOICES_IN_ADDRESS, QuestionDep, chosen_ids, shown_grade
from app.content.errors import NotFound
from app.content.read_models import QuestionView
from app.content.routes import practice_page
from app.progress import study
from app.progress.dependencies import LibraryDep, NowDep
from app.progress.routes import ChoiceField, ShownField, answer
from app.web.dependencies import DatabaseDep
from app.web.forms import whole_numbers
from app.web.templating import render, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
STUDY_PAGE = "progress/study.html"


def _question_ids(plan: str) -> str:
    if whole_numbers(plan.split(".")) is None:
        raise ValueError("A study session's questions are named by their ids.")
    return plan


Plan = Annotated[
    str,
    Query(
        max_length=240,
        pattern=r"^[0-9]{1,10}(\.[0-9]{1,10}){0,19}$",
        description="The session's question ids, joined by dots (at most 20)",
    ),
    AfterValidator(_question_ids),
]


@dataclass(frozen=True)
class StudyStep:
    """Where a question stands in a study session, and where to go after it."""

    position: int
    total: int
    next_url: str
    answer_url: str


def _ids(plan: str) -> tuple[int, ...]:
    return tuple(dict.fromkeys(whole_numbers(plan.split(".")) or ()))


def _plan(ids: tuple[int, ...]) -> str:
    return ".".join(str(qid) for qid in ids)


def study_url(name: str, ids: tuple[int, ...], **params: Any) -> str:
    """The address of a session page: the route's path and the session's questions."""
    return f"{url_for(name, **params)}?plan={_plan(ids)}"


def _step(plan: str, view: QuestionView) -> dict[str, Any]:
    ids = _ids(plan)
    if view.id not in ids:
        raise NotFound("This question is not part of that study session.")
    n = ids.index(view.id)
    following = (
        study_url("study_question", ids, question_id=ids[n + 1])
        if n + 1 < len(ids)
        else study_url("study_done", ids)
    )
    answer = study_url("answer_study", ids, question_id=view.id)
    return {"study": StudyStep(n + 1, len(ids), following, answer), "answer_url": answer}


@router.get("/study", name="study_next")
async def study_next(
    request: Request, viewer: RequiredViewer, db: DatabaseDep, now: NowDep, library: LibraryDep
) -> Response:
    """Start a short session: my due reviews mixed with unseen questions of my weakest topics."""
    ids, status = await db.read(study.next_session, user_id=viewer.id, now=now, library=library)
    if not ids:
        response = render(request, "progress/study_done.html", {"summary": None, "status": status})
        response.headers["cache-control"] = "no-store"
        return response
    return RedirectResponse(study_url("study_question", ids, question_id=ids[0]), status_code=303)


@router.get("/study/done", name="study_done")
async def study_done(
    request: Request, viewer: RequiredViewer, db: DatabaseDep, plan: Plan, now: NowDep
) -> Response:
    """Show how a study session went: each question's latest answer, and what to do next."""
    summary, status = await db.read(study.summary, user_id=viewer.id, ids=_ids(plan), now=now)
    response = render(request, "progress/study_done.html", {"summary": summary, "status": status})
    response.headers["cache-control"] = "no-store"
    return response


@router.get("/study/{question_id:int}", name="study_question", openapi_extra=CHOICES_IN_ADDRESS)
async def study_question(
    request: Request, view: QuestionDep, viewer: RequiredViewer, plan: Plan
) -> HTMLResponse:
    """Show one question of a study session, graded when choices are in the address."""
    extra = _step(plan, view)
    grade = await shown_grade(request, view.id, chosen_ids(request))
    return practice_page(request, view, viewer, grade, page=STUDY_PAGE, extra=extra)


@router.post("/study/{question_id:int}", name="answer_study")
async def answer_study(
    request: Request,
    view: QuestionDep,
    viewer: RequiredViewer,
    db: DatabaseDep,
    now: NowDep,
    plan: Plan,
    choice: ChoiceField = None,
    shown: ShownField = None,
) -> Response:
    """Grade an answer in a study session, keep it, then show the result and the next step."""
    extra = _step(plan, view)

    async def context() -> dict[str, Any]:
        return extra

    shown_at = study_url("study_question", _ids(plan), question_id=view.id)
    return await answer(
        request, view, viewer, db, choice, now, shown_at, context, shown, page=STUDY_PAGE
    )
