"""Measure search over a 50,000-question library and write its section of bench/RESULTS.md.

    python bench/search_run.py [--duration 10] [--sittings 3] [--questions 50000] [--notes 500]

In a temporary folder: generate the library with bench/library.py (50,000 questions and 500
notes of ten sections: 5,000 note sections), import it into a seeded database with
`studyhall import`, serve it as `studyhall serve` does next to the separate bare app (as
bench/run.py does), and load `/search` and `/api/v1/search` with wrk: once with a dozen
queries asked over and over (common words, rare words, a prefix, a phrase, code-like terms),
once with two words drawn at random from the library's vocabulary on every request, and at
the busiest count so again with each connection pausing before each search, as a learner does.
"""

import argparse
import os
import shutil
import sys
import tempfile
import urllib.parse
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from app.config import PROJECT_ROOT

# run as `python bench/search_run.py`: `bench` is found there
sys.path.insert(0, str(PROJECT_ROOT))
from bench import library
from bench.library_run import studyhall
from bench.results import replace_section
from bench.run import (
    RESULTS_FILE,
    ROOT,
    Result,
    Target,
    machine_facts,
    prepare_database,
    run_wrk,
    running_servers,
    summarise,
    warm,
)

SECTION = "search"
# One connection: how long one search takes, with no other in the queue; 8 and 32: as the
# library benchmark (bench/run.py's goals are at these too).
CONNECTIONS = (1, 8, 32)
P99_GOAL_MS = 50.0
# Asked over and over: words in nearly every question, words of one topic, a word in no
# question, a prefix, a phrase, and the code-like terms the seed content holds.
QUERIES = [
    "tensorrt",
    "calibration",
    "engine inference",
    "int8",
    "jetson latency",
    "calib*",
    "quant*",
    '"tensorrt engine"',
    "topic7term",
    "kSTRICT_TYPES",
    "2:4",
    "nosuchword",
]
VOCABULARY = library.COMMON + library.PARTICULAR
# Learners search as people do: each waits for the answer, reads it and types the next query,
# here a pause drawn from this range (ms) before each. Measured at the busiest count only.
PAUSE_MS = (500, 1500)
LEARNERS = "learners pausing"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark Studyhall's search with wrk.")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk measurement")
    parser.add_argument("--quick", action="store_true", help="3 seconds, one sitting")
    parser.add_argument("--sittings", type=int, default=3, help="times the targets are loaded")
    parser.add_argument("--questions", type=int, default=50_000, help="questions in the library")
    parser.add_argument("--notes", type=int, default=500, help="notes of ten sections each")
    args = parser.parse_args(argv)
    if args.quick:
        args.duration, args.sittings = 3, 1
    return args


def lua_list(items: list[str]) -> str:
    return "{" + ", ".join(f"[==[{item}]==]" for item in items) + "}"


def repeated_script(path: str, folder: Path) -> Path:
    """A wrk script asking for path?q=... with each of QUERIES in turn."""
    paths = [f"{path}?{urllib.parse.urlencode({'q': q})}" for q in QUERIES]
    script = folder / f"repeated{path.replace('/', '-')}.lua"
    script.write_text(
        f"local paths = {lua_list(paths)}\nlocal n = 0\n"
        "request = function()\n  n = n + 1\n"
        "  return wrk.format(nil, paths[(n % #paths) + 1])\nend\n"
    )
    return script


def distinct_script(path: str, folder: Path, *, pause: bool = False) -> Path:
    """A wrk script asking for path?q=<two random vocabulary words> on every request.

    With `pause`, each connection waits PAUSE_MS before each request (wrk's latency starts
    when the request is sent, so the pause is not in it).
    """
    script = folder / f"distinct{path.replace('/', '-')}{'-pausing' if pause else ''}.lua"
    low, high = PAUSE_MS
    delay = f"delay = function()\n  return math.random({low}, {high})\nend\n" if pause else ""
    # Each wrk thread, in each run, draws from a sequence of its own: with one seed for all,
    # every query would be asked once by each thread (or each sitting), then from the cache.
    script.write_text(
        f"local words = {lua_list(VOCABULARY)}\nlocal threads = 0\n"
        "setup = function(thread)\n  thread:set('id', threads)\n  threads = threads + 1\nend\n"
        "init = function(args)\n  math.randomseed(os.time() * 1000 + id)\nend\n"
        + delay
        + "request = function()\n"
        "  local q = words[math.random(#words)] .. '+' .. words[math.random(#words)]\n"
        f'  return wrk.format(nil, "{path}?q=" .. q)\nend\n'
    )
    return script


def search_targets(folder: Path) -> list[Target]:
    """Bare first and last; the page and the API, with repeated and with distinct queries."""
    targets = [Target("bare", "/", bare=True)]
    for name, path in (("search page", "/search"), ("search API", "/api/v1/search")):
        targets.append(
            Target(f"{name}, repeated queries", path, script=repeated_script(path, folder))
        )
        targets.append(
            Target(f"{name}, distinct queries", path, script=distinct_script(path, folder))
        )
        targets.append(
            Target(
                f"{name}, distinct queries, {LEARNERS}",
                path,
                script=distinct_script(path, folder, pause=True),
            )
        )
    return [*targets, Target("bare (again)", "/", bare=True)]


def measured_at(target: Target, connections: int) -> bool:
    """Whether a target is loaded at a connection count: learners only at the busiest."""
    return not target.name.endswith(LEARNERS) or connections == max(CONNECTIONS)


def load(
    bases: tuple[str, str], targets: list[Target], args: argparse.Namespace, folder: Path
) -> list[Result]:
    """Load every target at each connection count, each sitting."""
    results = []
    for sitting in range(1, args.sittings + 1):
        for connections in CONNECTIONS:
            for target in filter(lambda t: measured_at(t, connections), targets):
                result = replace(
                    run_wrk(bases, target, connections, args.duration, folder), sitting=sitting
                )
                results.append(result)
                print(
                    f"  sitting {sitting} c={connections:<3} {target.name:<48}"
                    f" {result.rps:>8,.0f} req/s  p50 {result.p50_ms:6.2f} ms"
                    f"  p99 {result.p99_ms:7.2f} ms",
                    flush=True,
                )
    return results


def verdict(met: bool) -> str:
    return "PASS" if met else "MISS"


def section(
    started: datetime,
    facts: list[str],
    args: argparse.Namespace,
    results: list[Result],
    import_s: float,
) -> str:
    """Compose this benchmark's section of RESULTS.md."""
    busiest = max(CONNECTIONS)  # where every target is loaded: their order
    names = list(dict.fromkeys(r.target.name for r in results if r.connections == busiest))
    lines = [
        "## Search over the 50,000-question library",
        "",
        "Generated by `bench/search_run.py` (`make bench-search`); rerun it rather than editing",
        "this section. `bench/run.py` keeps this section when it rewrites the file.",
        "",
        f"- Date (UTC): {started:%Y-%m-%d %H:%M}",
        f"- Command: `{command_line()}`",
        *facts,
        f"- Library: `bench/library.py --questions {args.questions} --notes {args.notes}`"
        f" (seed 1): {args.notes * library.SECTIONS:,} note sections; imported in"
        f" {import_s:.0f} s",
        "",
        f"Each row is `wrk -tT -cN -d{args.duration}s --latency` (T = 2, or 1 at one connection)"
        f" over {args.sittings} sitting(s); ratios are to the bare app loaded first and last at",
        "each connection count. *Repeated queries* cycle through: "
        + ", ".join(f"`{q}`" for q in QUERIES)
        + ". *Distinct queries* are two words drawn at random from the library's vocabulary",
        f"({len(VOCABULARY)} words) on every request, so most are asked for the first time.",
        "Without a pause, each connection asks again as soon as it has its answer;",
        f"*{LEARNERS}* wait {PAUSE_MS[0]} to {PAUSE_MS[1]} ms before each search (reading the",
        f"answer, typing the next query), as {busiest} learners searching at once would.",
        "",
        f"| target | connections | req/s | ratio to bare | p50 ms | p99 ms | goal p99 < {P99_GOAL_MS:.0f} ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for name in names:
        for connections in CONNECTIONS:
            rows = [x for x in results if x.target.name == name and x.connections == connections]
            if not rows:
                continue
            r = summarise(results, name, connections)
            p50 = sorted(x.p50_ms for x in rows)
            clean = not r.non_2xx and not r.socket_errors
            goal = "" if "bare" in name else verdict(r.p99_ms < P99_GOAL_MS and clean)
            errors = "" if clean else f" **{r.non_2xx} non-2xx, {r.socket_errors} socket errors**"
            ratio = "" if name.endswith(LEARNERS) else f"{r.ratio:.2f}"  # paced, not a rate
            lines.append(
                f"| {name} | {connections} | {r.rps:,.0f} | {ratio}"
                f" | {p50[len(p50) // 2]:.2f} | {r.p99_ms:.2f} | {goal}{errors} |"
            )
    floor = "; ".join(
        f"{summarise(results, 'bare', c).p99_ms:.2f} ms at {c} connection{'s' if c != 1 else ''}"
        for c in CONNECTIONS
    )
    fresh = {  # fresh searches a second at the busiest count, without a pause
        name.split(",")[0]: summarise(results, name, busiest).rps
        for name in names
        if name.endswith("distinct queries")
    }
    costs = ", ".join(f"{name} {1000 / max(rps, 1e-9):.1f} ms" for name, rps in fresh.items())
    capacity = ", ".join(f"{name} {rps:,.0f}" for name, rps in fresh.items())
    lines += [
        "",
        f"A fresh search keeps the worker busy for about {costs} (one over the req/s at",
        f"{busiest} connections), so at {busiest} connections, all of them searching afresh",
        "without a pause, each request waits for the searches queued before it: p50 is near",
        "the connections times that cost. Those rows measure how many fresh searches a second",
        f"one worker answers ({capacity}); for a p99 under {P99_GOAL_MS:.0f} ms with {busiest}",
        "connections that never pause, it would have to answer more than"
        f" {busiest * 1000 / P99_GOAL_MS:,.0f} a second.",
        "",
        f"The floor the machine set in this run, bare's median p99: {floor}. The machine's",
        "two cores are shared with wrk and with whatever else runs on it: when bare's own p99",
        "is near the goal, the search rows' p99 says more about the machine than about search.",
    ]
    return "\n".join([*lines, ""]) + "\n"


def command_line() -> str:
    python = Path(sys.executable)
    if python.is_relative_to(ROOT):
        python = python.relative_to(ROOT)
    return " ".join([str(python), "bench/search_run.py", *sys.argv[1:]])


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (Debian: apt-get install -y wrk).")
    started, load_before = datetime.now(UTC), os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="studyhall-search-") as tmp:
        folder = Path(tmp)
        print("Writing the library ...", flush=True)
        whole, _ = library.write(folder / "library", questions=args.questions, notes=args.notes)
        database_url = prepare_database(folder)
        print("Importing it ...", flush=True)
        size = str(whole.stat().st_size)
        imported = studyhall(["import", "--max-bytes", size, str(whole)], database_url, folder)
        print(f"  {imported.wall_s:.0f} s", flush=True)
        with running_servers(database_url, folder) as bases:
            targets = search_targets(folder)
            warm(bases, [Target("search", f"/search?q={q}") for q in ("tensorrt", "int8")])
            results = load(bases, targets, args, folder)
    text = section(started, machine_facts(load_before), args, results, imported.wall_s)
    replace_section(RESULTS_FILE, SECTION, text)
    print("", text, f"Written to {RESULTS_FILE.relative_to(ROOT)}", sep="\n")


if __name__ == "__main__":
    main()
