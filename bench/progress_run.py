"""Load the progress dashboard and the logged-in home page over a large generated history.

    python bench/progress_run.py [--learners 1000] [--answers 1000000] [--duration 10]

Builds a SQLite database in a temporary folder: the seed content plus a generated library of
2,000 questions, then `--learners` learners (the bench learner among them) sharing
`--answers` answers spread over 90 days, a review card for each question a learner answered,
20 finished exams and a few notes read for the bench learner. Then it serves Studyhall as
`studyhall serve` does next to the separate bare app (see bench/run.py) and loads, with wrk,
`/progress` and `/` as the bench learner, bare first and last at each connection count.
The figures go into their own section of bench/RESULTS.md with the date and the command.
"""

import argparse
import random
import shlex
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select, text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.accounts.models import User  # noqa: E402
from app.content.models import Note, Question  # noqa: E402
from app.db import Database  # noqa: E402
from app.exams.models import Attempt  # noqa: E402
from app.importers.service import import_document  # noqa: E402
from app.progress.models import NoteRead, PracticeAnswer, ReviewCard  # noqa: E402
from bench import library  # noqa: E402
from bench.results import replace_section  # noqa: E402
from bench.run import (  # noqa: E402
    BARE_PATH,
    BENCH_USER,
    RESULTS_FILE,
    Target,
    log_in,
    prepare_database,
    run_wrk,
    running_servers,
    warm,
)

NOW = datetime.now(UTC).replace(microsecond=0)
CONNECTIONS = (1, 8)
GOAL_P99_MS = 50.0
FRESH = "/api/v1/progress (made afresh)"
CHUNK = 20_000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark progress pages over a big history.")
    parser.add_argument("--learners", type=int, default=1000)
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument("--questions", type=int, default=2000, help="generated library size")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    return parser.parse_args(argv)


def add_library(url: str, questions: int) -> None:
    """Import a generated library so learners have many questions and topics to spread over."""
    import json

    document = json.dumps(library.library(1, questions)).encode()
    db = Database(url)
    try:
        with db.session_scope(write=True) as session:
            import_document(session, document, "library.json", 0.12)
    finally:
        db.dispose()


def _insert(session: Any, model: Any, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), CHUNK):
        session.execute(insert(model), rows[start : start + CHUNK])


def _card(rng: random.Random, user_id: int, qid: int, last: datetime, right: bool) -> dict:
    stability = rng.uniform(0.5, 60.0)
    return {
        "user_id": user_id,
        "question_id": qid,
        "state": 2,
        "step": None,
        "stability": stability,
        "difficulty": rng.uniform(2.0, 8.0),
        "due_at": last + timedelta(days=stability),
        "last_review_at": last,
        "reviews": 1,
        "lapses": 0,
        "last_correct": right,
    }


def generate_history(url: str, learners: int, answers: int, rng: random.Random) -> None:
    """Write the learners, their answers and cards, and the bench learner's exams and reads."""
    db = Database(url)
    try:
        with db.session_scope(write=True) as session:
            question_ids = list(session.scalars(select(Question.id)))
            bench_id = session.scalars(select(User.id).where(User.username == BENCH_USER)).one()
            _insert(
                session,
                User,
                [
                    {"username": f"learner-{n}", "password_hash": "-", "role": "learner"}
                    for n in range(learners - 1)
                ],
            )
            user_ids = [bench_id, *session.scalars(select(User.id).where(User.id != bench_id))]
        per_learner = answers // len(user_ids)
        for user_id in user_ids:
            given, latest = [], {}
            for _ in range(per_learner):
                qid = rng.choice(question_ids)
                at = NOW - timedelta(seconds=rng.randrange(90 * 86400))
                right = rng.random() < 0.7
                given.append(
                    {
                        "user_id": user_id,
                        "question_id": qid,
                        "question_revision": 1,
                        "selected_ids": [],
                        "is_correct": right,
                        "answered_at": at,
                        "seconds": rng.uniform(5, 90),
                        "source": "practice",
                    }
                )
                if qid not in latest or latest[qid][0] < at:
                    latest[qid] = (at, right)
            cards = [_card(rng, user_id, q, at, ok) for q, (at, ok) in latest.items()]
            with db.session_scope(write=True) as session:
                _insert(session, PracticeAnswer, given)
                _insert(session, ReviewCard, cards)
        with db.session_scope(write=True) as session:
            _bench_learner_extras(session, bench_id, rng)
            session.execute(text("ANALYZE"))
    finally:
        db.dispose()


def _bench_learner_extras(session: Any, user_id: int, rng: random.Random) -> None:
    for n in range(20):
        started = NOW - timedelta(days=40 - 2 * n)
        percent = round(min(100.0, 40 + 2.5 * n + rng.uniform(-8, 8)), 1)
        session.add(
            Attempt(
                user_id=user_id,
                title="TensorRT practice exam",
                mode="exam",
                status="submitted",
                pass_mark=70,
                question_count=7,
                started_at=started,
                deadline_at=started + timedelta(minutes=10),
                submitted_at=started + timedelta(minutes=8),
                score=percent * 7 / 100,
                percent=percent,
                passed=percent >= 70,
            )
        )
    notes = list(session.scalars(select(Note.id).limit(30)))
    _insert(session, NoteRead, [{"user_id": user_id, "note_id": n, "read_at": NOW} for n in notes])


def counts(url: str) -> dict[str, int]:
    db = Database(url)
    try:
        with db.session_scope() as session:
            return {
                name: session.scalar(select(func.count()).select_from(model)) or 0
                for name, model in (
                    ("learners", User),
                    ("answers", PracticeAnswer),
                    ("cards", ReviewCard),
                    ("questions", Question),
                )
            }
    finally:
        db.dispose()


def report(
    rows: list[tuple[str, int, float, float, float]], sizes: dict[str, int], args: Any
) -> str:
    command = "make bench-progress" if sys.argv[1:] == [] else shlex.join(["python", *sys.argv])
    lines = [
        "## Progress pages over a large history",
        "",
        f"Run {NOW:%Y-%m-%d %H:%M} UTC with `{command}`: {sizes['learners']:,} learners,",
        f"{sizes['answers']:,} recorded answers, {sizes['cards']:,} review cards,",
        f"{sizes['questions']:,} questions (SQLite, one worker as `studyhall serve` runs).",
        "The bench learner has about a thousand answers, 20 finished exams and 30 notes read.",
        f"Each row is `wrk -t2 -cN -d{args.duration}s`; the ratio is to the separate bare app",
        "measured in the same run (the mean of its runs before and after).",
        "The page reuses a dashboard its learner did nothing new to since it was made, that",
        "minute, after one indexed read; so a repeated load costs that read. The JSON API",
        f"gathers the whole dashboard on every request: its row, `{FRESH}`, is what a",
        "dashboard made afresh costs (no goal of its own).",
        "",
        "| page | connections | req/s | ratio to bare | p50 | p99 | goal p99 < 50 ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    bare = {c: rps for name, c, rps, *_ in rows if name == "bare"}
    for name, c, rps, p50, p99 in rows:
        if name == "bare":
            continue
        verdict = "—" if name == FRESH else "PASS" if p99 < GOAL_P99_MS else "MISS"
        lines.append(
            f"| {name} | {c} | {rps:,.0f} | {rps / bare[c]:.2f} | {p50:.1f} ms | {p99:.1f} ms"
            f" | {verdict} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    rng = random.Random(1)
    with tempfile.TemporaryDirectory(prefix="studyhall-progress-bench-") as tmp:
        folder = Path(tmp)
        began = time.monotonic()
        url = prepare_database(folder)
        add_library(url, args.questions)
        generate_history(url, args.learners, args.answers, rng)
        sizes = counts(url)
        print(f"generated {sizes} in {time.monotonic() - began:.0f} s", flush=True)
        with running_servers(url, folder) as bases:
            cookie = log_in(bases[0])
            targets = [
                Target("bare", BARE_PATH, bare=True),
                Target("/progress", "/progress", cookie=cookie),
                Target("/ (logged in)", "/", cookie=cookie),
                Target(FRESH, "/api/v1/progress", cookie=cookie),
                Target("bare", BARE_PATH, bare=True),
            ]
            warm(bases, targets)
            rows: list[tuple[str, int, float, float, float]] = []
            for connections in CONNECTIONS:
                bare_runs = []
                for target in targets:
                    result = run_wrk(bases, target, connections, args.duration, folder)
                    if result.non_2xx or result.socket_errors:
                        sys.exit(f"{target.name}: {result.non_2xx} non-2xx, errors; not counted")
                    print(
                        f"  c={connections} {target.name:<15} {result.rps:8,.0f} req/s"
                        f"  p50 {result.p50_ms:6.2f} ms  p99 {result.p99_ms:7.2f} ms",
                        flush=True,
                    )
                    if target.bare:
                        bare_runs.append(result.rps)
                    else:
                        rows.append(
                            (target.name, connections, result.rps, result.p50_ms, result.p99_ms)
                        )
                rows.append(("bare", connections, sum(bare_runs) / len(bare_runs), 0.0, 0.0))
    body = report(rows, sizes, args)
    print(body)
    if not args.no_write:
        replace_section(RESULTS_FILE, "progress", body)


if __name__ == "__main__":
    main()
