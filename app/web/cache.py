"""A per-worker cache of read models, so hot pages skip the database and the thread pool.

Entries live for `content_cache_seconds`; a write in this worker clears the cache at once,
and other workers see it once their entries expire.
"""

import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.content.errors import NotFound
from app.db import Database

T = TypeVar("T")
MAX_ENTRIES = 10_000


class ContentCache:
    def __init__(self, db: Database, ttl: float) -> None:
        self.db = db
        self.ttl = ttl
        self._entries: dict[Hashable, tuple[float, Any]] = {}

    async def get(self, key: Hashable, loader: Callable[[Session], T]) -> T:
        """Return the cached value for key, loading it in a worker thread when stale."""
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry is None or entry[0] <= now:
            entry = (now + self.ttl, await run_in_threadpool(self._load, loader))
            if self.ttl > 0:
                if len(self._entries) >= MAX_ENTRIES:
                    self._entries.clear()
                self._entries[key] = entry
        if isinstance(entry[1], NotFound):
            raise entry[1]
        return entry[1]

    def _load(self, loader: Callable[[Session], Any]) -> Any:
        with self.db.session_scope() as session:
            try:
                return loader(session)
            except NotFound as exc:  # cached too, so a flood of bad ids stays cheap
                return exc

    def clear(self) -> None:
        """Forget everything (after content changes in this worker)."""
        self._entries.clear()
