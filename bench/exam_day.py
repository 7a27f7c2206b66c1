"""Exam day: many learners sit the TensorRT exam at once; then the database is checked.

A fresh database gets the seed content and the learners (made in bulk, one password hash
for all; each still logs in through the form). Studyhall is served as `make run` serves it,
with `studyhall serve` (SQLite, one worker; or PostgreSQL with `--workers`), and Locust
plays the learners headless (bench/exam_load.py). Afterwards (bench/exam_check.py) every
save a learner was told succeeded must be in the database, and every attempt must be
closed once: one attempt per learner, submitted, graded, its score the sum of its
questions' points. The figures go into their own section of bench/RESULTS.md.
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

# The checkout this file is in, first on the path: with a second checkout sharing the first's
# environment, its editable install would otherwise load the first checkout's `app`.
CHECKOUT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(CHECKOUT))
from app.db import Database  # noqa: E402
from bench.exam_check import (  # noqa: E402
    Ack,
    Stat,
    finalisation_problems,
    lost_saves,
    read_ledger,
    read_stats,
    stored_answers,
    stored_attempts,
)
from bench.learners import PASSWORD, learner_names  # noqa: E402
from bench.results import replace_section  # noqa: E402
from bench.run import (  # noqa: E402
    RESULTS_FILE,
    ROOT,
    busy_warning,
    code_revision,
    cpu_model,
    free_port,
    seed_database,
)
from bench.run import wait_healthy as wait_until_healthy  # noqa: E402

EXAM = "tensorrt-practice-exam"
PREFIX = "examday"
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
GOALS = (("page", 200.0), ("save", 100.0))  # request name, highest p95 in ms


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(description="Exam day: many learners sit one exam at once.")
    parser.add_argument("--learners", type=int, default=500, help="simulated learners")
    parser.add_argument("--spawn-rate", type=float, default=50, help="learners arriving a second")
    parser.add_argument("--think", type=float, default=2.0, help="seconds before each answer")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--postgres-url", default=POSTGRES, help="a database to connect through")
    parser.add_argument("--workers", type=int, default=1, help="server worker processes")
    parser.add_argument("--max-seconds", type=int, default=0, help="stop by then (0: estimate)")
    parser.add_argument("--sittings", type=int, default=3, help="times exam day is played")
    parser.add_argument("--no-write", action="store_true", help="leave bench/RESULTS.md alone")
    parser.add_argument(
        "--keep", type=Path, help="keep the database, logs, Locust's CSV and the ledger here"
    )
    args = parser.parse_args(argv)
    if (
        min(args.learners, args.workers, args.sittings) < 1
        or args.spawn_rate <= 0
        or args.think < 0
    ):
        parser.error(
            "--learners, --spawn-rate, --workers and --sittings must be positive,"
            " --think not negative"
        )
    if not args.max_seconds:
        # The ramp, the questions' thinking, and room for a slow server.
        args.max_seconds = int(args.learners / args.spawn_rate + 5 * args.think * 4 + 120)
    return args


@contextmanager
def fresh_database(args: argparse.Namespace, folder: Path) -> Iterator[str]:
    """Yield the URL of a new empty database: a SQLite file, or a PostgreSQL database of
    our own, dropped afterwards."""
    if args.database == "sqlite":
        yield f"sqlite:///{folder / 'examday.db'}"
        return
    name = f"studyhall_examday_{uuid.uuid4().hex[:12]}"
    admin = create_engine(args.postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(args.postgres_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def serve_command(port: int, workers: int) -> list[str]:
    """The default server command, as `make run` runs it."""
    script = Path(sys.executable).parent / "studyhall"
    studyhall = (
        [str(script)]
        if script.is_file()
        else [sys.executable, "-c", "from app.cli import main; main()"]
    )
    extra = ["--workers", str(workers)] if workers > 1 else []
    return [*studyhall, "serve", "--host", "127.0.0.1", "--port", str(port), *extra]


@contextmanager
def serving(
    url: str, workers: int, folder: Path
) -> Iterator[tuple[str, list[str], subprocess.Popen[bytes]]]:
    """Serve Studyhall on the database; yield its base URL, the command and the process."""
    port = free_port()
    command = serve_command(port, workers)
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYHALL_")}
    env["STUDYHALL_DATABASE_URL"] = url
    env["PYTHONPATH"] = str(CHECKOUT)  # serve this checkout's code, whatever the environment
    log = folder / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_healthy(f"{base}/healthz", process, log)
        yield base, command, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_locust(args: argparse.Namespace, base: str, folder: Path) -> Path:
    """Play the learners with Locust, headless; return the ledger's path."""
    ledger = folder / "ledger.json"
    command = [
        *(sys.executable, "-m", "locust", "-f", str(ROOT / "bench" / "exam_load.py")),
        *("--headless", "--only-summary", "--loglevel", "WARNING"),
        *("-u", str(args.learners), "-r", str(args.spawn_rate), "-t", f"{args.max_seconds}s"),
        *("--host", base, "--json-file", str(folder / "locust")),
        *("--learner-prefix", PREFIX, "--learner-count", str(args.learners)),
        *("--learner-password", PASSWORD, "--exam", EXAM, "--think", str(args.think)),
        *("--ledger", str(ledger)),
    ]
    with (folder / "locust.log").open("wb") as out:
        subprocess.run(command, cwd=ROOT, stdout=out, stderr=out, check=False)
    if not ledger.exists():
        sys.exit(f"Locust wrote no ledger. Its log:\n{(folder / 'locust.log').read_text()}")
    return ledger


@dataclass(frozen=True)
class Outcome:
    stats: list[Stat]
    troubles: list[str]
    saves: int
    lost: list[Ack]
    submitted: int
    problems: list[str]
    seconds: float
    server_cpu: float  # CPU seconds the server's processes used meanwhile


def sit(args: argparse.Namespace, folder: Path) -> tuple[Outcome, list[str]]:
    """Prepare, serve, play the learners and check the database; return what was found."""
    with fresh_database(args, folder) as url:
        seed_database(url, learner_names(PREFIX, args.learners))
        with serving(url, args.workers, folder) as (base, command, server):
            started, cpu = time.monotonic(), cpu_seconds(server.pid)
            ledger = run_locust(args, base, folder)
            seconds, cpu = time.monotonic() - started, cpu_seconds(server.pid) - cpu
        told = read_ledger(ledger)
        db = Database(url)
        try:
            lost = lost_saves(told.acks, stored_answers(db, {a.attempt for a in told.acks}))
            problems = finalisation_problems(told.submitted, stored_attempts(db, PREFIX))
        finally:
            db.dispose()
    stats = read_stats(folder / "locust.json")
    saves, submitted = len(told.acks), len(told.submitted)
    return Outcome(stats, told.troubles, saves, lost, submitted, problems, seconds, cpu), command


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system) used so far by a process and its live descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    parents, used = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        child = int(stat.parent.name)
        parents[child] = int(fields[1])
        used[child] = (int(fields[11]) + int(fields[12])) / tick
    family = {pid}
    for child in sorted(parents):  # a child's id is usually above its parent's
        if parents[child] in family:
            family.add(child)
    return sum(used.get(member, 0.0) for member in family)


def named(outcome: Outcome, name: str) -> Stat | None:
    return next((s for s in outcome.stats if s.name == name), None)


def verdicts(outcome: Outcome, learners: int) -> list[tuple[str, str, str, bool]]:
    """Each goal: (measurement, figure, goal, met)."""
    rows = []
    for name, ceiling in GOALS:
        found = named(outcome, name)
        p95 = found.p95 if found else float("nan")
        rows.append((f"{name} p95", f"{p95:.0f} ms", f"< {ceiling:.0f} ms", p95 < ceiling))
    total = named(outcome, "all")
    failed, sent = (total.failures, total.requests) if total else (0, 0)
    rows += [
        ("failed requests", f"{failed} of {sent:,}", "0", failed == 0 and sent > 0),
        (
            "acknowledged saves lost",
            f"{len(outcome.lost)} of {outcome.saves:,}",
            "0",
            not outcome.lost,
        ),
        (
            "learners who submitted",
            f"{outcome.submitted} of {learners}",
            f"{learners}",
            outcome.submitted == learners,
        ),
        (
            "attempts not finalised exactly once",
            str(len(outcome.problems)),
            "0",
            not outcome.problems,
        ),
    ]
    return rows


def command_line() -> str:
    python = Path(sys.executable)
    if python.is_relative_to(ROOT):
        python = python.relative_to(ROOT)
    return shlex.join([str(python), "bench/exam_day.py", *sys.argv[1:]])


def report(
    args: argparse.Namespace,
    outcomes: list[Outcome],
    command: list[str],
    started: datetime,
    loads: tuple[tuple[float, ...], tuple[float, ...]],
) -> str:
    """Compose the section of RESULTS.md for this database."""
    backend = "SQLite" if args.database == "sqlite" else "PostgreSQL"
    workers = f"{args.workers} worker{'s' if args.workers > 1 else ''}"
    load = [" / ".join(f"{n:.2f}" for n in figures) for figures in loads]
    outcome = outcomes[-1]
    sittings = [verdicts(each, args.learners) for each in outcomes]
    runs = "; ".join(
        f"{each.seconds:.0f} s, {each.server_cpu:.0f} CPU s ({each.server_cpu / each.seconds:.2f} CPUs)"
        for each in outcomes
    )
    lines = [
        f"## Exam day: {args.learners} learners, {backend}, {workers}",
        "",
        "Generated by `bench/exam_day.py` (`make bench-exam-day`); rerun it rather than",
        "editing this section.",
        "",
        f"- Date (UTC): {started:%Y-%m-%d %H:%M}",
        f"- Command: `{command_line()}`",
        f"- Code: {code_revision()}",
        f"- CPUs (nproc): {len(os.sched_getaffinity(0))}; CPU model: {cpu_model()}",
        f"- Server: `{shlex.join(['studyhall', *command[1:]])}` (uvicorn {version('uvicorn')});"
        f" database: {backend}, fresh, with the seed content and {args.learners} learners",
        f"- Load generator: Locust {version('locust')} (FastHttpUser), on the same machine;"
        f" {args.spawn_rate:g} learners arriving a second, {args.think:g} s think time",
        f"- Load average (1/5/15 min): {load[0]} before, {load[1]} after",
        *busy_warning(*loads),
        f"- Sittings: {len(outcomes)}, each on a fresh database and server; from the first"
        f" learner to the last (at most {args.max_seconds} s) and the server's CPU time: {runs}",
        "",
        "Each learner logs in through the form, opens the exams page, starts the TensorRT",
        "exam, and for each of its 5 questions waits the think time, saves one choice as htmx",
        "does (one of the saves also flags the question) and opens the next question; then",
        "the summary, the submit and the result. `page` is a question page, `save` the htmx",
        "save. Afterwards the database is checked against what each learner was told. Figures",
        "are given for each sitting in turn; a goal is met when every sitting meets it.",
        "",
        "| measurement | figure | goal | verdict |",
        "| --- | ---: | ---: | --- |",
        *(
            f"| {rows[0][0]} | {' / '.join(row[1] for row in rows)} | {rows[0][2]}"
            f" | {'PASS' if all(row[3] for row in rows) else 'MISS'} |"
            for rows in zip(*sittings, strict=True)
        ),
        "",
        "The last sitting's requests:",
        "",
        "| request | count | failed | p50 ms | p95 ms | p99 ms | max ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        *(
            f"| {s.name} | {s.requests:,} | {s.failures} | {s.p50:.0f} | {s.p95:.0f}"
            f" | {s.p99:.0f} | {s.max:.0f} |"
            for s in outcome.stats
        ),
    ]
    findings = [trouble for each in outcomes for trouble in each.troubles][:5]
    findings += [f"lost: {ack}" for each in outcomes for ack in each.lost][:3]
    findings += [problem for each in outcomes for problem in each.problems][:3]
    if findings:
        lines += ["", "First problems seen:", "", *(f"- {f}" for f in findings)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Play exam day `--sittings` times and report it."""
    args = parse_args(argv)
    started, load_before = datetime.now(UTC), os.getloadavg()
    outcomes = []
    for sitting in range(args.sittings):
        if args.keep is not None:
            folder = args.keep / f"sitting-{sitting + 1}"
            folder.mkdir(parents=True, exist_ok=True)
            outcome, command = sit(args, folder)
        else:
            with tempfile.TemporaryDirectory(prefix="studyhall-examday-") as tmp:
                outcome, command = sit(args, Path(tmp))
        outcomes.append(outcome)
    text_ = report(args, outcomes, command, started, (load_before, os.getloadavg()))
    print(text_)
    if not args.no_write:
        section = f"exam-day-{args.database}"
        replace_section(RESULTS_FILE, section, text_)
        print(f"Written to {RESULTS_FILE.relative_to(ROOT)} (section {section})")


if __name__ == "__main__":
    main()
