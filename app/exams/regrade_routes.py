"""Regrade a question after its key was fixed: the dry run, then the regrade (authors only).

The page shows what a regrade would change and writes nothing; its form (a POST) runs it and
comes back to the page, which then shows the regrade among those run before.
"""

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.accounts.dependencies import load_viewer
from app.content.dependencies import QuestionId
from app.content.editor_routes import Author
from app.exams import regrade
from app.exams.dependencies import now_of
from app.web.dependencies import DatabaseDep
from app.web.templating import render, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])


@router.get("/author/questions/{question_id}/regrade", name="regrade")
async def regrade_page(
    request: Request, question_id: QuestionId, viewer: Author, db: DatabaseDep
) -> HTMLResponse:
    """Show what regrading a question with its key as it is now would change (a dry run)."""
    view = await db.read(regrade.preview, viewer, question_id)
    return render(request, "exams/regrade.html", {"view": view})


@router.post("/author/questions/{question_id}/regrade", name="regrade_post")
async def regrade_question(
    request: Request, question_id: QuestionId, viewer: Author, db: DatabaseDep
) -> RedirectResponse:
    """Regrade the question's graded attempts and answers, then show the regrade."""
    counts = await regrade.run(db, viewer, question_id, now_of(request))
    done = "regraded" if counts != regrade.Counts(0, 0, 0) else "regraded-nothing"
    target = url_for("regrade", question_id=question_id) + f"?done={done}"
    return RedirectResponse(target, status_code=303)
