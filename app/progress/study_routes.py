"""Walks through a list of questions: "Study next" (a short session of due reviews and
unseen questions), a topic's practice, and the questions of a set last answered wrong.

The walk's questions travel in the address (`?plan=12.7.31`, with `&topic=...` or `&set=...`
for a topic's or a set's walk), so any page of it can be reloaded, bookmarked or opened in a
second tab; answers are kept like practice answers, each naming the walk it was given in
(a topic's or a set's, so home can continue it), and "Next" stays inside the list.
"""

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import AfterValidator

from app.accounts.dependencies import (
    CurrentViewer,
    RequiredViewer,
    load_viewer,
    require_viewer,
    viewer_of,
)
from app.accounts.service import Viewer
from app.content.dependencies import (
    CHOICES_IN_ADDRESS,
    QuestionDep,
    Slug,
    chosen_ids,
)
from app.content.errors import NotFound
from app.content.read_models import QuestionView
from app.content.routes import practice_page
from app.progress import study
from app.progress.dependencies import LibraryDep, NowDep, shown_grade
from app.progress.models import walk_name
from app.progress.routes import ChoiceField, ShownField, answer
from app.web.dependencies import DatabaseDep
from app.web.forms import whole_numbers
from app.web.templating import render, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
STUDY_PAGE = "progress/study.html"
WALK_DONE = "progress/walk_done.html"


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
_SLUG = {"max_length": 120, "pattern": r"^[a-z0-9-]+$"}
TopicParam = Annotated[
    str | None, Query(description="The topic whose questions the walk goes through", **_SLUG)
]
SetParam = Annotated[
    str | None,
    Query(alias="set", description="The set whose wrong answers the walk goes through", **_SLUG),
]


@dataclass(frozen=True)
class Walk:
    """What a walk goes through other than "Study next": a topic, or a set's wrong answers."""

    kind: str  # "topic" or "wrong"
    slug: str
    title: str = ""

    @property
    def param(self) -> str:
        """What the address calls it: "topic", or "set" for a set's wrong answers."""
        return "topic" if self.kind == "topic" else "set"

    @property
    def query(self) -> str:
        return f"&{self.param}={self.slug}"

    @property
    def name(self) -> str:
        """How an answer given in the walk names it."""
        return walk_name(self.param, self.slug)


@dataclass(frozen=True)
class StudyStep:
    """Where a question stands in a walk, and where to go after it."""

    position: int
    total: int
    next_url: str
    answer_url: str
    question_url: str
    walk: Walk | None = None


def _ids(plan: str) -> tuple[int, ...]:
    return tuple(dict.fromkeys(whole_numbers(plan.split(".")) or ()))


def _plan(ids: tuple[int, ...]) -> str:
    return ".".join(str(qid) for qid in ids)


def study_url(name: str, ids: tuple[int, ...], walk: Walk | None = None, **params: Any) -> str:
    """The address of a walk's page: the route's path, the questions and what it walks."""
    return f"{url_for(name, **params)}?plan={_plan(ids)}{walk.query if walk else ''}"


async def _walk(
    request: Request, db: DatabaseDep, topic: TopicParam = None, set_slug: SetParam = None
) -> Walk | None:
    """Name the topic or set a walk goes through (422 when there is none); a guest may walk
    a topic, the other walks are for logged-in learners."""
    if topic is not None:
        kind, slug = "topic", topic
    else:
        await require_viewer(request, viewer_of(request))
        if set_slug is None:
            return None
        kind, slug = "wrong", set_slug
    return Walk(kind, slug, await db.read(study.walk_title, kind=kind, slug=slug))


WalkDep = Annotated[Walk | None, Depends(_walk)]


def _step(plan: str, view: QuestionView, walk: Walk | None) -> dict[str, Any]:
    ids = _ids(plan)
    if view.id not in ids:
        raise NotFound("This question is not part of that walk.")
    n = ids.index(view.id)
    following = (
        study_url("study_question", ids, walk, question_id=ids[n + 1])
        if n + 1 < len(ids)
        else study_url("study_done", ids, walk)
    )
    answer = study_url("answer_study", ids, walk, question_id=view.id)
    again = study_url("study_question", ids, walk, question_id=view.id)
    step = StudyStep(n + 1, len(ids), following, answer, again, walk)
    return {"study": step, "answer_url": answer}


def _start(ids: tuple[int, ...], walk: Walk) -> RedirectResponse:
    target = study_url("study_question", ids, walk, question_id=ids[0])
    return RedirectResponse(target, status_code=303)


def _user_id(viewer: Viewer | None) -> int | None:
    return viewer.id if viewer is not None else None


@router.get("/topics/{slug}/practice", name="practice_topic")
async def practice_topic(request: Request, slug: Slug, db: DatabaseDep) -> RedirectResponse:
    """Walk a topic with its subtopics (up to 20 questions, in set order): a learner's
    unanswered questions first, then those last answered wrong."""
    user_id = _user_id(viewer_of(request))
    ids = await db.read(study.topic_walk, user_id=user_id, slug=slug)
    return _start(ids, Walk("topic", slug))


@router.get("/sets/{slug}/wrong", name="practise_wrong")
async def practise_wrong(slug: Slug, viewer: RequiredViewer, db: DatabaseDep) -> Response:
    """Walk the questions of a set that my latest answer got wrong (to my result if none)."""
    ids = await db.read(study.wrong_walk, user_id=viewer.id, set_slug=slug)
    if not ids:
        return RedirectResponse(url_for("set_summary", slug=slug), status_code=303)
    return _start(ids, Walk("wrong", slug))


@router.get("/study", name="study_next")
async def study_next(
    request: Request, viewer: RequiredViewer, db: DatabaseDep, now: NowDep, library: LibraryDep
) -> Response:
    """Start a short session: my due reviews mixed with unseen questions of my weakest topics."""
    ids, status = await db.read(
        study.next_session, user_id=viewer.id, now=now, zone=viewer.time_zone, library=library
    )
    if not ids:
        response = render(request, "progress/study_done.html", {"summary": None, "status": status})
        response.headers["cache-control"] = "no-store"
        return response
    return RedirectResponse(study_url("study_question", ids, question_id=ids[0]), status_code=303)


@router.get("/study/done", name="study_done")
async def study_done(
    request: Request,
    viewer: CurrentViewer,
    db: DatabaseDep,
    plan: Plan,
    now: NowDep,
    walk: WalkDep,
) -> Response:
    """Show how a walk went: each question's latest answer, and what to do next."""
    if walk is None:
        learner = await require_viewer(request, viewer)
        summary, status = await db.read(
            study.summary, user_id=learner.id, ids=_ids(plan), now=now, zone=learner.time_zone
        )
        context = {"summary": summary, "status": status}
        response = render(request, "progress/study_done.html", context)
    else:
        summary = await db.read(study.walk_summary, user_id=_user_id(viewer), ids=_ids(plan))
        response = render(request, WALK_DONE, {"summary": summary, "walk": walk})
    response.headers["cache-control"] = "no-store"
    return response


@router.get("/study/{question_id:int}", name="study_question", openapi_extra=CHOICES_IN_ADDRESS)
async def study_question(
    request: Request, view: QuestionDep, viewer: CurrentViewer, plan: Plan, walk: WalkDep
) -> HTMLResponse:
    """Show one question of a walk, graded when choices are in the address."""
    extra = _step(plan, view, walk)
    grade = await shown_grade(request, view.id, chosen_ids(request))
    return practice_page(request, view, viewer, grade, page=STUDY_PAGE, extra=extra)


@router.post("/study/{question_id:int}", name="answer_study")
async def answer_study(
    request: Request,
    view: QuestionDep,
    viewer: CurrentViewer,
    db: DatabaseDep,
    now: NowDep,
    plan: Plan,
    walk: WalkDep,
    choice: ChoiceField = None,
    shown: ShownField = None,
) -> Response:
    """Grade an answer in a walk, keep it for a learner, then show the result and the next step."""
    extra = _step(plan, view, walk)

    async def context() -> dict[str, Any]:
        return extra

    shown_at = extra["study"].question_url
    return await answer(
        request,
        view,
        viewer,
        db,
        choice,
        now,
        shown_at,
        context,
        shown,
        page=STUDY_PAGE,
        walk=walk.name if walk else None,
    )
