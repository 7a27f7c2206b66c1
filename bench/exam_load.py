"""Exam day, as Locust plays it: each simulated learner sits the exam once, as a browser does.

A learner logs in through the form, starts the exam, and for every question waits its think
time, saves one choice the way htmx does (one of the saves also ticks "flag for review"),
then opens the next question; last, the summary, the submit and the result. Each learner
keeps a ledger of the saves the server acknowledged with a 2xx, and of the attempt it
submitted; bench/exam_day.py compares the ledger with the database afterwards. The run
ends when every learner is through.

Run by bench/exam_day.py (`make bench-exam-day`), which prepares the database, the learners
and the server and passes the options below.
"""

import json
import random
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import gevent
from locust import events, task
from locust.contrib.fasthttp import FastHttpUser
from locust.env import Environment
from locust.exception import StopUser

CHOICE = re.compile(r'name="choice" id="choice-\d+" value="(\d+)"')
ATTEMPT = re.compile(r"^/attempts/(\d+)$")
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
HTMX = {**FORM, "HX-Request": "true"}

# What every learner acknowledged, written to --ledger when Locust quits.
LEDGER: dict[str, list[Any]] = {
    "saves": [],
    "started": [],
    "submitted": [],
    "gave_up": [],
    "failures": [],
}
_seats = iter(range(1, 1_000_000))
_through = 0


@events.init_command_line_parser.add_listener
def _options(parser: Any) -> None:
    parser.add_argument("--learner-prefix", default="examday", help="Learners are PREFIX-0001...")
    parser.add_argument("--learner-count", type=int, default=500, help="Learners to seat")
    parser.add_argument("--learner-password", default="", help="Every learner's password")
    parser.add_argument("--exam", default="tensorrt-practice-exam", help="Slug of the exam")
    parser.add_argument("--think", type=float, default=2.0, help="Seconds before each answer")
    parser.add_argument("--ledger", default="", help="Where to write what was acknowledged")


@events.quitting.add_listener
def _write_ledger(environment: Environment, **_: Any) -> None:
    path = environment.parsed_options.ledger if environment.parsed_options else ""
    if path:
        Path(path).write_text(json.dumps(LEDGER))


def _form(fields: dict[str, str]) -> str:
    return urlencode(fields)


class Learner(FastHttpUser):
    """One learner sitting the exam once."""

    def on_start(self) -> None:
        options = self.environment.parsed_options
        assert options is not None
        self.options = options
        self.seat = next(_seats)
        self.username = f"{options.learner_prefix}-{self.seat:04d}"

    @task
    def sit_the_exam(self) -> None:
        """Log in, answer every question, flag one, submit; then leave for good."""
        if self.seat > self.options.learner_count:  # every seat is taken
            raise StopUser()
        try:
            self._sit()
        finally:
            self._leave()
        raise StopUser()

    def _sit(self) -> None:
        credentials = {"username": self.username, "password": self.options.learner_password}
        if self._post("/login", "log in", {**credentials, "next": "/exams"}) is None:
            self._give_up("logging in failed")
            return
        self._get("/exams", "exams")
        started = self._post(f"/exams/{self.options.exam}/start", "start", {})
        attempt = ATTEMPT.search(started or "")
        question = self._redirect(started, "open") if started else None
        if attempt is None or question is None:
            self._give_up(f"starting led to {started!r}, then {question!r}")
            return
        LEDGER["started"].append({"learner": self.username, "attempt": int(attempt.group(1))})
        self._answer_all(int(attempt.group(1)), question)

    def _answer_all(self, attempt_id: int, first: str) -> None:
        page = self._get(first, "page")
        found = re.search(r"Question 1 of (\d+)", page or "")
        if found is None:
            self._give_up("the first question did not show")
            return
        count = int(found.group(1))
        flagged_at = random.randint(1, count)
        for position in range(1, count + 1):
            choices = CHOICE.findall(page or "")
            if not choices:
                self._give_up(f"question {position} showed no choices")
                return
            time.sleep(self.options.think)
            choice = random.choice(choices)
            if not self._save(attempt_id, position, int(choice), position == flagged_at):
                return
            if position < count:
                page = self._get(f"/attempts/{attempt_id}/questions/{position + 1}", "page")
        self._get(f"/attempts/{attempt_id}/summary", "summary")
        if self._post(f"/attempts/{attempt_id}/submit", "submit", {}) is not None:
            LEDGER["submitted"].append({"learner": self.username, "attempt": attempt_id})
            self._get(f"/attempts/{attempt_id}", "result")

    def _save(self, attempt_id: int, position: int, choice: int, flag: bool) -> bool:
        """Save one choice as htmx does; note it in the ledger once the server says so."""
        fields = {"choice": str(choice), **({"flagged": "1"} if flag else {})}
        path = f"/attempts/{attempt_id}/questions/{position}"
        with self.client.post(
            path, name="save", data=_form(fields), headers=HTMX, catch_response=True
        ) as response:
            if response.status_code != 200 or "Saved." not in (response.text or ""):
                self._failed(response, f"save answered {response.status_code}")
                return False
            saved = {"attempt": attempt_id, "position": position, "choice_ids": [choice]}
            LEDGER["saves"].append({**saved, "flagged": flag, "learner": self.username})
        return True

    def _get(self, path: str, name: str) -> str | None:
        with self.client.get(path, name=name, catch_response=True) as response:
            if response.status_code != 200:
                self._failed(response, f"{name} answered {response.status_code}")
                return None
            return response.text

    def _post(self, path: str, name: str, fields: dict[str, str]) -> str | None:
        """POST a form as a browser would; return where the 303 points (None: it failed)."""
        with self.client.post(
            path,
            name=name,
            data=_form(fields),
            headers=FORM,
            allow_redirects=False,
            catch_response=True,
        ) as response:
            if response.status_code != 303:
                self._failed(response, f"{name} answered {response.status_code}")
                return None
            return str(response.headers.get("location", ""))

    def _redirect(self, path: str, name: str) -> str | None:
        """GET a page that redirects, as a browser does before following it."""
        with self.client.get(
            path, name=name, allow_redirects=False, catch_response=True
        ) as response:
            if response.status_code != 303:
                self._failed(response, f"{name} answered {response.status_code}")
                return None
            return str(response.headers.get("location", ""))

    def _failed(self, response: Any, message: str) -> None:
        """Count a request as failed, in Locust's figures and in the ledger."""
        response.failure(message)
        LEDGER["failures"].append(f"{self.username}: {message}")

    def _give_up(self, reason: str) -> None:
        LEDGER["gave_up"].append({"learner": self.username, "reason": reason})

    def _leave(self) -> None:
        """Count this learner through; the last one ends the run."""
        global _through
        _through += 1
        runner = self.environment.runner
        if _through >= self.options.learner_count and runner is not None:
            gevent.spawn_later(0.1, runner.quit)
