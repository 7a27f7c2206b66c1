"""Time the item statistics over a million answers.

    python bench/item_stats.py [--answers 1000000] [--questions 400] [--runs 3] [--no-write]
                               [--database sqlite|postgresql] [--postgres-url URL]

Builds a temporary database (a SQLite file, or a PostgreSQL database of its own, dropped
afterwards; migrated, no seed) holding `--questions` questions of four
choices, learners, and `--answers` answers: half of them items of closed exam attempts of 20
questions, half practice answers, each right with a chance set by the learner's ability and
the question's difficulty; rows go in with bulk INSERTs. Then it computes the statistics of
every question as `/author/items` does (`app.items.service.statistics`: every statement and
the figures), `--runs` times, checks that every answer was counted, and writes the timings
into the `item-stats` section of bench/RESULTS.md (`item-stats-postgresql` for PostgreSQL) with the date and the command.
"""

import argparse
import math
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.accounts.models import User  # noqa: E402
from app.content.models import Choice, Question, QuestionSet  # noqa: E402
from app.db import Database  # noqa: E402
from app.exams.models import Attempt, AttemptItem  # noqa: E402
from app.items import service  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from app.progress.models import PracticeAnswer  # noqa: E402
from bench.exam_day import POSTGRES, fresh_database  # noqa: E402
from bench.results import replace_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS_FILE = ROOT / "bench" / "RESULTS.md"
GOAL_S = 1.0
_NAMES = {"sqlite": "SQLite file", "postgresql": "PostgreSQL database"}
PER_ATTEMPT = 20
LEARNERS = 2_000
CHUNK = 50_000
START = datetime(2026, 9, 1, tzinfo=UTC)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time the item statistics over many answers.")
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument("--questions", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md be")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--postgres-url", default=POSTGRES, help="a database to connect through")
    return parser.parse_args(argv)


def _chunks(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [rows[n : n + CHUNK] for n in range(0, len(rows), CHUNK)]


def add_content(db: Database, questions: int) -> list[tuple[int, list[int], float]]:
    """Add one set of questions; return (question id, choice ids key first, difficulty)."""
    with db.session_scope(write=True) as session:
        set_id = session.execute(
            insert(QuestionSet).values(slug="bench", title="Bench").returning(QuestionSet.id)
        ).scalar_one()
        rows = [
            {"set_id": set_id, "key": str(n), "position": n, "ordinal": n, "stem_md": f"Q {n}?"}
            for n in range(1, questions + 1)
        ]
        ids = session.scalars(insert(Question).returning(Question.id), rows).all()
        choices = [
            {"question_id": qid, "position": p, "text_md": f"C{p}", "is_correct": p == 1}
            for qid in ids
            for p in range(1, 5)
        ]
        session.execute(insert(Choice), choices)
        users = [{"username": f"learner{n}", "password_hash": "-"} for n in range(LEARNERS)]
        session.execute(insert(User), users)
    rng = random.Random(2)
    found: dict[int, list[int]] = {}
    with db.session_scope() as session:
        for qid, cid in session.execute(select(Choice.question_id, Choice.id)):
            found.setdefault(qid, []).append(cid)
    return [(qid, sorted(found[qid]), rng.uniform(-2.5, 2.5)) for qid in ids]


def _answer(
    rng: random.Random, ability: float, question: tuple[int, list[int], float]
) -> tuple[bool, int]:
    """Whether a learner of this ability gets the question right, and the choice they pick."""
    _, choice_ids, difficulty = question
    right = rng.random() < 1 / (1 + math.exp(difficulty - ability))
    return right, choice_ids[0] if right else rng.choice(choice_ids[1:])


def add_answers(db: Database, bank: list[tuple[int, list[int], float]], answers: int) -> None:
    """Add closed exam attempts holding half the answers, and practice answers the rest."""
    rng = random.Random(1)
    with db.session_scope() as session:
        user_ids = list(session.scalars(select(User.id)))
    ability = {u: rng.gauss(0, 1) for u in user_ids}
    attempts = answers // 2 // PER_ATTEMPT
    with db.session_scope(write=True) as session:
        for block in range(0, attempts, CHUNK // PER_ATTEMPT):
            count = min(CHUNK // PER_ATTEMPT, attempts - block)
            learners = [rng.choice(user_ids) for _ in range(count)]
            drawn = [rng.sample(bank, PER_ATTEMPT) for _ in range(count)]
            graded = [
                [_answer(rng, ability[u], q) for q in qs]
                for u, qs in zip(learners, drawn, strict=True)
            ]
            at = START + timedelta(minutes=block)
            rows = [
                {
                    "user_id": u,
                    "title": "Bench",
                    "mode": "exam",
                    "status": "submitted",
                    "pass_mark": 70,
                    "question_count": PER_ATTEMPT,
                    "started_at": at,
                    "submitted_at": at,
                    "score": float(sum(ok for ok, _ in marks)),
                }
                for u, marks in zip(learners, graded, strict=True)
            ]
            attempt_ids = session.scalars(insert(Attempt).returning(Attempt.id), rows).all()
            items = [
                {
                    "attempt_id": aid,
                    "position": n,
                    "question_id": q[0],
                    "snapshot": {},
                    "selected_ids": [cid],
                    "answered_at": at,
                    "points": float(ok),
                    "is_correct": ok,
                }
                for aid, qs, marks in zip(attempt_ids, drawn, graded, strict=True)
                for n, (q, (ok, cid)) in enumerate(zip(qs, marks, strict=True), start=1)
            ]
            session.execute(insert(AttemptItem), items)
        practice = answers - attempts * PER_ATTEMPT
        for block in range(0, practice, CHUNK):
            rows = []
            for n in range(block, min(practice, block + CHUNK)):
                user = rng.choice(user_ids)
                question = rng.choice(bank)
                ok, cid = _answer(rng, ability[user], question)
                seconds = round(rng.lognormvariate(3, 0.6), 1) if n % 10 else None
                rows.append(
                    {
                        "user_id": user,
                        "question_id": question[0],
                        "question_revision": 1,
                        "selected_ids": [cid],
                        "is_correct": ok,
                        "answered_at": START + timedelta(seconds=n),
                        "seconds": seconds,
                        "source": "practice",
                    }
                )
            session.execute(insert(PracticeAnswer), rows)


def measure(db: Database, runs: int) -> tuple[list[float], int, int]:
    """Compute every question's statistics `runs` times; return the times and the counts."""
    times, counted = [], (0, 0)
    for _ in range(runs):
        with db.session_scope() as session:
            began = time.perf_counter()
            items = service.statistics(session)
            times.append(time.perf_counter() - began)
        counted = (
            sum(i.exam.responses for i in items),
            sum(i.practice.responses for i in items),
        )
    return times, *counted


def report(args: argparse.Namespace, times: list[float], exam: int, practice: int) -> str:
    median = statistics.median(times)
    verdict = "PASS" if median < GOAL_S else "FAIL"
    command = shlex.join(["python", "bench/item_stats.py", *sys.argv[1:]])
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
    runs = ", ".join(f"{t:.3f}" for t in times)
    return (
        f"## Item statistics{'' if args.database == 'sqlite' else ' on PostgreSQL'}\n\n"
        f"Run {when} UTC with `{command}` (code {_commit()}): {exam + practice:,} answers ({exam:,} items of "
        f"closed exam attempts of {PER_ATTEMPT}, {practice:,} practice answers) on "
        f"{args.questions:,} questions of four choices, in a temporary {_NAMES[args.database]}. A run is "
        "`app.items.service.statistics` for every question, as `/author/items` computes it "
        "before sorting and paging: every statement and the figures.\n\n"
        f"| answers | questions | runs (s) | median (s) | goal < {GOAL_S:.0f} s |\n"
        "| ---: | ---: | --- | ---: | --- |\n"
        f"| {exam + practice:,} | {args.questions:,} | {runs} | {median:.3f} | {verdict} |\n"
    )


def _commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with (
        tempfile.TemporaryDirectory(prefix="studyhall-item-bench-") as tmp,
        fresh_database(args, Path(tmp)) as url,
    ):
        upgrade(url)
        db = Database(url)
        try:
            began = time.monotonic()
            bank = add_content(db, args.questions)
            add_answers(db, bank, args.answers)
            print(f"built in {time.monotonic() - began:.1f} s", flush=True)
            times, exam, practice = measure(db, args.runs)
        finally:
            db.dispose()
    if exam + practice != args.answers:
        sys.exit(f"counted {exam + practice:,} answers of {args.answers:,}")
    body = report(args, times, exam, practice)
    print(body)
    if not args.no_write:
        section = "item-stats" if args.database == "sqlite" else "item-stats-postgresql"
        replace_section(RESULTS_FILE, section, body)
        print(f"Written to {RESULTS_FILE.relative_to(ROOT)} (section {section})")


if __name__ == "__main__":
    main()
