"""The sweep: `studyhall sweep` for cron and the periodic sweep in every worker."""

import asyncio
import threading
from datetime import timedelta

from typer.testing import CliRunner

from app.cli import cli
from app.exams.sweep import Sweeper, sweep_once
from tests.exams.conftest import GRACE, START
from tests.exams.helpers import attempt, start


def test_sweep_once_looks_before_it_writes(seeded, learner):
    attempt_id = start(seeded, learner)
    assert sweep_once(seeded, GRACE, START + timedelta(minutes=10)) == 0
    assert sweep_once(seeded, GRACE, START + timedelta(minutes=11)) == 1
    assert sweep_once(seeded, GRACE, START + timedelta(minutes=12)) == 0
    assert attempt(seeded, attempt_id).status == "expired"


def test_the_command_finalises_attempts_whose_time_ran_out(cli_env, seeded, learner):
    attempt_id = start(seeded, learner, START - timedelta(days=1))
    result = CliRunner().invoke(cli, ["sweep"])
    assert result.exit_code == 0, result.output
    assert "Finalised 1 exam attempt(s)" in result.output
    assert attempt(seeded, attempt_id).status == "expired"
    assert "Finalised 0" in CliRunner().invoke(cli, ["sweep"]).output


def run_loop(main) -> None:  # type: ignore[no-untyped-def]
    """Run a coroutine function in a thread of its own (browser tests keep a loop running here)."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


def test_the_periodic_sweep_runs_until_stopped(seeded, learner):
    attempt_id = start(seeded, learner)

    async def run() -> None:
        sweeper = Sweeper(seeded, 0.02, GRACE, clock=lambda: START + timedelta(hours=1))
        sweeper.start()
        for _ in range(200):
            await asyncio.sleep(0.02)
            if attempt(seeded, attempt_id).status != "open":
                break
        await sweeper.stop()

    run_loop(run)
    assert attempt(seeded, attempt_id).status == "expired"


def test_a_zero_interval_turns_the_sweep_off(seeded):
    async def run() -> None:
        sweeper = Sweeper(seeded, 0, GRACE)
        sweeper.start()
        assert sweeper._task is None
        await sweeper.stop()

    run_loop(run)
