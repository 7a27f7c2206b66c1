"""Helpers shared by the browser tests: axe-core, overflow, accounts and the seed content."""

import re
import uuid
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from playwright.sync_api import Locator, Page, expect

AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21aa", "wcag22aa"]
BLOCKING_IMPACTS = ("serious", "critical")

# The seed content (seed/): one question set and one note, filed under these topics.
PARENT_TOPIC = "Inference Optimization & TensorRT"
TOPIC = "Precision & INT8 calibration"
TOPIC_PATH = "/topics/precision-int8-calibration"
SET_PATH = "/sets/nca-inference-optimization-tensorrt-5"
NOTE = "TensorRT Note (2)"
NOTE_PATH = "/notes/tensorrt-note-2"
MIXED_PRECISION = "Working with Mixed Precision"
REFORMAT_FREE = "Working with Reformat-Free Network I/O Tensors"
SECTIONS = {
    "working-with-mixed-precision": MIXED_PRECISION,
    "working-with-reformat-free-network-i-o-tensors": REFORMAT_FREE,
}
CALIBRATION_STEM = re.compile(r"calibration algorithm is most suitable")
CALIBRATION_RIGHT = "IInt8EntropyCalibrator2"
CALIBRATION_WRONG = "IInt8MinMaxCalibrator"
QUESTION_URL = re.compile(r"/questions/\d+$")
POSITION = re.compile(r"Question (\d+) of (\d+)")


@cache
def _axe_source() -> str:
    return AXE_JS.read_text(encoding="utf-8")


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Run axe-core on the page and return its serious and critical WCAG A/AA violations."""
    if page.evaluate("typeof window.axe") == "undefined":
        # add_script_tag() inserts an inline <script>, which the app's CSP (script-src 'self')
        # refuses; DevTools evaluation is exempt, so the real CSP stays on during the tests.
        page.evaluate(_axe_source())
    results = page.evaluate(
        """tags => axe.run(document, {
            runOnly: {type: 'tag', values: tags},
            resultTypes: ['violations'],
        })""",
        AXE_TAGS,
    )
    return [v for v in results["violations"] if v["impact"] in BLOCKING_IMPACTS]


def _target(node: dict[str, Any]) -> str:
    # A target is a list of selectors, one per iframe or shadow root on the way.
    return " >>> ".join(
        part if isinstance(part, str) else " ".join(part) for part in node["target"]
    )


def describe_violations(where: str, violations: list[dict[str, Any]]) -> str:
    lines = [f"axe-core: {len(violations)} serious or critical violation(s) on {where}:"]
    for violation in violations:
        lines.append(
            f"- {violation['id']} [{violation['impact']}]: {violation['help']}"
            f" ({violation['helpUrl']})"
        )
        for node in violation["nodes"]:
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            lines.append(f"    {_target(node)}: {summary}")
    return "\n".join(lines)


def assert_accessible(page: Page, state: str = "") -> None:
    """Fail when axe-core finds a serious or critical WCAG 2.x A/AA violation."""
    violations = axe_violations(page)
    if violations:
        where = f"{page.url} ({state})" if state else page.url
        pytest.fail(describe_violations(where, violations))


def assert_markup_accessible(page: Page, url: str, html: str, state: str) -> None:
    """Check markup captured from a page where axe cannot run (JavaScript off).

    axe needs timers, which a context without JavaScript never fires, so the markup is
    loaded into `page` (JavaScript on) at the same URL: same styles, same CSP.
    """
    page.goto(url)
    page.set_content(html)
    assert_accessible(page, state)


_OVERFLOWING = """() => {
    const limit = document.documentElement.clientWidth + 0.5;
    const walker = document.createTreeWalker(
        document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node && found.length < 8; node = walker.nextNode()) {
        let box;
        if (node.nodeType === Node.TEXT_NODE) {
            if (!node.textContent.trim()) continue;
            const range = document.createRange();
            range.selectNodeContents(node);
            box = range.getBoundingClientRect();
        } else {
            box = node.getBoundingClientRect();
        }
        if (box.right > limit) {
            const name = node.nodeType === Node.TEXT_NODE
                ? `text "${node.textContent.trim().slice(0, 50)}"`
                : `<${node.tagName.toLowerCase()} class="${node.className}">`;
            found.push(`${name} ends at x=${Math.round(box.right)}`);
        }
    }
    return found;
}"""


def assert_no_horizontal_scroll(page: Page, state: str = "") -> None:
    """Fail when the page is wider than the viewport, naming what sticks out."""
    scroll_width, client_width = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    if scroll_width > client_width:
        culprits = "\n".join(f"    {line}" for line in page.evaluate(_OVERFLOWING))
        where = f"{page.url} ({state})" if state else page.url
        pytest.fail(
            f"{where} scrolls sideways: scrollWidth {scroll_width} > clientWidth "
            f"{client_width}; sticking out:\n{culprits}"
        )


def open_question(page: Page, stem: re.Pattern[str]) -> str:
    """Open the seed set's question whose text matches `stem`; return its URL."""
    page.goto(SET_PATH)
    page.get_by_role("region", name="Questions").get_by_role("link", name=stem).click()
    expect(page).to_have_url(QUESTION_URL)
    expect(page.get_by_role("heading", level=1)).to_have_text(stem)
    return page.url


def key_of(page: Page, choice: str) -> str:
    """The number key that picks `choice` (choices are shown in a per-person order)."""
    labels = page.locator("input[name=choice] + label").all_text_contents()
    index = next(i for i, label in enumerate(labels) if choice in label)
    return str(index + 1)


def choose(page: Page, choice: str) -> None:
    """Pick a choice the way a person does: by clicking its label."""
    page.locator("label").filter(has_text=choice).click()
    expect(page.get_by_role("radio", name=choice)).to_be_checked()


class Account(NamedTuple):
    username: str
    password: str


def unique_username(prefix: str, length: int = 24) -> str:
    """A username no other test uses: `prefix-` and random hex, `length` characters in all."""
    name = f"{prefix}-{uuid.uuid4().hex}{uuid.uuid4().hex}"
    return name[:length]


def new_password() -> str:
    return f"pw-{uuid.uuid4().hex[:20]}"


def nav(page: Page) -> Locator:
    return page.get_by_role("navigation", name="Main")


def flash(page: Page) -> Locator:
    return page.get_by_role("main").get_by_role("status")


def expect_logged_in(page: Page, username: str) -> None:
    """The nav names the account and offers "Log out" instead of "Log in"."""
    menu = nav(page)
    expect(menu.get_by_role("link", name=username, exact=True)).to_have_attribute(
        "href", "/account"
    )
    expect(menu.get_by_role("button", name="Log out")).to_be_visible()
    expect(menu.get_by_role("link", name="Log in")).to_have_count(0)
    expect(menu.get_by_role("link", name="Sign up")).to_have_count(0)


def expect_logged_out(page: Page, username: str) -> None:
    menu = nav(page)
    expect(menu.get_by_role("link", name="Log in")).to_be_visible()
    expect(menu.get_by_role("link", name="Sign up")).to_be_visible()
    expect(menu.get_by_role("button", name="Log out")).to_have_count(0)
    expect(menu.get_by_role("link", name=username, exact=True)).to_have_count(0)


def submit_login(page: Page, username: str, password: str) -> None:
    """Fill and send the log-in form the page shows."""
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("main").get_by_role("button", name="Log in").click()


def log_in(page: Page, account: Account, next_path: str = "/account") -> None:
    """Log in through /login and wait for the page it leads to."""
    page.goto(f"/login?next={next_path}")
    submit_login(page, account.username, account.password)
    expect(page).to_have_url(re.compile(f"{re.escape(next_path)}$"))
    expect_logged_in(page, account.username)
