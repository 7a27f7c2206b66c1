"""Load Studyhall's pages with wrk next to a bare endpoint and write bench/RESULTS.md.

wrk shares the machine's cores with the server, so each figure is read as a ratio to the
bare endpoint measured in the same run: for every connection count, bare is loaded first and
again last, and the pages are compared to the mean of the two.
"""

import argparse
import json
import os
import platform
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

from app.config import PROJECT_ROOT as ROOT
from app.config import Settings
from app.db import Database
from app.importers.service import import_document, seed_files
from app.migrate import upgrade

RESULTS_FILE = ROOT / "bench" / "RESULTS.md"
CONNECTIONS = (1, 8, 32)
BARE_PATH = "/bench/bare"
NOTE_SLUG = "tensorrt-note-2"
TO_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}
WARM_ROUNDS = 50


@dataclass(frozen=True)
class Target:
    name: str
    path: str
    body: str | None = None  # a JSON body makes the request a POST


@dataclass(frozen=True)
class Result:
    target: Target
    connections: int
    rps: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    socket_errors: int


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # wrk would not follow it either, so a redirect counts as a failure


OPENER = urllib.request.build_opener(_NoRedirect)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(description="Benchmark Studyhall's pages with wrk.")
    parser.add_argument("--duration", type=int, default=10, help="seconds per measurement")
    parser.add_argument("--quick", action="store_true", help="3 seconds per measurement")
    args = parser.parse_args(argv)
    if args.quick:
        args.duration = 3
    if args.duration < 1:
        parser.error("--duration must be at least 1 second")
    return args


def prepare_database(folder: Path) -> str:
    """Create, migrate and seed a SQLite database in folder; return its URL."""
    url = f"sqlite:///{folder / 'bench.db'}"
    upgrade(url)
    threshold = Settings(database_url=url).link_threshold
    db = Database(url)
    try:
        for path in seed_files(ROOT / "seed"):
            with db.session_scope(write=True) as session:
                import_document(session, path.read_bytes(), f"seed/{path.name}", threshold)
    finally:
        db.dispose()
    return url


def fetch(url: str, body: str | None = None) -> bytes:
    """GET url (or POST a JSON body to it) and return the body; raise unless it answers 2xx."""
    data = body.encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with OPENER.open(request, timeout=10) as response:
        return response.read()


def free_port() -> int:
    """Pick a port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(port: int) -> list[str]:
    """Return the command that serves the bench app with one uvicorn worker."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "bench.server:create_bench_app",
        "--factory",
        "--port",
        str(port),
        "--no-access-log",
    ]


@contextmanager
def running_server(database_url: str, folder: Path) -> Iterator[str]:
    """Serve the bench app on the database while the block runs; yield its base URL."""
    port = free_port()
    # Only the database is set, so the content cache and the rest keep their defaults.
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYHALL_")}
    env["STUDYHALL_DATABASE_URL"] = database_url
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            server_command(port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            base = f"http://127.0.0.1:{port}"
            wait_healthy(base, process, log_path)
            yield base
        finally:
            process.terminate()
            process.wait(timeout=15)


def wait_healthy(base: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    """Poll /healthz until it answers; stop with the server's log when it never does."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        try:
            fetch(f"{base}/healthz")
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"The server did not become healthy. Its log:\n{log_path.read_text()}")


def discover_targets(base: str) -> list[Target]:
    """List what to load, bare first and last; the question is the first seed question."""
    question_id = json.loads(fetch(f"{base}/api/v1/questions?limit=1"))["items"][0]["id"]
    question = json.loads(fetch(f"{base}/api/v1/questions/{question_id}"))
    body = json.dumps({"choice_ids": [question["choices"][0]["id"]]})
    return [
        Target("bare", BARE_PATH),
        Target("home", "/"),
        Target("note", f"/notes/{NOTE_SLUG}"),
        Target("question", f"/questions/{question_id}"),
        Target("check API", f"/api/v1/questions/{question_id}/check", body),
        Target("bare (again)", BARE_PATH),
    ]


def warm(base: str, targets: list[Target]) -> None:
    """Request every target a few times, so caches and compiled templates are ready."""
    for target in targets:
        try:
            for _ in range(WARM_ROUNDS):
                fetch(base + target.path, target.body)
        except urllib.error.HTTPError as exc:
            sys.exit(f"{target.name} ({target.path}) answered {exc.code}; nothing was measured.")


def post_script(target: Target, folder: Path) -> Path:
    """Write the Lua script that makes wrk send the target's JSON body as a POST."""
    path = folder / f"{target.name.replace(' ', '-')}.lua"
    path.write_text(
        'wrk.method = "POST"\n'
        f"wrk.body = [==[{target.body}]==]\n"
        'wrk.headers["Content-Type"] = "application/json"\n'
    )
    return path


def run_wrk(base: str, target: Target, connections: int, duration: int, folder: Path) -> Result:
    """Load one target with wrk at a connection count and parse its report."""
    # wrk refuses fewer connections than threads.
    threads = min(2, connections)
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency"]
    if target.body is not None:
        command += ["-s", str(post_script(target, folder))]
    command.append(base + target.path)
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
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


def measure(base: str, targets: list[Target], duration: int, folder: Path) -> list[Result]:
    """Load every target at each connection count in turn, reporting progress."""
    results = []
    for connections in CONNECTIONS:
        for target in targets:
            result = run_wrk(base, target, connections, duration, folder)
            print(
                f"  c={connections:<3} {target.name:<13} {result.rps:>8,.0f} req/s"
                f"  p50 {result.p50_ms:6.2f} ms  p99 {result.p99_ms:7.2f} ms",
                flush=True,
            )
            results.append(result)
    return results


def bare_rps(results: list[Result], connections: int) -> float:
    """Return the mean req/s of the bare endpoint at a connection count."""
    bare = [r.rps for r in results if r.connections == connections and r.target.path == BARE_PATH]
    return sum(bare) / len(bare)


def find(results: list[Result], name: str, connections: int) -> Result:
    """Return the result of one target at one connection count."""
    return next(r for r in results if r.target.name == name and r.connections == connections)


def errors_cell(result: Result) -> str:
    """Show the errors of a measurement, in bold when there are any."""
    if not result.non_2xx and not result.socket_errors:
        return "0"
    return f"**{result.non_2xx} non-2xx, {result.socket_errors} socket**"


def table(results: list[Result], connections: int) -> list[str]:
    """Format the results at one connection count as a Markdown table."""
    bare = bare_rps(results, connections)
    lines = [
        f"### {connections} connection{'s' if connections > 1 else ''}",
        "",
        "| target | req/s | ratio to bare | p50 ms | p99 ms | errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in (r for r in results if r.connections == connections):
        lines.append(
            f"| {r.target.name} | {r.rps:,.0f} | {r.rps / bare:.2f} | {r.p50_ms:.2f}"
            f" | {r.p99_ms:.2f} | {errors_cell(r)} |"
        )
    return lines


def checks(results: list[Result]) -> list[tuple[str, bool, str]]:
    """Judge the question page against its targets: (target, met, measured)."""
    at8, at32 = find(results, "question", 8), find(results, "question", 32)
    ratio = at8.rps / bare_rps(results, 8)
    return [
        ("req/s at 8 connections >= 1/5 of bare", ratio >= 0.2, f"{ratio:.2f} of bare"),
        ("p99 at 8 connections < 25 ms", at8.p99_ms < 25, f"{at8.p99_ms:.2f} ms"),
        ("p99 at 32 connections < 100 ms", at32.p99_ms < 100, f"{at32.p99_ms:.2f} ms"),
    ]


def targets_section(results: list[Result]) -> list[str]:
    """State whether the question page met each target in this run, and flag errors."""
    lines = ["## Targets", "", "The question page, from the figures above:", ""]
    for label, met, measured in checks(results):
        lines.append(f"- {'PASS' if met else 'MISS'}: {label} (measured {measured})")
    floor = "; ".join(
        f"{find(results, 'bare', c).p99_ms:.2f} and {find(results, 'bare (again)', c).p99_ms:.2f}"
        f" ms at {c} connections"
        for c in (8, 32)
    )
    lines += ["", f"The floor the machine set in this run, bare's p99: {floor}."]
    failed = [r for r in results if r.non_2xx or r.socket_errors]
    lines.append("")
    if failed:
        names = ", ".join(f"{r.target.name} at {r.connections}" for r in failed)
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
    """Name the commit measured, and say when the work tree differs from it."""
    command = ["git", "describe", "--always", "--dirty=, with uncommitted changes"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "unknown (not a git work tree)"


def machine_facts(load_before: tuple[float, ...]) -> list[str]:
    """Describe the machine, the server and the load around the run."""
    load = " / ".join(f"{n:.2f}" for n in load_before)
    load_after = " / ".join(f"{n:.2f}" for n in os.getloadavg())
    return [
        f"- Code: {code_revision()}",
        f"- CPUs (nproc): {len(os.sched_getaffinity(0))}",
        f"- CPU model: {cpu_model()}",
        f"- Python: {platform.python_version()}",
        f"- Server: uvicorn {version('uvicorn')}, 1 worker, access log off;"
        f" FastAPI {version('fastapi')}, Starlette {version('starlette')}",
        "- Database: SQLite (a fresh temporary file with the seed content);"
        " content cache at its default settings",
        f"- Load generator: {wrk_version()}, on the same machine",
        f"- Load average (1/5/15 min): {load} before, {load_after} after",
    ]


def command_line() -> str:
    """Return the command that ran this script, relative to the project root when it can."""
    python = Path(sys.executable)
    if python.is_relative_to(ROOT):
        python = python.relative_to(ROOT)
    return shlex.join([str(python), "bench/run.py", *sys.argv[1:]])


def report(results: list[Result], started: datetime, facts: list[str], duration: int) -> str:
    """Compose RESULTS.md."""
    lines = [
        "# Benchmark results",
        "",
        "Generated by `bench/run.py` (`make bench`); rerun it rather than editing this file.",
        "",
        f"- Date (UTC): {started:%Y-%m-%d %H:%M}",
        f"- Command: `{command_line()}`",
        *facts,
        "",
        f"Each row is one `wrk -t2 -cN -d{duration}s --latency URL` (`-t1` for one connection).",
        "wrk runs on the same cores as the server, so read the ratios rather than the absolute",
        "figures. Bare (`GET /bench/bare`, an `async def` constant behind the same middleware) is",
        "loaded first and last at each connection count; ratios are to the mean of the two.",
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
        with running_server(database_url, folder) as base:
            targets = discover_targets(base)
            warm(base, targets)
            print(f"Loading each target for {args.duration} s per connection count", flush=True)
            results = measure(base, targets, args.duration, folder)
    RESULTS_FILE.write_text(report(results, started, machine_facts(load_before), args.duration))
    print("", *findings(results), f"Written to {RESULTS_FILE.relative_to(ROOT)}", sep="\n")


if __name__ == "__main__":
    main()
