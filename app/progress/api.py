"""Practice answers through the JSON API."""

from functools import partial
from typing import Any

from fastapi import APIRouter, Depends

from app.accounts.dependencies import CurrentViewer, load_viewer
from app.content.dependencies import QuestionDep
from app.content.schemas import CheckIn, CheckOut
from app.progress import service
from app.progress.dependencies import AnswerWorkDep
from app.web.schemas import NOT_FOUND

router = APIRouter(
    prefix="/api/v1", tags=["practice"], responses=NOT_FOUND, dependencies=[Depends(load_viewer)]
)


@router.post(
    "/questions/{question_id}/check",
    response_model=CheckOut,
    responses={422: {"description": "No choice, a choice of another question, or too many"}},
)
async def check_question(
    view: QuestionDep, body: CheckIn, viewer: CurrentViewer, work: AnswerWorkDep
) -> dict[str, Any]:
    """Check chosen choices: correctness, the right choices, the explanation and notes.

    A logged-in learner's answer is recorded; a guest's is not.
    """
    user_id = viewer.id if viewer is not None else None
    result = await work.run(
        partial(
            service.check_answer, user_id=user_id, question_id=view.id, choice_ids=body.choice_ids
        )
    )
    return {
        "correct": result.correct,
        "selected_ids": list(result.selected_ids),
        "correct_choice_ids": list(result.correct_ids),
        "explanation": view.explanation_md,
        "explanation_html": view.explanation_html,
        "notes": view.links,
    }
