"""How long a learner took to answer: the question page carries the server time it was shown.

The page holds the time in milliseconds as a hidden field; the answer sends it back and the
server subtracts it from its own clock. A stamp that is not a number or
lies in the future measures nothing, and a time is capped at `MAX_SECONDS`: a client cannot
claim a negative or a huge time. The stamp is not signed: a learner who edits it can only
make their own review schedule worse, never see or change anyone else's.
"""

from datetime import datetime

from app.web.forms import whole_number

MAX_SECONDS = 600.0  # ten minutes: past this the learner was not answering all along


def stamp(now: datetime) -> str:
    """Return the stamp for a page shown at now: milliseconds since the epoch."""
    return str(int(now.timestamp() * 1000))


def elapsed(shown: str | None, now: datetime) -> float | None:
    """Seconds between the stamp and now (at most `MAX_SECONDS`), or None for a bad stamp."""
    milliseconds = whole_number(shown, 0, 10**16)
    if milliseconds is None:
        return None
    seconds = now.timestamp() - milliseconds / 1000
    return None if seconds < 0 else min(seconds, MAX_SECONDS)
