"""The clock progress is measured by, the library learners are measured against, and the
exams' records of a learner."""

from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request

from app.progress.library import CACHE_KEY, Library, load_library
from app.progress.queries import NO_EXAMS
from app.progress.read_models import ExamRecords


def now_of(request: Request) -> datetime:
    """Read the application's clock (tests set their own on `app.state.clock`)."""
    return request.app.state.clock()


async def get_now(request: Request) -> datetime:
    return now_of(request)


async def get_library(request: Request) -> Library:
    """The library's question counts, topics and exams, kept until the content changes."""
    return await request.app.state.cache.get(CACHE_KEY, load_library)


def exam_records(request: Request) -> ExamRecords:
    """The exams' records of a learner, as the application wired them (none without exams)."""
    return getattr(request.app.state, "exam_records", NO_EXAMS)


NowDep = Annotated[datetime, Depends(get_now)]
LibraryDep = Annotated[Library, Depends(get_library)]
