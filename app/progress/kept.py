"""Dashboards kept per worker: reloading one whose learner did nothing new costs one read."""

from collections import OrderedDict
from collections.abc import Hashable
from datetime import datetime

from app.progress.library import Library
from app.progress.read_models import Dashboard


class KeptDashboards:
    """The latest dashboard of recent learners, reused while nothing it counts has changed.

    A dashboard is kept with its mark (`queries.dashboard_mark`), the library it measured
    the learner against and the minute it was made in. An answer, a note read or a finished
    exam changes the mark; a content change hands out a new library; what time alone moves
    (recall, what is due, today's square in the calendar) is measured afresh each minute.
    """

    def __init__(self, max_entries: int = 1_000) -> None:
        self.max_entries = max_entries
        self._kept: OrderedDict[int, tuple[Library, datetime, Hashable, Dashboard]] = OrderedDict()

    def get(
        self, user_id: int, library: Library, minute: datetime
    ) -> tuple[Hashable, Dashboard] | None:
        """The learner's kept mark and dashboard, if made this minute against this library."""
        entry = self._kept.get(user_id)
        if entry is None or entry[0] is not library or entry[1] != minute:
            return None
        return entry[2], entry[3]

    def put(
        self, user_id: int, library: Library, minute: datetime, mark: Hashable, view: Dashboard
    ) -> None:
        self._kept[user_id] = (library, minute, mark, view)
        self._kept.move_to_end(user_id)
        while len(self._kept) > self.max_entries:
            self._kept.popitem(last=False)


def minute_of(now: datetime) -> datetime:
    """The minute a moment falls in: how long a kept dashboard's measures of time hold."""
    return now.replace(second=0, microsecond=0)
