"""The periodic sweep each worker runs: finalise attempts whose time and grace ran out.

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

from app.db import Database, utcnow
from app.exams import service
from app.exams.models import Attempt

log = logging.getLogger("studyhall")


def sweep_once(db: Database, grace: timedelta, now: datetime | None = None) -> int:
    """Finalise every attempt past its deadline and grace; return how many this call closed."""
    now = now or utcnow()
    with db.session_scope() as session:
        due = session.scalar(
            select(func.count(Attempt.id)).where(
                Attempt.status == "open", Attempt.deadline_at < now - grace
            )
        )
    if not due:
        return 0
    with db.session_scope(write=True) as session:
        return service.sweep(session, now, grace)


class Sweeper:
    """Sweep every `every_s` seconds (with jitter, so workers spread out) until stopped."""

    def __init__(
        self, db: Database, every_s: float, grace: timedelta, clock: Callable[[], datetime] = utcnow
    ) -> None:
        self.db, self.every_s, self.grace, self.clock = db, every_s, grace, clock
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
                closed = await run_in_threadpool(sweep_once, self.db, self.grace, self.clock())
            except Exception as exc:  # the next round tries again
                log.warning("exam sweep failed: %s", exc)
            else:
                if closed:
                    log.info("exam sweep finalised %d attempt(s) whose time ran out", closed)
