"""Practice answers through the JSON API."""

from typing import Any

from fastapi import APIRouter, Depends

from app.accounts.dependencies import CurrentViewer, load_viewer
from app.content.dependencies import QuestionDep
from app.content.schemas import CheckIn, CheckOut
from app.content.service import grade
from app.progress import service
from app.progress.dependencies import AnswerSessionDep
from app.web.schemas import NOT_FOUND

router = APIRouter(
    prefix="/api/v1", tags=["practice"], responses=NOT_FOUND, dependencies=[Depends(load_viewer)]
)


@router.post(
    "/questions/{question_id}/check",
    response_model=CheckOut,
    responses={422: {"description": "No choice, a choice of another question, or too many"}},
)
def check_question(
    view: QuestionDep, body: CheckIn, viewer: CurrentViewer, session: AnswerSessionDep
) -> dict[str, Any]:
    """Check chosen choices: correctness, the right choices, the explanation and notes.

    A logged-in learner's answer is recorded; a guest's is not.
    """
    result = grade(session, view.id, body.choice_ids)
    if viewer is not None:
        service.record_answer(
            session,
            viewer.id,
            result.question_id,
            result.revision,
            result.selected_ids,
            result.correct,
        )
    return {
        "correct": result.correct,
        "selected_ids": list(result.selected_ids),
        "correct_choice_ids": list(result.correct_ids),
        "explanation": view.explanation_md,
        "explanation_html": view.explanation_html,
        "notes": view.links,
    }
