"""The unit of work a practice answer runs in."""

from typing import Annotated

from fastapi import Depends, Request

from app.accounts.dependencies import CurrentViewer
from app.web.dependencies import UnitOfWork, unit_of_work


async def get_answer_work(request: Request, viewer: CurrentViewer) -> UnitOfWork:
    """A writing unit of work when a learner is logged in (the answer is kept), else reading.

    Guests' checks only read, so they never queue for SQLite's write lock.
    """
    return unit_of_work(request, write=viewer is not None)


AnswerWorkDep = Annotated[UnitOfWork, Depends(get_answer_work)]
