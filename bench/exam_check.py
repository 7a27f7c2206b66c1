"""The exam-day check: what the learners were told, against what the database holds.

bench/exam_load.py writes a ledger of the saves the server acknowledged and the attempts it
submitted; bench/exam_day.py reads it, the database and Locust's statistics with these.
Nothing here loads Locust.
"""

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from app.accounts.models import User
from app.db import Database
from app.exams.models import Attempt, AttemptItem


@dataclass(frozen=True)
class Ack:
    """A save the server acknowledged with a 2xx."""

    attempt: int
    position: int
    choice_ids: tuple[int, ...]
    flagged: bool


@dataclass(frozen=True)
class StoredAttempt:
    """An attempt as the database holds it after the run."""

    id: int
    learner: str
    status: str
    submitted: bool  # has a finish time
    score: float | None
    points: float  # the sum of its questions' points
    ungraded: int  # questions without points


Stored = Mapping[tuple[int, int], tuple[tuple[int, ...], bool]]


def lost_saves(acks: Iterable[Ack], stored: Stored) -> list[Ack]:
    """Return the acknowledged saves the database does not hold.

    A learner's saves to one question follow each other, and a later one replaces an
    earlier one: the last one acknowledged is what must be stored.
    """
    last = {(ack.attempt, ack.position): ack for ack in acks}
    return [ack for key, ack in last.items() if stored.get(key) != (ack.choice_ids, ack.flagged)]


def finalisation_problems(
    submitted: Mapping[str, int], attempts: Iterable[StoredAttempt]
) -> list[str]:
    """Say what is wrong with how the learners' attempts were closed (nothing: empty).

    Each learner who was told the exam was submitted has exactly that one attempt, closed
    as submitted, with every question graded and the score their sum. (A learner the run
    ended for before submitting may have an open attempt: that is no fault.)
    """
    problems = []
    by_learner: dict[str, list[StoredAttempt]] = {}
    for attempt in attempts:
        by_learner.setdefault(attempt.learner, []).append(attempt)
    for learner, attempt_id in sorted(submitted.items()):
        found = by_learner.get(learner, [])
        if [a.id for a in found] != [attempt_id]:
            problems.append(f"{learner} has attempts {[a.id for a in found]}, not [{attempt_id}]")
            continue
        attempt = found[0]
        if attempt.status != "submitted" or not attempt.submitted:
            problems.append(f"attempt {attempt_id} is {attempt.status}, not submitted")
        elif (
            attempt.ungraded or attempt.score is None or abs(attempt.score - attempt.points) > 1e-9
        ):
            problems.append(f"attempt {attempt_id} is not graded once: score {attempt.score}")
    return problems


@dataclass(frozen=True)
class Ledger:
    """What the learners were told: saves acknowledged, exams submitted, what went wrong."""

    acks: list[Ack]
    submitted: dict[str, int]  # learner: attempt id
    troubles: list[str]  # failed requests and learners who gave up, in order


def read_ledger(path: Path) -> Ledger:
    """Read the ledger bench/exam_load.py writes."""
    ledger = json.loads(path.read_text())
    acks = [
        Ack(s["attempt"], s["position"], tuple(s["choice_ids"]), s["flagged"])
        for s in ledger["saves"]
    ]
    submitted = {s["learner"]: s["attempt"] for s in ledger["submitted"]}
    gave_up = [f"{g['learner']} gave up: {g['reason']}" for g in ledger["gave_up"]]
    return Ledger(acks, submitted, [*ledger["failures"], *gave_up])


def stored_answers(db: Database, attempt_ids: set[int]) -> dict[tuple[int, int], Any]:
    """Read what the database holds for each question of the attempts."""
    with db.session_scope() as session:
        rows = session.execute(
            select(
                AttemptItem.attempt_id,
                AttemptItem.position,
                AttemptItem.selected_ids,
                AttemptItem.flagged,
            ).where(AttemptItem.attempt_id.in_(attempt_ids))
        )
        return {(a, p): (tuple(selected), flagged) for a, p, selected, flagged in rows}


def stored_attempts(db: Database, prefix: str) -> list[StoredAttempt]:
    """Read every attempt of the learners, with the sum of its questions' points."""
    points = (
        select(
            AttemptItem.attempt_id,
            func.coalesce(func.sum(AttemptItem.points), 0.0).label("points"),
            func.count().filter(AttemptItem.points.is_(None)).label("ungraded"),
        )
        .group_by(AttemptItem.attempt_id)
        .subquery()
    )
    with db.session_scope() as session:
        rows = session.execute(
            select(Attempt, User.username, points.c.points, points.c.ungraded)
            .join(User, Attempt.user_id == User.id)
            .join(points, points.c.attempt_id == Attempt.id)
            .where(User.username.startswith(f"{prefix}-"))
        ).all()
    return [
        StoredAttempt(
            a.id, name, a.status, a.submitted_at is not None, a.score, float(p), int(ungraded)
        )
        for a, name, p, ungraded in rows
    ]


@dataclass(frozen=True)
class Stat:
    name: str
    requests: int
    failures: int
    p50: float
    p95: float
    p99: float
    max: float


def percentile(times: Mapping[float, int], share: float) -> float:
    """The response time under which `share` of the requests finished (Locust's buckets)."""
    total = sum(times.values())
    seen = 0
    for time_ms in sorted(times):
        seen += times[time_ms]
        if seen >= share * total:
            return time_ms
    return 0.0


def stat(name: str, requests: int, failures: int, times: Mapping[float, int]) -> Stat:
    top = max(times, default=0.0)
    return Stat(name, requests, failures, *(percentile(times, q) for q in (0.5, 0.95, 0.99)), top)


def read_stats(path: Path) -> list[Stat]:
    """Read Locust's final statistics per request name, and all of them together last."""
    entries = json.loads(path.read_text())
    stats, every = [], Counter[float]()
    for entry in sorted(entries, key=lambda e: e["name"]):
        times = Counter({float(ms): n for ms, n in entry["response_times"].items()})
        every.update(times)
        stats.append(stat(entry["name"], entry["num_requests"], entry["num_failures"], times))
    requests = sum(s.requests for s in stats)
    return [*stats, stat("all", requests, sum(s.failures for s in stats), every)]
