"""Exam lookups as dependencies: the clock, and "is this attempt mine?" checked once.

Loading an attempt finalises it first when its time and grace ran out, so every page and
API call sees it closed from that moment, whether or not a sweep came by.
"""

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Annotated

from fastapi import Depends, Path, Request

from app.accounts.dependencies import RequiredViewer
from app.db import utcnow
from app.exams import queries, service
from app.exams.read_models import AttemptHeader
from app.web.dependencies import unit_of_work

AttemptId = Annotated[int, Path(ge=1, le=2_147_483_647, description="Attempt id")]
Position = Annotated[int, Path(ge=1, le=1000, description="Question number in the attempt")]


def now_of(request: Request) -> datetime:
    """The server's time; tests put their own clock in `app.state.exam_clock`."""
    clock: Callable[[], datetime] = getattr(request.app.state, "exam_clock", utcnow)
    return clock()


def grace_of(request: Request) -> timedelta:
    return timedelta(seconds=request.app.state.settings.exam_grace_seconds)


async def get_attempt(
    request: Request, attempt_id: AttemptId, viewer: RequiredViewer
) -> AttemptHeader:
    """Load the viewer's attempt (404 for anyone else's), finalised if its time ran out."""
    header = partial(queries.header, attempt_id=attempt_id, user_id=viewer.id)
    attempt = await unit_of_work(request, write=False, brief=True).run(header)
    now, grace = now_of(request), grace_of(request)
    if attempt.is_open and attempt.deadline_at is not None and now > attempt.deadline_at + grace:
        await unit_of_work(request).run(
            partial(service.finalise_due, attempt_id=attempt.id, now=now, grace=grace)
        )
        attempt = await unit_of_work(request, write=False, brief=True).run(header)
    return attempt


OwnedAttempt = Annotated[AttemptHeader, Depends(get_attempt)]


async def submit_owned(request: Request, attempt: AttemptHeader) -> None:
    """Submit the viewer's attempt (again is no error)."""
    await unit_of_work(request).run(
        partial(
            service.submit,
            attempt_id=attempt.id,
            user_id=attempt.user_id,
            now=now_of(request),
            grace=grace_of(request),
        )
    )
