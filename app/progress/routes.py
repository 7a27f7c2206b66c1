"""Practice answers from the question pages: graded, kept for a logged-in learner."""

from functools import partial
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import CurrentViewer, load_viewer
from app.content.dependencies import QuestionDep
from app.content.errors import InvalidAnswer
from app.content.routes import practice_page
from app.progress import service
from app.progress.dependencies import AnswerWorkDep
from app.web.templating import is_htmx, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
ChoiceField = Annotated[list[str] | None, Form(max_length=26)]


@router.post("/questions/{question_id}", name="answer_question")
async def answer_question(
    request: Request,
    view: QuestionDep,
    viewer: CurrentViewer,
    work: AnswerWorkDep,
    choice: ChoiceField = None,
) -> Response:
    """Grade a practice answer, keep it for a logged-in learner, then show the result.

    Without JavaScript the result is a redirect to a page that only reads (POST/redirect/GET),
    so reloading it never records the answer twice; htmx gets the result block in place.
    """
    block = "practice" if is_htmx(request) else None
    user_id = viewer.id if viewer is not None else None
    try:
        ids = _choice_ids(choice or [])
        result = await work.run(
            partial(service.check_answer, user_id=user_id, question_id=view.id, choice_ids=ids)
        )
    except InvalidAnswer as exc:
        return practice_page(
            request, view, viewer, None, error=exc.message, status_code=422, block=block
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
