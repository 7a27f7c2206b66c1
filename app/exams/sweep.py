"""The periodic sweep each worker runs: finalise attempts whose time and grace ran out, and
close untimed ones left without a save for `STUDYHALL_EXAM_UNTIMED_EXPIRY_DAYS` (so they stop
counting against the learner's quota of open custom exams).

Any number of workers (and `studyhall sweep` from cron) may sweep at once: finalising is a
conditional UPDATE, so each attempt closes once. A sweep first looks with a read-only query,
so an idle sweep never queues for SQLite's write lock.
"""

import asyncio
import logging
import random
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import func, select
from starlette.concurrency import run_in_threadpool

from app.config import get_settings
from app.db import Database, utcnow
from app.exams import service
from app.exams.models import Attempt

log = logging.getLogger("studyhall")


def untimed_idle() -> timedelta:
    """How long an untimed attempt may go without a save before the sweep closes it."""
    return timedelta(days=get_settings().exam_untimed_expiry_days)


def sweep_once(
    db: Database, grace: timedelta, now: datetime | None = None, idle: timedelta | None = None
) -> int:
    """Finalise every attempt past its deadline and grace, and every untimed one left `idle`
    (by default the setting); return how many this call closed."""
    now, idle = now or utcnow(), idle or untimed_idle()
    with db.session_scope() as session:
        due = session.scalar(
            select(func.count(Attempt.id)).where(service.overdue(now, grace, idle))
        )
    if not due:
        return 0
    with db.session_scope(write=True) as session:
        return service.sweep(session, now, grace, idle)


class Sweeper:
    """Sweep every `every_s` seconds (with jitter, so workers spread out) until stopped."""

    def __init__(
        self,
        db: Database,
        every_s: float,
        grace: timedelta,
        clock: Callable[[], datetime] = utcnow,
        idle: timedelta | None = None,
    ) -> None:
        self.db, self.every_s, self.grace, self.clock = db, every_s, grace, clock
        self.idle = idle
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.every_s > 0:
            self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every_s * random.uniform(0.5, 1.0))
            try:
                closed = await run_in_threadpool(
                    sweep_once, self.db, self.grace, self.clock(), self.idle
                )
            except Exception as exc:  # the next round tries again
                log.warning("exam sweep failed: %s", exc)
            else:
                if closed:
                    log.info("exam sweep closed %d attempt(s): time ran out, or left", closed)
