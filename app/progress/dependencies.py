"""The clock progress is measured by, and the library learners are measured against."""

from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request

from app.progress.library import CACHE_KEY, Library, load_library


def now_of(request: Request) -> datetime:
    """Read the application's clock (tests set their own on `app.state.clock`)."""
    return request.app.state.clock()


async def get_now(request: Request) -> datetime:
    return now_of(request)


async def get_library(request: Request) -> Library:
    """The library's question counts, topics and exams, kept until the content changes."""
    return await request.app.state.cache.get(CACHE_KEY, load_library)


NowDep = Annotated[datetime, Depends(get_now)]
LibraryDep = Annotated[Library, Depends(get_library)]
