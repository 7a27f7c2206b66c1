"""Practice answers and a learner's progress through the JSON API."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response

from app.accounts.dependencies import load_viewer, viewer_of
from app.content.dependencies import QuestionDep
from app.content.schemas import CheckIn, CheckOut, erratum_json, note_link_json, reference_json
from app.progress import service
from app.progress.dependencies import exams_of, now_of
from app.progress.read_models import Dashboard
from app.web.dependencies import DatabaseDep
from app.web.metrics import PRACTICE_ANSWERS
from app.web.schemas import NOT_FOUND, ErrorOut
from app.web.templating import url_for

router = APIRouter(
    prefix="/api/v1", tags=["practice"], responses=NOT_FOUND, dependencies=[Depends(load_viewer)]
)


@router.post(
    "/questions/{question_id}/check",
    response_model=CheckOut,
    responses={
        409: {"model": ErrorOut, "description": "An exam the learner has open holds the question"},
        422: {"description": "No choice, a choice of another question, or too many"},
    },
)
async def check_question(
    request: Request, view: QuestionDep, body: CheckIn, db: DatabaseDep
) -> Response:
    """Check chosen choices: correctness, the right choices, the explanation, notes, sources and
    errata.

    A logged-in learner's answer is recorded; a guest's is not (it only reads).
    """
    viewer = viewer_of(request)
    user_id = viewer.id if viewer is not None else None
    threshold = request.app.state.settings.related_threshold
    run = db.write if user_id is not None else db.read
    result = await run(
        service.check_answer,
        user_id=user_id,
        question_id=view.id,
        choice_ids=body.choice_ids,
        now=now_of(request),
        exams=exams_of(request),
    )
    if user_id is not None:  # kept (and committed) only for a learner
        PRACTICE_ANSWERS.inc()
    # Built here rather than validated against CheckOut: every field comes from a read model.
    return JSONResponse(
        {
            "correct": result.correct,
            "selected_ids": list(result.selected_ids),
            "correct_choice_ids": list(result.correct_ids),
            "explanation": view.explanation_md,
            "explanation_html": view.explanation_html,
            "notes": [note_link_json(link) for link in view.related_links(threshold)],
            "references": [reference_json(reference) for reference in view.references],
            "errata": [erratum_json(erratum) for erratum in view.errata],
        }
    )


REVIEW_FIELDS = ("due_now", "due_today", "next_due_at", "waiting", "done_today", "time_zone")
Weeks = Annotated[int, Query(ge=1, le=53, description="Weeks of activity to list, this one last")]


def progress_json(view: Dashboard) -> dict[str, Any]:
    """Shape a dashboard for the API."""
    return {
        "review": {key: getattr(view.review, key) for key in REVIEW_FIELDS},
        "topics": [
            {
                **{key: getattr(t, key) for key in ("slug", "title", "questions", "seen")},
                "latest_right": t.latest_right,
                "accuracy": t.accuracy,
                "recall": t.recall,
                "mastery": t.mastery,
                "measured": t.measured,
                "notes": t.note_count,
                "notes_read": t.notes_read,
                "practice_url": url_for("question", question_id=t.first_question_id)
                if t.first_question_id
                else None,
                "topic_url": url_for("topic", slug=t.slug),
            }
            for t in view.topics
        ],
        "activity": {
            "answers": view.answers,
            "seconds_studied": round(view.seconds, 1),
            "days_studied": view.days_studied,
            "streak_days": view.streak_days,
            "days": [
                {"date": d.day, "answers": d.answers}
                for week in view.weeks
                for d in week
                if d.answers is not None
            ],
        },
        "exams": {
            "attempts": view.exams.attempts,
            "scores": [
                {
                    "title": s.title,
                    "finished_at": s.finished_at,
                    "percent": s.percent,
                    "pass_mark": s.pass_mark,
                    "passed": s.passed,
                    "result_url": url_for("attempt", attempt_id=s.attempt_id),
                }
                for s in view.exams.scores
            ],
        },
        "readiness": [
            {
                "slug": r.slug,
                "title": r.title,
                "expected_percent": r.expected_percent,
                "pass_mark": r.pass_mark,
                "ready": r.ready,
                "questions": r.questions,
                "seen": r.seen,
                "right": r.right,
                "needed": r.needed,
            }
            for r in view.readiness
        ],
    }
