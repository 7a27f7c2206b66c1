"""Measure Studyhall with a 50,000-question library and write its section of bench/RESULTS.md.

    python bench/library_run.py [--duration 10] [--sittings 3] [--questions 50000]

In a temporary folder: generate the library (bench/library.py), serve the seeded app as
`studyhall serve` does, and import the library with `studyhall import` while a learner's
practice answers are posted to it all along (wall time, CPU time and peak RSS of the import
process; every failed answer is counted). Then time importing 20 more questions, load the
home, set, topic and spread question pages with wrk next to the separate bare app (as
bench/run.py does), and read the worker's RSS after at least 100,000 spread requests.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from app.config import PROJECT_ROOT

# run as `python bench/library_run.py`: `bench` is found there
sys.path.insert(0, str(PROJECT_ROOT))
from bench import library
from bench.results import replace_section
from bench.run import (
    RESULTS_FILE,
    ROOT,
    Result,
    Target,
    fetch,
    log_in,
    machine_facts,
    prepare_database,
    run_wrk,
    running_servers,
    summarise,
    warm,
)

SECTION = "library"
CONNECTIONS = (8, 32)
SPREAD_REQUESTS = 100_000
SAVERS = 4  # learners answering while the library is imported
GOALS = {"import_s": 120.0, "import_mb": 600.0, "add_s": 5.0, "rss_mb": 200.0}
PAGE_GOALS = {"home": 0.20, "set": 0.20, "topic": 0.20, "spread questions": 0.15}


@dataclass
class Run:
    """One command's wall time, CPU time and peak RSS."""

    wall_s: float
    cpu_s: float
    peak_mb: float
    output: str


@dataclass
class Saves:
    ok: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark Studyhall with a large library.")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk measurement")
    parser.add_argument("--sittings", type=int, default=3, help="times the pages are loaded")
    parser.add_argument("--questions", type=int, default=50_000, help="size of the library")
    parser.add_argument(
        "--spread-requests",
        type=int,
        default=SPREAD_REQUESTS,
        help="spread question requests made before the worker's RSS is read",
    )
    return parser.parse_args(argv)


def studyhall(args: list[str], database_url: str, folder: Path) -> Run:
    """Run `studyhall ARGS` on the database; return its wall time, CPU time and peak RSS."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYHALL_")}
    env["STUDYHALL_DATABASE_URL"] = database_url
    command = [sys.executable, "-c", "from app.cli import main; main()", *args]
    log = folder / "import.log"
    started = time.monotonic()
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    output = log.read_text()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"`studyhall {' '.join(args)}` failed:\n{output}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output)


def keep_saving(base: str, cookie: str, stop: threading.Event, saves: Saves) -> None:
    """Post practice answers, one after another, until told to stop."""
    question = json.loads(fetch(f"{base}/api/v1/questions?limit=1"))["items"][0]["id"]
    choices = json.loads(fetch(f"{base}/api/v1/questions/{question}"))["choices"]
    body = json.dumps({"choice_ids": [choices[0]["id"]]})
    while not stop.is_set():
        started = time.monotonic()
        try:
            fetch(f"{base}/api/v1/questions/{question}/check", body, cookie)
        except (OSError, urllib.error.HTTPError) as exc:
            saves.failed += 1
            saves.errors.append(str(exc))
        else:
            saves.ok += 1
        saves.latencies.append(time.monotonic() - started)
        stop.wait(0.02)


def import_while_saving(
    base: str, cookie: str, database_url: str, file: Path, folder: Path
) -> tuple[Run, Saves]:
    """Import the library while learners save answers; return the import and the saves."""
    stop, saves = threading.Event(), Saves()
    savers = [
        threading.Thread(target=keep_saving, args=(base, cookie, stop, saves))
        for _ in range(SAVERS)
    ]
    for saver in savers:
        saver.start()
    try:
        size = str(file.stat().st_size)
        run = studyhall(["import", "--max-bytes", size, str(file)], database_url, folder)
    finally:
        stop.set()
        for saver in savers:
            saver.join()
    return run, saves


def spread_script(first: int, last: int, folder: Path) -> Path:
    """A wrk script asking for question ids spread evenly over the library; each of wrk's
    threads draws its own sequence (one seed each), so two threads do not ask for the same
    ids in step."""
    path = folder / "spread.lua"
    path.write_text(
        "local threads = 0\n"
        "function setup(thread)\n  threads = threads + 1\n  thread:set('seed', threads)\nend\n"
        "function init(args)\n  math.randomseed(seed)\nend\n"
        "request = function()\n"
        f'  return wrk.format(nil, "/questions/" .. math.random({first}, {last}))\nend\n'
    )
    return path


def page_targets(base: str) -> list[Target]:
    """The library's pages: bare first and last, the biggest set and topic, spread questions."""
    topics = json.loads(fetch(f"{base}/api/v1/topics"))
    biggest = max(
        (t for root in topics for t in [root, *root["children"]]),
        key=lambda t: t["question_count"],
    )
    return [
        Target("bare", "/", bare=True),
        Target("home", "/"),
        Target("set", "/sets/set-1"),
        Target("topic", f"/topics/{biggest['slug']}"),
        Target("spread questions", "/questions/spread"),
        Target("bare (again)", "/", bare=True),
    ]


def load_pages(
    bases: tuple[str, str], targets: list[Target], args: argparse.Namespace, folder: Path
) -> tuple[list[Result], int]:
    """Load every target at each connection count, each sitting; return results and spread count."""
    results, spread_requests = [], 0
    for sitting in range(1, args.sittings + 1):
        for connections in CONNECTIONS:
            for target in targets:
                result = run_wrk(bases, target, connections, args.duration, folder)
                results.append(replace(result, sitting=sitting))
                if target.name == "spread questions":
                    spread_requests += round(result.rps * args.duration)
                print(
                    f"  sitting {sitting} c={connections:<3} {target.name:<18}"
                    f" {result.rps:>8,.0f} req/s  p99 {result.p99_ms:7.2f} ms",
                    flush=True,
                )
    return results, spread_requests


def rss_mb(pid: int) -> float:
    """Return a process's resident set size in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def verdict(met: bool) -> str:
    return "PASS" if met else "MISS"


def section(
    started: datetime,
    facts: list[str],
    args: argparse.Namespace,
    figures: dict[str, object],
    results: list[Result],
) -> str:
    """Compose this benchmark's section of RESULTS.md."""
    imp, add, saves = figures["import"], figures["add"], figures["saves"]
    assert isinstance(imp, Run) and isinstance(add, Run) and isinstance(saves, Saves)
    size = figures["size_mb"]
    p99 = sorted(saves.latencies)[int(len(saves.latencies) * 0.99)] if saves.latencies else 0
    lines = [
        "## The 50,000-question library",
        "",
        "Generated by `bench/library_run.py` (`make bench-library`); rerun it rather than",
        "editing this section. `bench/run.py` keeps this section when it rewrites the file.",
        "",
        f"- Date (UTC): {started:%Y-%m-%d %H:%M}",
        f"- Command: `{command_line()}`",
        *facts,
        f"- Library: `bench/library.py --questions {args.questions}` (seed 1): "
        f"{size:.1f} MB of JSON, 50 sets, 20 topics, 200 notes of 10 sections",
        "",
        "The app serves the seeded database while `studyhall import` loads the library into",
        f"it and {SAVERS} logged-in learners post practice answers one after another all along.",
        "Import figures are of the import process alone (wall time, its CPU time, peak RSS).",
        "",
        "| measurement | figure | goal | verdict |",
        "| --- | ---: | ---: | --- |",
        f"| import, wall time | {imp.wall_s:.1f} s (CPU {imp.cpu_s:.1f} s) | < 120 s"
        f" | {verdict(imp.wall_s < GOALS['import_s'])} |",
        f"| import, peak RSS | {imp.peak_mb:.0f} MB | < 600 MB"
        f" | {verdict(imp.peak_mb < GOALS['import_mb'])} |",
        f"| add 20 questions (`studyhall import`, whole command) | {add.wall_s:.2f} s"
        f" (CPU {add.cpu_s:.2f} s) | < 5 s | {verdict(add.wall_s < GOALS['add_s'])} |",
        f"| answers saved during the import | {saves.ok} saved, {saves.failed} failed,"
        f" p99 {p99 * 1000:.0f} ms | all succeed | {verdict(saves.failed == 0 and saves.ok > 0)} |",
        f"| worker RSS after {figures['spread']:,} spread question requests"
        f" | {figures['rss_mb']:.0f} MB | < 200 MB"
        f" | {verdict(float(figures['rss_mb']) < GOALS['rss_mb'])} |",  # type: ignore[arg-type]
    ]
    for name, goal in PAGE_GOALS.items():
        for connections in CONNECTIONS:
            r = summarise(results, name, connections)
            clean = not r.non_2xx and not r.socket_errors
            lines.append(
                f"| {name} at {connections} connections, median ratio to bare"
                f" ({r.ratio_low:.2f}–{r.ratio_high:.2f}; p99 {r.p99_ms:.1f} ms) | {r.ratio:.2f}"
                f" | ≥ {goal:.2f} | {verdict(r.ratio >= goal and clean)} |"
            )
    lines += [
        "",
        f"Pages: each row is `wrk -t2 -cN -d{args.duration}s` over {args.sittings} sittings,",
        "ratios to the separate bare app loaded first and last at each connection count (as in",
        "the tables above). `spread questions` asks for ids drawn evenly over the library, so",
        "most requests miss the worker's cache. The set page is `/sets/set-1` (1,000",
        "questions), the topic page the topic with the most questions.",
    ]
    if saves.errors:
        lines += ["", f"First failed answer: `{saves.errors[0]}`"]
    return "\n".join(lines) + "\n"


def command_line() -> str:
    python = Path(sys.executable)
    if python.is_relative_to(ROOT):
        python = python.relative_to(ROOT)
    return " ".join([str(python), "bench/library_run.py", *sys.argv[1:]])


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (Debian: apt-get install -y wrk).")
    started, load_before = datetime.now(UTC), os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="studyhall-library-") as tmp:
        folder = Path(tmp)
        print("Writing the library ...", flush=True)
        whole, twenty = library.write(folder / "library", questions=args.questions)
        size_mb = whole.stat().st_size / 1e6
        database_url = prepare_database(folder)
        pids: list[int] = []
        with running_servers(database_url, folder, pids) as bases:
            cookie = log_in(bases[0])
            print("Importing it while learners answer ...", flush=True)
            imported, saves = import_while_saving(bases[0], cookie, database_url, whole, folder)
            print(
                f"  {imported.wall_s:.1f} s, {imported.peak_mb:.0f} MB;"
                f" {saves.ok} answers saved, {saves.failed} failed",
                flush=True,
            )
            added = studyhall(["import", str(twenty)], database_url, folder)
            print(f"Added 20 questions in {added.wall_s:.2f} s", flush=True)
            items = json.loads(fetch(f"{bases[0]}/api/v1/questions?set=set-1&limit=1"))
            first = items["items"][0]["id"]
            spread = spread_script(first, first + args.questions - 1, folder)
            targets = page_targets(bases[0])
            warm(bases, [t for t in targets if t.name != "spread questions"])
            targets = [
                Target(t.name, t.path, script=spread) if t.name == "spread questions" else t
                for t in targets
            ]
            results, spread_requests = load_pages(bases, targets, args, folder)
            spread_target = next(t for t in targets if t.name == "spread questions")
            while spread_requests < args.spread_requests:
                extra = run_wrk(bases, spread_target, 32, args.duration, folder)
                spread_requests += round(extra.rps * args.duration)
            worker_rss = rss_mb(pids[0])
    figures = {
        "import": imported,
        "add": added,
        "saves": saves,
        "size_mb": size_mb,
        "spread": spread_requests,
        "rss_mb": worker_rss,
    }
    text = section(started, machine_facts(load_before), args, figures, results)
    replace_section(RESULTS_FILE, SECTION, text)
    print("", text, f"Written to {RESULTS_FILE.relative_to(ROOT)}", sep="\n")


if __name__ == "__main__":
    main()
