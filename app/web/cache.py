"""A per-worker cache of read models, so hot pages skip the database and the thread pool.

Entries are fresh for `content_cache_seconds`. For one more such period the stale value is
still served while one background load replaces it, so no request waits on a reload and a
crowd of requests never starts a crowd of loads; an entry older than that is reloaded first.

Every content write bumps a version in the database. The cache reads it at most once every
`check_seconds` (on the request path, one short query) and drops everything when it changed,
so an import by another worker or by the command line shows here within about a second.
The cache holds at most `max_entries` entries and evicts the least recently used one.
"""

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from app.db import Database
from app.errors import NotFound
from app.web.metrics import CACHE_REQUESTS

T = TypeVar("T")
MAX_ENTRIES = 4096
log = logging.getLogger("studyhall")


class ContentCache:
    def __init__(
        self,
        db: Database,
        ttl: float,
        version_of: Callable[[Session], int] | None = None,
        *,
        check_seconds: float = 1.0,
        max_entries: int = MAX_ENTRIES,
        name: str = "content",
    ) -> None:
        """`name` labels the cache's hits and misses in the metrics."""
        self.db = db
        self.ttl = ttl
        self.max_entries = max_entries
        self._version_of = version_of
        self._check_seconds = check_seconds
        self._next_check = 0.0
        self._version: int | None = None
        self._content_writes = db.content_writes
        self._entries: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()
        self._loading: dict[Hashable, asyncio.Future[Any]] = {}
        self._generation = 0
        self._hits = CACHE_REQUESTS.labels(cache=name, result="hit")
        self._misses = CACHE_REQUESTS.labels(cache=name, result="miss")

    async def get(self, key: Hashable, loader: Callable[[Session], T]) -> T:
        """Return the value for key: cached, stale while it refreshes, or freshly loaded."""
        if self.ttl > 0:
            await self._follow_version()
        entry = self._entries.get(key)
        now = time.monotonic()
        # Stale values are served for one more time-to-live at most; older ones wait.
        if entry is not None and now < entry[0] + self.ttl:
            self._hits.inc()
            self._entries.move_to_end(key)
            if entry[0] <= now and key not in self._loading:
                self._start(key, loader).add_done_callback(_log_failure)
            return _unwrap(entry[1])
        self._misses.inc()
        task = self._loading.get(key) or self._start(key, loader)
        return _unwrap(await asyncio.shield(task))

    async def _follow_version(self) -> None:
        """Drop everything when the content changed: at once after a write of this process,
        within `check_seconds` after one elsewhere (the version row is read that often)."""
        now = time.monotonic()
        if self.db.content_writes != self._content_writes:
            self._content_writes = self.db.content_writes
            self.clear()
            self._version, self._next_check = None, now  # read it again now
        if self._version_of is None or now < self._next_check:
            return
        self._next_check = now + self._check_seconds  # the other requests go on meanwhile
        try:
            version = await self.db.read(self._version_of)
        except Exception as exc:  # a failed check is retried at the next one
            log.warning("content version check failed: %s", exc)
            return
        if version != self._version:  # the first read too: a load may predate it
            self.clear()
        self._version = version

    def _start(self, key: Hashable, loader: Callable[[Session], Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(self._load(key, loader, self._generation))
        self._loading[key] = task
        return task

    async def _load(self, key: Hashable, loader: Callable[[Session], Any], generation: int) -> Any:
        task = asyncio.current_task()
        try:
            try:
                value = await self.db.read(loader)
            except NotFound as exc:  # kept too, so a flood of bad ids stays cheap
                value = exc
            return self._keep(key, value, generation)
        finally:
            if self._loading.get(key) is task:
                del self._loading[key]

    def _keep(self, key: Hashable, value: Any, generation: int) -> Any:
        """Keep a loaded value (unless the cache was cleared since the load began)."""
        if self.ttl > 0 and generation == self._generation:
            self._entries[key] = (time.monotonic() + self.ttl, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return value

    @property
    def version(self) -> int | None:
        """The content version the entries were loaded at (None: not known, or no caching)."""
        return self._version if self.ttl > 0 else None

    def clear(self) -> None:
        """Forget everything, including loads that started before (they may hold old data)."""
        self._generation += 1
        self._entries.clear()
        self._loading.clear()

    def __len__(self) -> int:
        return len(self._entries)


def _unwrap(value: Any) -> Any:
    if isinstance(value, NotFound):
        raise value
    return value


def _log_failure(task: asyncio.Future[Any]) -> None:
    """Log a failed background refresh; the stale value keeps being served meanwhile."""
    if not task.cancelled() and task.exception() is not None:
        log.warning("content cache refresh failed: %s", task.exception())
