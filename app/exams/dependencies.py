"""Exam lookups as dependencies: the clock, and "is this attempt mine?" checked once.

Loading an attempt finalises it first when its time and grace ran out, so every page and
API call sees it closed from that moment, whether or not a sweep came by.
"""

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Annotated

from fastapi import Depends, Path, Request

from app.accounts.dependencies import RequiredViewer
from app.db import Database, utcnow
from app.exams import queries, service
from app.exams.read_models import AttemptHeader
from app.web.forms import INT32_MAX

AttemptId = Annotated[int, Path(ge=1, le=INT32_MAX, description="Attempt id")]
Position = Annotated[int, Path(ge=1, le=1000, description="Question number in the attempt")]


def now_of(request: Request) -> datetime:
    """The server's time; tests put their own clock in `app.state.exam_clock`."""
    clock: Callable[[], datetime] = getattr(request.app.state, "exam_clock", utcnow)
    return clock()


def grace_of(request: Request) -> timedelta:
    return timedelta(seconds=request.app.state.settings.exam_grace_seconds)


def quota_of(request: Request) -> service.Quota:
    """The settings' quota of attempts a learner may start."""
    settings = request.app.state.settings
    return service.Quota(settings.exam_open_custom_limit, settings.exam_daily_limit)


async def get_attempt(
    request: Request, attempt_id: AttemptId, viewer: RequiredViewer
) -> AttemptHeader:
    """Load the viewer's attempt (404 for anyone else's), finalised if its time ran out."""
    db: Database = request.app.state.db
    attempt = await db.read(queries.header, attempt_id, viewer.id)
    now, grace = now_of(request), grace_of(request)
    if attempt.is_open and attempt.ran_out(now, grace):
        await db.write(service.finalise_due, attempt_id=attempt.id, now=now, grace=grace)
        attempt = await db.read(queries.header, attempt_id, viewer.id)
    return attempt


OwnedAttempt = Annotated[AttemptHeader, Depends(get_attempt)]
