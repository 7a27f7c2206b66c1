"""Regrade a question as JSON: the dry run, or the regrade itself. Author-scoped tokens and up."""

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel

from app.accounts.dependencies import load_viewer
from app.content.dependencies import QuestionId
from app.content.editor_api import Author
from app.exams import regrade
from app.exams.dependencies import now_of
from app.web.dependencies import DatabaseDep
from app.web.schemas import NOT_FOUND, ErrorOut

router = APIRouter(
    prefix="/api/v1/author",
    tags=["authoring"],
    responses={
        **NOT_FOUND,
        403: {"model": ErrorOut, "description": "Not an author, or a token scope below author"},
    },
    dependencies=[Depends(load_viewer)],
)


class RegradeOut(BaseModel):
    question_id: int
    dry_run: bool
    revision: int  # the question's revision whose key was (or would be) applied
    attempts_changed: int
    outcomes_flipped: int
    answers_changed: int


@router.post("/questions/{question_id}/regrade", response_model=RegradeOut)
async def regrade_question(
    request: Request,
    question_id: QuestionId,
    viewer: Author,
    db: DatabaseDep,
    dry_run: Annotated[bool, Query(description="Only count what would change")] = True,
) -> RegradeOut:
    """Regrade a question's graded attempts and answers with its key as it is now, or only
    count what that would change (dry_run, the default)."""
    if dry_run:
        view = await db.read(regrade.preview, viewer, question_id)
        counts, revision = view.counts, view.revision
    else:
        counts = await regrade.run(db, viewer, question_id, now_of(request))
        revision = await db.read(regrade.latest_revision, question_id)
    return RegradeOut(
        question_id=question_id,
        dry_run=dry_run,
        revision=revision,
        attempts_changed=counts.attempts,
        outcomes_flipped=counts.flipped,
        answers_changed=counts.answers,
    )
