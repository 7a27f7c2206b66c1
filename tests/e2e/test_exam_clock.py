"""The exam clock in the browser: warnings at 5 and 1 minutes left, the exam submitted at zero,
a save in the grace saying it came late, and the time in view on a phone.

Both clocks are the tests' own: the server runs in this process with `app.state.exam_clock`
set, and the page's timers run on Playwright's clock, so no test waits for time to pass.
"""

import re
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Browser, Locator, Page, expect

from app.db import Database, utcnow
from tests.e2e.support import Account, assert_accessible, log_in
from tests.exams.helpers import attempt, items
from tests.factories import PASSWORD
from tests.servers import free_port

EXAM = "TensorRT practice exam"  # 7 questions, 10 minutes
QUESTION_URL = re.compile(r"/attempts/(\d+)/questions/\d+$")
TIME_RAN_OUT = "Time ran out, so the exam was submitted with the answers you had saved."


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class Served:
    def __init__(self, url: str, clock: Clock, db: Database, account: Account) -> None:
        self.url, self.clock, self.db, self.account = url, clock, db, account
        self.started = clock.now

    def at(self, seconds: float) -> None:
        """Set the server's clock to `seconds` after the exam started."""
        self.clock.now = self.started + timedelta(seconds=seconds)


@pytest.fixture
def served(app: Any, seeded: Database, make_user: Callable[..., Any]) -> Iterator[Served]:
    """The app with a clock of the test's own, served over HTTP from a thread."""
    clock = Clock(utcnow().replace(microsecond=0))
    app.state.exam_clock = clock
    make_user("clock-learner")
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while thread.is_alive() and not server.started:
        time.sleep(0.05)
    assert server.started, "the test server did not start"
    try:
        yield Served(f"http://127.0.0.1:{port}", clock, seeded, Account("clock-learner", PASSWORD))
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def open_page(browser: Browser, served: Served, **options: Any) -> Page:
    context = browser.new_context(base_url=served.url, **options)
    return context.new_page()


def expect_readable(message: Locator) -> None:
    """Shown on the screen for everyone, not only read out: a box of a line of text or more."""
    expect(message).to_be_visible()
    box = message.bounding_box()
    assert box is not None and box["width"] >= 100 and box["height"] >= 16, box


def start_exam(page: Page, served: Served) -> int:
    """Log in, start the exam on the server's clock; return the attempt's id."""
    log_in(page, served.account, next_path="/exams")
    served.at(0)
    page.get_by_role("button", name=f"Start {EXAM}").click()
    expect(page).to_have_url(QUESTION_URL)
    match = QUESTION_URL.search(page.url)
    assert match is not None
    return int(match.group(1))


def test_the_clock_warns_at_5_and_1_minutes_and_submits_the_exam_at_zero(
    browser: Browser, served: Served
) -> None:
    page = open_page(browser, served)
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.clock.install()
    attempt_id = start_exam(page, served)
    timer, message = page.get_by_role("timer"), page.locator("[data-countdown-announce]")
    # The page's clock keeps running between steps: on a busy machine a few seconds go by.
    expect(timer).to_have_text(re.compile(r"^(10:00|9:[45]\d)$"))
    expect(message).to_be_empty()
    page.locator("input[name=choice] + label").first.click()
    expect(page.locator("#exam-status").get_by_role("status")).to_have_text("Saved.")

    served.at(5 * 60)
    page.clock.fast_forward("05:00")
    expect(timer).to_have_text(re.compile(r"^(5:00|4:[45]\d)$"))
    expect(message).to_have_text("5 minutes left.")
    expect_readable(message)

    served.at(9 * 60)
    page.clock.fast_forward("04:00")
    expect(timer).to_have_text(re.compile(r"^(1:00|0:[45]\d)$"))
    expect(message).to_have_text("1 minute left.")
    expect_readable(message)
    assert_accessible(page, "exam question, 1 minute left")

    served.at(10 * 60 + 1)
    page.clock.fast_forward("01:00")
    expect(timer).to_have_text("0:00")
    expect(message).to_have_text("Time is up. Submitting your exam…")
    page.clock.run_for(1000)
    expect(page).to_have_url(re.compile(rf"/attempts/{attempt_id}\?timeup=1$"))
    expect(page.get_by_role("alert")).to_have_text(TIME_RAN_OUT)
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"Passed|Not passed"))
    assert attempt(served.db, attempt_id).status == "submitted"
    assert items(served.db, attempt_id)[0].selected_ids != []
    assert errors == []


def test_a_save_in_the_grace_says_it_came_after_the_time(browser: Browser, served: Served) -> None:
    page = open_page(browser, served)
    start_exam(page, served)
    served.at(10 * 60 + 5)  # past the deadline, inside the 30 s grace
    page.locator("input[name=choice] + label").first.click()
    expect(page.locator("#exam-status").get_by_role("status")).to_have_text(
        "Saved after the time ran out; it counts."
    )


def test_without_javascript_the_next_page_after_the_time_is_the_result(
    browser: Browser, served: Served
) -> None:
    page = open_page(browser, served, java_script_enabled=False)
    attempt_id = start_exam(page, served)
    served.at(10 * 60 + 31)  # the deadline and its grace are over
    page.get_by_role("navigation", name="Questions of this exam").get_by_role(
        "button", name=re.compile(r"^2\s*,")
    ).click()
    expect(page).to_have_url(re.compile(rf"/attempts/{attempt_id}\?timeup=1$"))
    expect(page.get_by_role("alert")).to_have_text(TIME_RAN_OUT)
    assert attempt(served.db, attempt_id).status == "expired"


def test_the_time_stays_in_view_on_a_phone(browser: Browser, served: Served) -> None:
    page = open_page(browser, served, viewport={"width": 390, "height": 844})
    start_exam(page, served)
    bar = page.locator(".exam-bar")
    timer = page.get_by_role("timer")
    height = bar.evaluate("bar => bar.getBoundingClientRect().height")
    assert height <= 72, f"the exam bar takes {height} px of the phone's 844"
    save = page.get_by_role("button", name="Save and next")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    expect(save).to_be_in_viewport()
    box, button = timer.bounding_box(), save.bounding_box()
    assert box is not None and button is not None
    assert 0 <= box["y"] and box["y"] + box["height"] <= 844, f"the timer is at {box}"
    bar_bottom = bar.evaluate("bar => bar.getBoundingClientRect().bottom")
    assert button["y"] >= bar_bottom, "the bar covers the Save and next button"
