"""The unit of work a practice answer runs in, the clock progress is measured by, and the
library learners are measured against."""

from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request

from app.accounts.dependencies import CurrentViewer
from app.progress.library import CACHE_KEY, Library, load_library
from app.web.dependencies import UnitOfWork, unit_of_work


async def get_answer_work(request: Request, viewer: CurrentViewer) -> UnitOfWork:
    """A writing unit of work when a learner is logged in (the answer is kept), else reading.

    Guests' checks only read, so they never queue for SQLite's write lock.
    """
    return unit_of_work(request, write=viewer is not None)


def now_of(request: Request) -> datetime:
    """Read the application's clock (tests set their own on `app.state.clock`)."""
    return request.app.state.clock()


async def get_now(request: Request) -> datetime:
    return now_of(request)


async def get_library(request: Request) -> Library:
    """The library's question counts, topics and exams, kept until the content changes."""
    return await request.app.state.cache.get(CACHE_KEY, load_library)


AnswerWorkDep = Annotated[UnitOfWork, Depends(get_answer_work)]
NowDep = Annotated[datetime, Depends(get_now)]
LibraryDep = Annotated[Library, Depends(get_library)]
