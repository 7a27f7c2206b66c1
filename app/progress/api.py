"""Practice answers through the JSON API."""

from functools import partial

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from app.accounts.dependencies import load_viewer, viewer_of
from app.content.dependencies import QuestionDep
from app.content.schemas import CheckIn, CheckOut, note_link_json
from app.progress import service
from app.progress.dependencies import now_of
from app.web.dependencies import unit_of_work
from app.web.schemas import NOT_FOUND

router = APIRouter(
    prefix="/api/v1", tags=["practice"], responses=NOT_FOUND, dependencies=[Depends(load_viewer)]
)


@router.post(
    "/questions/{question_id}/check",
    response_model=CheckOut,
    responses={422: {"description": "No choice, a choice of another question, or too many"}},
)
async def check_question(request: Request, view: QuestionDep, body: CheckIn) -> Response:
    """Check chosen choices: correctness, the right choices, the explanation and notes.

    A logged-in learner's answer is recorded; a guest's is not.
    """
    viewer = viewer_of(request)
    user_id = viewer.id if viewer is not None else None
    work = unit_of_work(request, write=user_id is not None)
    result = await work.run(
        partial(
            service.check_answer,
            user_id=user_id,
            question_id=view.id,
            choice_ids=body.choice_ids,
            now=now_of(request),
        )
    )
    # Built here rather than validated against CheckOut: every field comes from a read model.
    return JSONResponse(
        {
            "correct": result.correct,
            "selected_ids": list(result.selected_ids),
            "correct_choice_ids": list(result.correct_ids),
            "explanation": view.explanation_md,
            "explanation_html": view.explanation_html,
            "notes": [note_link_json(link) for link in view.links],
        }
    )
