"""Load Studyhall's pages with wrk next to a separate bare app and write bench/RESULTS.md.

wrk shares the machine's cores with the server, so each figure is read as a ratio to the
bare app measured in the same run: for every connection count, bare is loaded first and
again last, and the pages are compared to the mean of the two. Studyhall is served the way
`studyhall serve` ships it (one worker); the bare app (bench/bare.py) with the same uvicorn
options, in a process of its own.
"""

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from statistics import median
from typing import Any

from app.cli import SERVER_LOOP
from app.config import PROJECT_ROOT as ROOT
from app.config import Settings
from app.db import Database
from app.importers.service import import_document, seed_files
from app.migrate import upgrade

# run as `python bench/run.py`: `bench` is found there
sys.path.insert(0, str(ROOT))
from bench.learners import PASSWORD, add_learners, learner_names
from bench.results import write_head

RESULTS_FILE = ROOT / "bench" / "RESULTS.md"
CONNECTIONS = (1, 8, 32)
BARE_PATH = "/"
BENCH_USER = "bench-learner"
# One learner per connection at most, each with an open exam attempt of their own.
EXAM_LEARNERS = learner_names("bench-examinee", max(CONNECTIONS))
# A custom exam long enough that no measurement outlives its deadline; timed all the same.
EXAM_FORM = {"count": "7", "minutes": "600", "mode": "exam"}
FORM = (("Content-Type", "application/x-www-form-urlencoded"),)
HTMX_FORM = (*FORM, ("HX-Request", "true"))
NOTE_SLUG = "tensorrt-note-2"
TO_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}
WARM_ROUNDS = 50


@dataclass(frozen=True)
class Call:
    """One request: a path, maybe a body, maybe a learner's session cookie."""

    path: str
    body: str | None = None
    cookie: str | None = None


@dataclass(frozen=True)
class Target:
    name: str
    path: str
    body: str | None = None  # a body makes the request a POST (JSON unless headers say)
    cookie: str | None = None  # a logged-in learner's session cookie
    bare: bool = False  # served by the bare app
    script: Path | None = None  # a wrk Lua script of its own (which path to ask for, say)
    method: str | None = None  # when neither GET nor POST
    headers: tuple[tuple[str, str], ...] = ()
    # Requests sent in turn, one learner after another; the path, body and cookie above are
    # the first of them.
    rotation: tuple[Call, ...] = ()

    def calls(self) -> tuple[Call, ...]:
        """Every request the target sends, in the order wrk sends them."""
        return self.rotation or (Call(self.path, self.body, self.cookie),)


@dataclass(frozen=True)
class Result:
    target: Target
    connections: int
    rps: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    socket_errors: int
    sitting: int = 1


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # wrk would not follow it either, so a redirect counts as a failure


OPENER = urllib.request.build_opener(_NoRedirect)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(description="Benchmark Studyhall's pages with wrk.")
    parser.add_argument("--duration", type=int, default=10, help="seconds per measurement")
    parser.add_argument("--quick", action="store_true", help="3 seconds per measurement")
    parser.add_argument("--sittings", type=int, default=3, help="times the whole set is run")
    args = parser.parse_args(argv)
    if args.quick:
        args.duration = 3
    if args.duration < 1:
        parser.error("--duration must be at least 1 second")
    return args


def prepare_database(folder: Path) -> str:
    """Create, migrate and seed a SQLite database in folder; return its URL."""
    url = f"sqlite:///{folder / 'bench.db'}"
    seed_database(url, [BENCH_USER, *EXAM_LEARNERS])
    return url


def seed_database(url: str, learners: list[str]) -> None:
    """Migrate an empty database, load the seed content and add the learners."""
    upgrade(url)
    threshold = Settings(database_url=url).link_threshold
    db = Database(url)
    try:
        for path in seed_files(ROOT / "seed"):
            with db.session_scope(write=True) as session:
                import_document(session, path.read_bytes(), f"seed/{path.name}", threshold)
        with db.session_scope(write=True) as session:
            add_learners(session, learners)
    finally:
        db.dispose()


def fetch(
    url: str,
    body: str | None = None,
    cookie: str | None = None,
    method: str | None = None,
    headers: tuple[tuple[str, str], ...] = (),
) -> bytes:
    """GET url (or POST a JSON body to it) and return the body; raise unless it answers 2xx."""
    data = body.encode() if body is not None else None
    sent = {"Content-Type": "application/json", **dict(headers)}
    if cookie:
        sent["Cookie"] = cookie
    request = urllib.request.Request(url, data=data, headers=sent, method=method)
    with OPENER.open(request, timeout=10) as response:
        return response.read()


def free_port() -> int:
    """Pick a port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_commands(port: int, bare_port: int) -> tuple[list[str], list[str]]:
    """Return the commands serving Studyhall (as `studyhall serve` does) and the bare app."""
    studyhall = [sys.executable, "-c", "from app.cli import main; main()"]
    app = [*studyhall, "serve", "--port", str(port)]
    bare = [sys.executable, "-m", "uvicorn", "bench.bare:create_bare_app", "--factory"]
    options = ["--loop", SERVER_LOOP, "--no-access-log", "--log-level", "warning"]
    return app, [*bare, "--port", str(bare_port), *options]


@contextmanager
def running_servers(
    database_url: str, folder: Path, pids: list[int] | None = None
) -> Iterator[tuple[str, str]]:
    """Serve Studyhall on the database and the bare app; yield both base URLs.

    The servers' process ids (Studyhall's first) go into pids when it is given.
    """
    port, bare_port = free_port(), free_port()
    # Only the database is set, so the content cache and the rest keep their defaults.
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYHALL_")}
    env["STUDYHALL_DATABASE_URL"] = database_url
    processes = []
    try:
        for name, command in zip(("app", "bare"), server_commands(port, bare_port), strict=True):
            with (folder / f"{name}.log").open("wb") as log:
                processes.append(
                    subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
                )
        if pids is not None:
            pids += [process.pid for process in processes]
        bases = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{bare_port}"
        wait_healthy(f"{bases[0]}/healthz", processes[0], folder / "app.log")
        wait_healthy(f"{bases[1]}/", processes[1], folder / "bare.log")
        yield bases
    finally:
        for process in processes:
            process.terminate()
        for process in processes:  # a server that hangs is killed, and never keeps the others
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_healthy(url: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    """Poll url until it answers; stop with the server's log when it never does."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        try:
            fetch(url)
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"The server did not become healthy. Its log:\n{log_path.read_text()}")


def log_in(base: str, username: str = BENCH_USER) -> str:
    """Log a bench learner in through the form; return the session cookie (name=value)."""
    form = urllib.parse.urlencode({"username": username, "password": PASSWORD}).encode()
    try:
        OPENER.open(urllib.request.Request(f"{base}/login", data=form), timeout=30)
    except urllib.error.HTTPError as exc:  # the 303 that sets the cookie
        cookie = exc.headers.get("set-cookie", "")
        if exc.code == 303 and cookie:
            return str(cookie).split(";", 1)[0]
    sys.exit(f"Logging {username} in failed; nothing was measured.")


def post_form(url: str, fields: dict[str, str], cookie: str) -> str:
    """POST a form as a browser would and return where the 303 answering it points."""
    form = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(url, data=form, headers={"Cookie": cookie})
    try:
        OPENER.open(request, timeout=30)
    except urllib.error.HTTPError as exc:
        if exc.code == 303:
            return str(exc.headers["location"])
    sys.exit(f"{url} did not answer with a redirect; nothing was measured.")


@dataclass(frozen=True)
class Sitter:
    """A logged-in learner with an open attempt, and a choice for each of its questions."""

    cookie: str
    attempt_id: int
    choices: tuple[int, ...]  # by position, from 1


def seat(base: str, username: str, topic: str) -> Sitter:
    """Log a learner in, start a custom exam through the exams page and read its choices."""
    cookie = log_in(base, username)
    location = post_form(f"{base}/exams/custom", {**EXAM_FORM, "topics": topic}, cookie)
    attempt_id = int(location.rstrip("/").rsplit("/", 1)[1])
    api = f"{base}/api/v1/attempts/{attempt_id}"
    count = json.loads(fetch(api, cookie=cookie))["question_count"]
    choices = tuple(
        json.loads(fetch(f"{api}/questions/{n}", cookie=cookie))["choices"][0]["id"]
        for n in range(1, count + 1)
    )
    return Sitter(cookie, attempt_id, choices)


def exam_targets(base: str) -> list[Target]:
    """The attempt flow over many learners: the question page, its save, and the API's save."""
    topics = json.loads(fetch(f"{base}/api/v1/topics"))
    topic = max(topics, key=lambda t: t["question_count"])["slug"]
    sitters = [seat(base, name, topic) for name in EXAM_LEARNERS]
    # Position by position, each learner in turn: consecutive requests are different people.
    longest = max(len(s.choices) for s in sitters)
    turns = [(s, n, c) for n in range(longest) for s in sitters for c in s.choices[n : n + 1]]

    def target(name: str, calls: list[Call], **options: Any) -> Target:
        first = calls[0]
        return Target(name, first.path, first.body, first.cookie, rotation=tuple(calls), **options)

    page = "/attempts/{}/questions/{}"
    api = "/api/v1/attempts/{}/questions/{}/answer"
    return [
        target(
            "exam page",
            [Call(page.format(s.attempt_id, n + 1), None, s.cookie) for s, n, _ in turns],
        ),
        target(
            "exam save",
            [Call(page.format(s.attempt_id, n + 1), f"choice={c}", s.cookie) for s, n, c in turns],
            headers=HTMX_FORM,
        ),
        target(
            "exam save, API",
            [
                Call(api.format(s.attempt_id, n + 1), json.dumps({"choice_ids": [c]}), s.cookie)
                for s, n, c in turns
            ],
            method="PUT",
        ),
    ]


def discover_targets(base: str) -> list[Target]:
    """List what to load, bare first and last; the question is the first seed question."""
    question_id = json.loads(fetch(f"{base}/api/v1/questions?limit=1"))["items"][0]["id"]
    question = json.loads(fetch(f"{base}/api/v1/questions/{question_id}"))
    body = json.dumps({"choice_ids": [question["choices"][0]["id"]]})
    cookie = log_in(base)
    check = f"/api/v1/questions/{question_id}/check"
    return [
        Target("bare", BARE_PATH, bare=True),
        Target("home", "/"),
        Target("note", f"/notes/{NOTE_SLUG}"),
        Target("question", f"/questions/{question_id}"),
        Target("question, logged in", f"/questions/{question_id}", cookie=cookie),
        Target("check API", check, body),
        Target("save, logged in", check, body, cookie=cookie),
        Target(
            "practice save (htmx), logged in",
            f"/questions/{question_id}",
            f"choice={question['choices'][0]['id']}",
            cookie=cookie,
            headers=HTMX_FORM,
        ),
        *exam_targets(base),
        Target("bare (again)", BARE_PATH, bare=True),
    ]


def warm(bases: tuple[str, str], targets: list[Target]) -> None:
    """Request every target a few times, so caches and compiled templates are ready."""
    for target in targets:
        calls = target.calls()
        for n in range(max(WARM_ROUNDS, len(calls))):
            call = calls[n % len(calls)]
            try:
                fetch(
                    bases[target.bare] + call.path,
                    call.body,
                    call.cookie,
                    target.method,
                    target.headers,
                )
            except urllib.error.HTTPError as exc:
                sys.exit(f"{target.name} ({call.path}) answered {exc.code}; nothing was measured.")


# wrk's Lua: each thread builds its requests once, then sends them in turn, starting at a
# place of its own so that two threads do not ask for the same learner at the same moment.
ROTATION = """
local calls = {
%s
}
local requests, turn, thread_count = {}, 0, 0

function setup(thread)
  thread:set("offset", thread_count)
  thread_count = thread_count + 1
end

function init(args)
  for i, call in ipairs(calls) do
    local headers = {%s}
    if call[3] then headers["Cookie"] = call[3] end
    requests[i] = wrk.format(call[4], call[1], headers, call[2])
  end
  turn = ((offset or 0) * 16) %% #requests
end

function request()
  turn = turn %% #requests + 1
  return requests[turn]
end
"""


def _lua(value: str | None) -> str:
    return "nil" if value is None else f"[==[{value}]==]"


def request_script(target: Target, folder: Path) -> Path:
    """Write the Lua script that makes wrk send the target's requests, cookies and bodies."""
    slug = re.sub(r"[^a-z0-9]+", "-", target.name.lower()).strip("-") or "target"
    path = folder / f"{slug}.lua"
    headers = dict(target.headers)
    if target.body is not None:
        headers.setdefault("Content-Type", "application/json")
    method = target.method or ("POST" if target.body is not None else "GET")
    calls = ",\n".join(
        f"  {{{_lua(c.path)}, {_lua(c.body)}, {_lua(c.cookie)}, {_lua(method)}}}"
        for c in target.calls()
    )
    header_table = ", ".join(f"[ {_lua(k)} ] = {_lua(v)}" for k, v in headers.items())
    path.write_text(ROTATION % (calls, header_table))
    return path


def run_wrk(
    bases: tuple[str, str], target: Target, connections: int, duration: int, folder: Path
) -> Result:
    """Load one target with wrk at a connection count and parse its report."""
    # wrk refuses fewer connections than threads.
    threads = min(2, connections)
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency"]
    if target.script is not None:
        command += ["-s", str(target.script)]
    elif target.body is not None or target.cookie is not None or target.rotation:
        command += ["-s", str(request_script(target, folder))]
    command.append(bases[target.bare] + target.path)
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    if done.stderr.strip():  # a script wrk could not run: it would load the bare URL instead
        raise SystemExit(f"wrk complained; nothing was measured:\n{done.stderr}")
    output = done.stdout
    try:
        return parse_wrk(output, target, connections)
    except (KeyError, ValueError) as exc:
        raise SystemExit(f"Could not read wrk's report ({exc}):\n{output}") from exc


def parse_wrk(output: str, target: Target, connections: int) -> Result:
    """Read req/s, p50 and p99, non-2xx responses and socket errors from `wrk --latency`."""
    latency, rps, non_2xx, socket_errors = {}, None, 0, 0
    for line in output.splitlines():
        words = line.replace(",", "").split()
        if len(words) == 2 and words[0] in ("50%", "99%"):
            latency[words[0]] = to_ms(words[1])
        elif line.startswith("Requests/sec:"):
            rps = float(words[1])
        elif line.strip().startswith("Non-2xx or 3xx responses:"):
            non_2xx = int(words[-1])
        elif line.strip().startswith("Socket errors:"):
            socket_errors = sum(int(word) for word in words if word.isdigit())
    if rps is None:
        raise ValueError("no Requests/sec line")
    return Result(target, connections, rps, latency["50%"], latency["99%"], non_2xx, socket_errors)


def to_ms(value: str) -> float:
    """Convert a wrk duration such as 850.00us, 1.20ms or 1.05s to milliseconds."""
    number = value.rstrip("usmh")
    return float(number) * TO_MS[value[len(number) :]]


def measure(
    bases: tuple[str, str], targets: list[Target], duration: int, folder: Path, sitting: int
) -> list[Result]:
    """Load every target at each connection count in turn, reporting progress."""
    results = []
    for connections in CONNECTIONS:
        for target in targets:
            result = run_wrk(bases, target, connections, duration, folder)
            result = replace(result, sitting=sitting)
            print(
                f"  sitting {sitting} c={connections:<3} {target.name:<20} {result.rps:>8,.0f}"
                f" req/s  p50 {result.p50_ms:6.2f} ms  p99 {result.p99_ms:7.2f} ms",
                flush=True,
            )
            results.append(result)
    return results


def bare_rps(results: list[Result], connections: int, sitting: int) -> float:
    """Return the mean req/s of the bare app at a connection count in one sitting."""
    bare = [
        r.rps
        for r in results
        if r.connections == connections and r.target.bare and r.sitting == sitting
    ]
    return sum(bare) / len(bare)


@dataclass(frozen=True)
class Summary:
    """One target at one connection count over every sitting."""

    name: str
    rps: float  # median
    ratio: float  # median of each sitting's ratio to that sitting's bare
    ratio_low: float
    ratio_high: float
    p99_ms: float  # median
    non_2xx: int  # summed
    socket_errors: int


def summarise(results: list[Result], name: str, connections: int) -> Summary:
    """Combine the sittings of one target at one connection count."""
    rows = [r for r in results if r.target.name == name and r.connections == connections]
    ratios = [r.rps / bare_rps(results, connections, r.sitting) for r in rows]
    return Summary(
        name=name,
        rps=median(r.rps for r in rows),
        ratio=median(ratios),
        ratio_low=min(ratios),
        ratio_high=max(ratios),
        p99_ms=median(r.p99_ms for r in rows),
        non_2xx=sum(r.non_2xx for r in rows),
        socket_errors=sum(r.socket_errors for r in rows),
    )


def errors_cell(result: Summary) -> str:
    """Show the errors of a measurement, in bold when there are any."""
    if not result.non_2xx and not result.socket_errors:
        return "0"
    return f"**{result.non_2xx} non-2xx, {result.socket_errors} socket**"


def table(results: list[Result], connections: int) -> list[str]:
    """Format the results at one connection count as a Markdown table."""
    lines = [
        f"### {connections} connection{'s' if connections > 1 else ''}",
        "",
        "| target | req/s | ratio to bare | ratio range | p99 ms | errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in dict.fromkeys(r.target.name for r in results):
        r = summarise(results, name, connections)
        lines.append(
            f"| {r.name} | {r.rps:,.0f} | {r.ratio:.2f} | {r.ratio_low:.2f}–{r.ratio_high:.2f}"
            f" | {r.p99_ms:.2f} | {errors_cell(r)} |"
        )
    return lines


GOALS = [
    # (target, connection counts, lowest median ratio to bare, highest median p99 ms or None)
    ("question", (8, 32), 0.33, None),
    ("question, logged in", (8, 32), 0.20, None),
    ("save, logged in", (8, 32), 0.10, None),
    ("save, logged in", (32,), None, 50.0),
    ("exam save", (32,), None, 50.0),
]


def checks(results: list[Result]) -> list[tuple[str, bool, str]]:
    """Judge the targets against their goals: (goal, met, measured)."""
    verdicts = []
    for name, counts, ratio, p99 in GOALS:
        for connections in counts:
            r = summarise(results, name, connections)
            clean = not r.non_2xx and not r.socket_errors
            if ratio is not None:
                goal = f"{name}: median ratio at {connections} connections >= {ratio:.2f}"
                verdicts.append((goal, r.ratio >= ratio and clean, f"{r.ratio:.2f}"))
            if p99 is not None:
                goal = f"{name}: median p99 at {connections} connections < {p99:.0f} ms"
                verdicts.append((goal, r.p99_ms < p99 and clean, f"{r.p99_ms:.2f} ms"))
    return verdicts


def targets_section(results: list[Result]) -> list[str]:
    """State whether the question page met each target in this run, and flag errors."""
    lines = ["## Goals", "", "From the medians above (a goal with errors is missed):", ""]
    for label, met, measured in checks(results):
        lines.append(f"- {'PASS' if met else 'MISS'}: {label} (measured {measured})")
    floor = "; ".join(
        f"{summarise(results, 'bare', c).p99_ms:.2f} ms at {c} connections" for c in (8, 32)
    )
    lines += ["", f"The floor the machine set in this run, bare's median p99: {floor}."]
    failed = [r for r in results if r.non_2xx or r.socket_errors]
    lines.append("")
    if failed:
        names = ", ".join(
            f"{r.target.name} at {r.connections} (sitting {r.sitting})" for r in failed
        )
        lines.append(f"**Errors were seen** ({names}): those figures are not trustworthy.")
    else:
        lines.append("No non-2xx responses and no socket errors in any measurement.")
    return lines


def cpu_model() -> str:
    """Return the CPU model named in /proc/cpuinfo."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def wrk_version() -> str:
    """Return wrk's version line."""
    output = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout
    return output.splitlines()[0].split(" Copyright")[0] if output else "wrk"


def code_revision() -> str:
    """Name the commit measured, and say when the work tree differs from it (the figures
    file, which one benchmark may have rewritten before the next, aside)."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/RESULTS.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if head.returncode:
        return "unknown (not a git work tree)"
    dirty = ", with uncommitted changes" if changed.stdout.strip() else ""
    return head.stdout.strip() + dirty


def machine_facts(load_before: tuple[float, ...]) -> list[str]:
    """Describe the machine, the server and the load around the run."""
    after = os.getloadavg()
    load = " / ".join(f"{n:.2f}" for n in load_before)
    load_after = " / ".join(f"{n:.2f}" for n in after)
    return [
        f"- Code: {code_revision()}",
        f"- CPUs (nproc): {len(os.sched_getaffinity(0))}",
        f"- CPU model: {cpu_model()}",
        f"- Python: {platform.python_version()}",
        f"- Server: uvicorn {version('uvicorn')}, {SERVER_LOOP} event loop, 1 worker, access log off;"
        f" FastAPI {version('fastapi')}, Starlette {version('starlette')}",
        "- Database: SQLite (a fresh temporary file with the seed content);"
        " content cache at its default settings",
        f"- Load generator: {wrk_version()}, on the same machine",
        f"- Load average (1/5/15 min): {load} before, {load_after} after",
        *busy_warning(load_before, after),
    ]


def busy_warning(before: tuple[float, ...], after: tuple[float, ...]) -> list[str]:
    """Warn when other work kept the machine's CPUs busy as the run began.

    The load afterwards counts the run's own server and load generator, so it is shown but
    not judged.
    """
    cpus = len(os.sched_getaffinity(0))
    if before[0] <= cpus:
        return []
    return [
        f"- **The machine was busy**: a 1-minute load average of {before[0]:.2f} as the run"
        f" began on {cpus} CPUs ({after[0]:.2f} after it, its own processes included), from"
        " other work than this run. The figures are disturbed by that load; measure again on"
        " a quiet machine before judging."
    ]


def command_line() -> str:
    """Return the command that ran this script, relative to the project root when it can."""
    python = Path(sys.executable)
    if python.is_relative_to(ROOT):
        python = python.relative_to(ROOT)
    return shlex.join([str(python), "bench/run.py", *sys.argv[1:]])


def report(
    results: list[Result], started: datetime, facts: list[str], duration: int, sittings: int
) -> str:
    """Compose RESULTS.md."""
    lines = [
        "# Benchmark results",
        "",
        "Generated by `bench/run.py` (`make bench`); rerun it rather than editing this file."
        " It keeps the sections other benchmarks add below.",
        "",
        f"- Date (UTC): {started:%Y-%m-%d %H:%M}",
        f"- Command: `{command_line()}`",
        *facts,
        "",
        f"Each row is one `wrk -t2 -cN -d{duration}s --latency URL` (`-t1` for one connection).",
        "wrk runs on the same cores as the server, so read the ratios rather than the absolute",
        "figures. Bare is a separate minimal FastAPI app (`bench/bare.py`: one `async def`",
        "answering a constant page of about 7 KB, no middleware) served by uvicorn with the same",
        "options as `studyhall serve`, in a process of its own. It is loaded first and last at",
        "each connection count; ratios are to the mean of the two. The whole set is run",
        f"{sittings} times (sittings); a row gives the median req/s, the median of the",
        "sittings' ratios with their range, and the median p99. wrk sends no",
        "`Accept-Encoding`, so no response is compressed. Logged-in rows send a session cookie;",
        "`save, logged in` records a practice answer on every request.",
        "",
        f"The `exam` rows are the attempt flow of {len(EXAM_LEARNERS)} learners, each logged in",
        "with an open attempt (a timed custom exam of 7 TensorRT questions started from the",
        "exams page); wrk sends their requests in turn, position by position, learner after",
        'learner. `exam page` is the question page (what "next" opens), `exam save` the htmx',
        "post that saves one choice and answers the navigator, `exam save, API` the JSON",
        "API's `PUT .../answer`.",
    ]
    return "\n".join([*lines, "", *findings(results)]) + "\n"


def findings(results: list[Result]) -> list[str]:
    """Return a table per connection count, then the verdict on each target."""
    lines = []
    for connections in CONNECTIONS:
        lines += [*table(results, connections), ""]
    return [*lines, *targets_section(results)]


def main(argv: list[str] | None = None) -> None:
    """Prepare a database, serve the app, load every target and write the report."""
    args = parse_args(argv)
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (Debian: apt-get install -y wrk).")
    started, load_before = datetime.now(UTC), os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="studyhall-bench-") as tmp:
        folder = Path(tmp)
        database_url = prepare_database(folder)
        with running_servers(database_url, folder) as bases:
            targets = discover_targets(bases[0])
            warm(bases, targets)
            print(f"Loading each target for {args.duration} s per connection count", flush=True)
            results = [
                result
                for sitting in range(1, args.sittings + 1)
                for result in measure(bases, targets, args.duration, folder, sitting)
            ]
    facts = machine_facts(load_before)
    write_head(RESULTS_FILE, report(results, started, facts, args.duration, args.sittings))
    print("", *findings(results), f"Written to {RESULTS_FILE.relative_to(ROOT)}", sep="\n")


if __name__ == "__main__":
    main()
