"""A per-worker cache of read models, so hot pages skip the database and the thread pool.

Entries are fresh for `content_cache_seconds`. For one more such period the stale value is
still served while one background load replaces it, so no request waits on a reload and a
crowd of requests never starts a crowd of loads; an entry older than that is reloaded first. A write in this worker clears the cache at once;
other workers see it once their entries go stale.
"""

import asyncio
import logging
import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.content.errors import NotFound
from app.db import Database

T = TypeVar("T")
MAX_ENTRIES = 10_000
log = logging.getLogger("studyhall")


class ContentCache:
    def __init__(self, db: Database, ttl: float) -> None:
        self.db = db
        self.ttl = ttl
        self._entries: dict[Hashable, tuple[float, Any]] = {}
        self._loading: dict[Hashable, asyncio.Future[Any]] = {}
        self._generation = 0

    async def get(self, key: Hashable, loader: Callable[[Session], T]) -> T:
        """Return the value for key: cached, stale while it refreshes, or freshly loaded."""
        entry = self._entries.get(key)
        now = time.monotonic()
        # Stale values are served for one more time-to-live at most; older ones wait.
        if entry is not None and now < entry[0] + self.ttl:
            if entry[0] <= now and key not in self._loading:
                self._start(key, loader).add_done_callback(_log_failure)
            return _unwrap(entry[1])
        task = self._loading.get(key) or self._start(key, loader)
        return _unwrap(await asyncio.shield(task))

    def _start(self, key: Hashable, loader: Callable[[Session], Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(self._load(key, loader, self._generation))
        self._loading[key] = task
        return task

    async def _load(self, key: Hashable, loader: Callable[[Session], Any], generation: int) -> Any:
        try:
            value = await run_in_threadpool(self._read, loader)
            if self.ttl > 0 and generation == self._generation:
                if len(self._entries) >= MAX_ENTRIES:
                    self._entries.clear()
                self._entries[key] = (time.monotonic() + self.ttl, value)
            return value
        finally:
            self._loading.pop(key, None)

    def _read(self, loader: Callable[[Session], Any]) -> Any:
        with self.db.session_scope() as session:
            try:
                return loader(session)
            except NotFound as exc:  # cached too, so a flood of bad ids stays cheap
                return exc

    def clear(self) -> None:
        """Forget everything (after content changes in this worker)."""
        self._generation += 1
        self._entries.clear()


def _unwrap(value: Any) -> Any:
    if isinstance(value, NotFound):
        raise value
    return value


def _log_failure(task: asyncio.Future[Any]) -> None:
    """Log a failed background refresh; the stale value keeps being served meanwhile."""
    if not task.cancelled() and task.exception() is not None:
        log.warning("content cache refresh failed: %s", task.exception())
