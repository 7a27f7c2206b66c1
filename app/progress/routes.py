"""Practice answers from the question pages: graded, kept for a logged-in learner."""

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import CurrentViewer, load_viewer
from app.content.dependencies import QuestionDep
from app.content.errors import InvalidAnswer
from app.content.routes import practice_page
from app.content.service import grade
from app.progress import service
from app.progress.dependencies import AnswerSessionDep
from app.web.templating import is_htmx, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
ChoiceField = Annotated[list[str] | None, Form(max_length=26)]


@router.post("/questions/{question_id}", name="answer_question")
def answer_question(
    request: Request,
    view: QuestionDep,
    viewer: CurrentViewer,
    session: AnswerSessionDep,
    choice: ChoiceField = None,
) -> Response:
    """Grade a practice answer, keep it for a logged-in learner, then show the result.

    Without JavaScript the result is a redirect to a page that only reads (POST/redirect/GET),
    so reloading it never records the answer twice; htmx gets the result block in place.
    """
    block = "practice" if is_htmx(request) else None
    try:
        result = grade(session, view.id, _choice_ids(choice or []))
    except InvalidAnswer as exc:
        return practice_page(
            request, view, viewer, None, error=exc.message, status_code=422, block=block
        )
    if viewer is not None:
        service.record_answer(
            session,
            viewer.id,
            result.question_id,
            result.revision,
            result.selected_ids,
            result.correct,
        )
    if block is not None:
        return practice_page(request, view, viewer, result, block=block)
    query = urlencode([("choice", choice_id) for choice_id in result.selected_ids])
    target = f"{url_for('question', question_id=view.id)}?{query}#result-heading"
    return RedirectResponse(target, status_code=303)


def _choice_ids(values: list[str]) -> list[int]:
    try:
        return [int(value) for value in values]
    except ValueError:
        raise InvalidAnswer("That answer was not valid.") from None
