"""The clock progress is measured by, the library learners are measured against, and the
exams practice asks about."""

from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request

from app.accounts.dependencies import viewer_of
from app.content.read_models import Grade
from app.db import Database
from app.progress import service
from app.progress.library import CACHE_KEY, Library, load_library
from app.progress.read_models import NO_EXAMS, ExamRecords


def now_of(request: Request) -> datetime:
    """Read the application's clock (tests set their own on `app.state.clock`)."""
    return request.app.state.clock()


async def get_now(request: Request) -> datetime:
    return now_of(request)


async def get_library(request: Request) -> Library:
    """The library's question counts, topics and exams, kept until the content changes."""
    return await request.app.state.cache.get(CACHE_KEY, load_library)


def exams_of(request: Request) -> ExamRecords:
    """The exams' records, handed over by the application at start-up (none without exams)."""
    return getattr(request.app.state, "exam_records", NO_EXAMS)


async def shown_grade(request: Request, question_id: int, choice: list[int]) -> Grade | None:
    """Grade the choices named in the address (the page a checked answer redirects to).

    Reading only: the answer was recorded by the POST that redirected here, so a reload
    shows the same result without counting it again. Refused (InOpenExam) while the
    learner's open exam holds the question.
    """
    if not choice:
        return None
    viewer = viewer_of(request)
    db: Database = request.app.state.db
    user_id = viewer.id if viewer is not None else None
    return await db.read(service.practice_grade, user_id, question_id, choice, exams_of(request))


NowDep = Annotated[datetime, Depends(get_now)]
LibraryDep = Annotated[Library, Depends(get_library)]
