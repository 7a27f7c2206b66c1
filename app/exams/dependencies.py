"""Exam lookups as dependencies: the clock, and "is this attempt mine?" checked once.

Loading an attempt finalises it first when its time and grace ran out, so every page and
API call sees it closed from that moment, whether or not a sweep came by.
"""

import time
from collections import OrderedDict
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


class RecentAttempts:
    """Attempts loaded a moment ago, per worker: a sitting's pages and saves come seconds apart.

    What the pages take from an attempt changes only when it closes. A submit in this worker
    forgets it at once; a close elsewhere is seen within `seconds`, and meanwhile a save is
    still refused by its own conditional UPDATE, and a deadline still finalises on access.
    """

    def __init__(self, seconds: float = 10.0, max_entries: int = 10_000) -> None:
        self.seconds = seconds
        self.max_entries = max_entries
        self._kept: OrderedDict[tuple[int, int], tuple[float, AttemptHeader]] = OrderedDict()

    def get(self, attempt_id: int, user_id: int) -> AttemptHeader | None:
        entry = self._kept.get((attempt_id, user_id))
        if entry is None or entry[0] <= time.monotonic():
            return None
        return entry[1]

    def put(self, attempt: AttemptHeader) -> None:
        key = (attempt.id, attempt.user_id)
        self._kept[key] = (time.monotonic() + self.seconds, attempt)
        self._kept.move_to_end(key)
        while len(self._kept) > self.max_entries:
            self._kept.popitem(last=False)

    def forget(self, attempt_id: int) -> None:
        """Drop an attempt at once (it was submitted or finalised in this worker)."""
        for key in [key for key in self._kept if key[0] == attempt_id]:
            del self._kept[key]


def recent_attempts(request: Request) -> RecentAttempts:
    return request.app.state.recent_attempts


async def get_attempt(
    request: Request, attempt_id: AttemptId, viewer: RequiredViewer
) -> AttemptHeader:
    """Load the viewer's attempt (404 for anyone else's), finalised if its time ran out."""
    recent = recent_attempts(request)
    attempt = recent.get(attempt_id, viewer.id)
    header = partial(queries.header, attempt_id=attempt_id, user_id=viewer.id)
    if attempt is None:
        attempt = await unit_of_work(request, write=False, brief=True).run(header)
        recent.put(attempt)
    now, grace = now_of(request), grace_of(request)
    if attempt.is_open and attempt.deadline_at is not None and now > attempt.deadline_at + grace:
        await unit_of_work(request).run(
            partial(service.finalise_due, attempt_id=attempt.id, now=now, grace=grace)
        )
        attempt = await unit_of_work(request, write=False, brief=True).run(header)
        recent.put(attempt)
    return attempt


OwnedAttempt = Annotated[AttemptHeader, Depends(get_attempt)]


async def submit_owned(request: Request, attempt: AttemptHeader) -> None:
    """Submit the viewer's attempt (again is no error); this worker forgets what it kept of it."""
    await unit_of_work(request).run(
        partial(
            service.submit,
            attempt_id=attempt.id,
            user_id=attempt.user_id,
            now=now_of(request),
            grace=grace_of(request),
        )
    )
    recent_attempts(request).forget(attempt.id)
