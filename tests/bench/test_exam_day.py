"""Exam day end to end: the locustfile's journey against a real `studyhall serve`."""

import json
import os
import subprocess
import sys

from tests.servers import PROJECT_ROOT


def test_a_few_learners_sit_the_exam_end_to_end(tmp_path):
    """The locustfile's journey against a real `studyhall serve`: five learners, short
    thinking; every save acknowledged is stored and every attempt submitted once."""
    command = [sys.executable, str(PROJECT_ROOT / "bench" / "exam_day.py")]
    options = ["--learners", "5", "--spawn-rate", "5", "--think", "0.1", "--max-seconds", "60"]
    options += ["--sittings", "2"]
    done = subprocess.run(
        [*command, *options, "--no-write", "--keep", str(tmp_path)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if not k.startswith("STUDYHALL_")},
    )
    assert done.returncode == 0, done.stderr
    report = done.stdout
    assert "| acknowledged saves lost | 0 of 25 / 0 of 25 | 0 | PASS |" in report, report
    assert "| learners who submitted | 5 of 5 / 5 of 5 | 5 | PASS |" in report, report
    assert "| attempts not finalised exactly once | 0 / 0 | 0 | PASS |" in report, report
    assert "| failed requests | 0 of " in report, report
    assert json.loads((tmp_path / "sitting-2" / "ledger.json").read_text())["gave_up"] == []
