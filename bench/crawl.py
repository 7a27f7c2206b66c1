"""Crawl a running Studyhall in Chromium and list each page's axe-core violations.

    python bench/crawl.py [--url http://127.0.0.1:8000] [--max-pages 400]
                          [--learner NAME:PASSWORD] [--admin NAME:PASSWORD] [--json FILE]

As a guest, and as each account given, follow the same-site links from `/` (and from the
pages every role should reach: /progress, /review, /exams, /search?q=tensorrt, ...), at most
`--per-pattern` pages of one shape (/questions/{id}, /notes/{slug}?...) and `--max-pages` in
all. On each page run axe-core (tests/e2e/vendor/axe.min.js, the tags the end-to-end tests
check) and keep its serious and critical violations, and the console errors. The learner
also answers every other question page it opens (the page is checked again with its
feedback) and starts, answers and submits an exam: its question, summary and result pages.
Prints a table of page by violations; `--json` writes the findings too.

Needs Playwright and Debian's Chromium (/usr/bin/chromium), as the end-to-end tests do.
"""

import argparse
import json
import re
import sys
from collections import Counter, deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlsplit

from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
AXE_JS = ROOT / "tests" / "e2e" / "vendor" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21aa", "wcag22aa"]
BLOCKING_IMPACTS = ("serious", "critical")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Visited whether or not a link leads there (some are reached by forms only).
START_PATHS = [
    "/",
    "/topics",
    "/notes",
    "/sets",
    "/exams",
    "/progress",
    "/review",
    "/study",
    "/search?q=tensorrt",
    "/account",
    "/author/reports",
    "/admin/users",
]
# Not pages: files, the API, and what a link there would do to the session.
SKIPPED = re.compile(
    r"^/(static/|api/|account/export|logout|healthz|metrics|openapi|docs|redoc)|\.(apkg|csv|xml|json|zip)$"
)
NUMBER = re.compile(r"/\d+(?=/|$)")
SLUG = re.compile(r"^/(notes|topics|sets)/[^/?]+")


@dataclass
class Finding:
    role: str
    url: str
    state: str = ""
    status: int = 0
    violations: dict[str, int] = field(default_factory=dict)  # rule -> nodes
    impacts: dict[str, str] = field(default_factory=dict)  # rule -> impact
    targets: dict[str, list[str]] = field(default_factory=dict)  # rule -> first selectors
    console: list[str] = field(default_factory=list)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Crawl Studyhall and report axe-core findings.")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the running server")
    parser.add_argument("--max-pages", type=int, default=400, help="pages per role at most")
    parser.add_argument("--per-pattern", type=int, default=50, help="pages of one shape at most")
    parser.add_argument("--learner", help="NAME:PASSWORD of a learner account to crawl as")
    parser.add_argument("--admin", help="NAME:PASSWORD of an admin account to crawl as")
    parser.add_argument("--roles", default="guest,learner,admin", help="roles to crawl as")
    parser.add_argument("--json", type=Path, help="also write the findings to this file")
    return parser.parse_args(argv)


def pattern(path: str) -> str:
    """The shape of a page: ids and slugs replaced, the query's names kept."""
    base, _, query = path.partition("?")
    shape = NUMBER.sub("/{id}", SLUG.sub(r"/\1/{slug}", base))
    names = sorted({part.split("=")[0] for part in query.split("&") if part})
    return shape + ("?" + "&".join(names) if names else "")


def check(page: Page, finding: Finding) -> None:
    """Run axe-core on the page and keep its serious and critical violations."""
    if page.evaluate("typeof window.axe") == "undefined":
        # evaluated rather than added as a <script>: the app's CSP refuses inline scripts
        page.evaluate(AXE_JS.read_text(encoding="utf-8"))
    results = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags},"
        " resultTypes: ['violations']})",
        AXE_TAGS,
    )
    for violation in results["violations"]:
        if violation["impact"] in BLOCKING_IMPACTS:
            rule = violation["id"]
            finding.violations[rule] = len(violation["nodes"])
            finding.impacts[rule] = violation["impact"]
            finding.targets[rule] = [
                " ".join(map(str, node["target"])) for node in violation["nodes"][:3]
            ]


def same_site_links(page: Page, base: str) -> list[str]:
    hrefs: list[str] = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    origin = urlsplit(base).netloc
    found = []
    for href in hrefs:
        url = urldefrag(href)[0]
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc == origin:
            # /login?next=X is the same page whatever X is
            query = "&".join(q for q in parts.query.split("&") if q and not q.startswith("next="))
            path = parts.path + (f"?{query}" if query else "")
            if not SKIPPED.search(parts.path):
                found.append(path)
    return found


def keep_error(console: list[str], message: ConsoleMessage) -> None:
    if message.type == "error":
        console.append(message.text)


def log_in(page: Page, base: str, credentials: str) -> None:
    name, _, password = credentials.partition(":")
    page.goto(urljoin(base, "/login?next=/account"))
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("main").get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/account$"))


def visit(page: Page, base: str, path: str, role: str, console: list[str]) -> Finding | None:
    console.clear()
    response = page.goto(urljoin(base, path))
    if response is None or "text/html" not in response.headers.get("content-type", ""):
        return None
    finding = Finding(role, path, status=response.status)
    check(page, finding)
    finding.console = list(console)
    return finding


def answer(page: Page, role: str, path: str, console: list[str]) -> Finding | None:
    """Pick the first choice of the question page open and check the page with its feedback."""
    choice = page.locator("input[name=choice]")
    if not choice.count():
        return None
    console.clear()
    choice.first.check()
    # htmx swaps the feedback in (without JavaScript the form posts and the page reloads)
    page.get_by_role("button", name="Check answer").click()
    page.locator("#result-heading").wait_for()
    finding = Finding(role, path, state="answered", status=200)
    check(page, finding)
    finding.console = list(console)
    return finding


def sit_exam(page: Page, base: str, role: str, console: list[str]) -> list[Finding]:
    """Start the first exam, answer its first question, and check question, summary, result."""
    findings: list[Finding] = []
    page.goto(urljoin(base, "/exams"))
    start = page.get_by_role("button", name=re.compile(r"^(Start|Resume) "))
    if not start.count():
        return findings

    def record(state: str) -> None:
        finding = Finding(role, urlsplit(page.url).path, state=state, status=200)
        check(page, finding)
        finding.console = list(console)
        findings.append(finding)
        console.clear()

    console.clear()
    with page.expect_navigation():
        start.first.click()
    record("exam question")
    choice = page.locator("input[name=choice]")
    if choice.count():
        choice.first.check()
        record("exam question, answered")
    with page.expect_navigation():
        page.get_by_role("link", name="Review and submit").click()
    record("exam summary")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit the exam").click()
    record("exam result")
    return findings


def crawl(
    browser: Browser, args: argparse.Namespace, role: str, credentials: str | None
) -> list[Finding]:
    context = browser.new_context()
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: keep_error(console, message))
    page.on("pageerror", lambda error: console.append(f"uncaught: {error}"))
    if credentials:
        log_in(page, args.url, credentials)
    findings: list[Finding] = []
    if role == "learner":
        findings += sit_exam(page, args.url, role, console)
    queue = deque(START_PATHS)
    seen = set(queue)
    shapes: Counter[str] = Counter()
    answered = 0
    while queue and len(findings) < args.max_pages:
        path = queue.popleft()
        try:
            finding = visit(page, args.url, path, role, console)
        except Exception as error:  # a page that does not load is a finding too
            findings.append(Finding(role, path, state="failed", console=[str(error)]))
            continue
        if finding is None:
            continue
        findings.append(finding)
        print(f"{role:8} {finding.status} {path}", file=sys.stderr)
        if role == "learner" and pattern(path) == "/questions/{id}" and answered % 2 == 0:
            answered += 1
            if extra := answer(page, role, path, console):
                findings.append(extra)
        elif pattern(path) == "/questions/{id}":
            answered += 1
        for link in same_site_links(page, args.url):
            if link not in seen and shapes[pattern(link)] < args.per_pattern:
                seen.add(link)
                shapes[pattern(link)] += 1
                queue.append(link)
    context.close()
    return findings


def table(findings: list[Finding]) -> str:
    rules = sorted({rule for f in findings for rule in f.violations})
    lines = [" | ".join(["role", "page", "status", *rules, "console errors"])]
    lines.append(" | ".join(["---"] * (len(rules) + 4)))
    for f in findings:
        if not f.violations and not f.console and f.status < 400:
            continue
        page = f.url + (f" ({f.state})" if f.state else "")
        counts = [str(f.violations.get(rule, "")) for rule in rules]
        lines.append(" | ".join([f.role, page, str(f.status), *counts, str(len(f.console))]))
    return "\n".join(lines)


def summary(findings: list[Finding]) -> str:
    lines = []
    for role, pages in Counter(f.role for f in findings).items():
        mine = [f for f in findings if f.role == role]
        bad = sum(1 for f in mine if f.violations)
        errors = sum(len(f.console) for f in mine)
        lines.append(f"{role}: {pages} pages, {bad} with violations, {errors} console errors")
    by_rule: Counter[str] = Counter()
    for f in findings:
        by_rule.update(dict.fromkeys(f.violations, 1))
    for rule, pages in by_rule.most_common():
        lines.append(f"  {rule}: on {pages} pages")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    findings: list[Finding] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        accounts = {"guest": None, "learner": args.learner, "admin": args.admin}
        for role in args.roles.split(","):
            if role == "guest" or accounts[role]:
                findings += crawl(browser, args, role, accounts[role])
        browser.close()
    print(table(findings))
    print()
    print(summary(findings))
    if args.json:
        args.json.write_text(json.dumps([asdict(f) for f in findings], indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
