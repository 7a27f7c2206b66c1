"""The item statistics benchmark on a tiny size, so it keeps running as the code changes."""

import os
import subprocess
import sys

from tests.servers import PROJECT_ROOT


def test_the_item_statistics_bench_counts_every_answer_it_builds():
    command = [sys.executable, str(PROJECT_ROOT / "bench" / "item_stats.py")]
    options = ["--answers", "3000", "--questions", "25", "--runs", "2", "--no-write"]
    done = subprocess.run(
        [*command, *options],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if not k.startswith("STUDYHALL_")},
    )
    assert done.returncode == 0, done.stderr
    assert "| 3,000 | 25 | " in done.stdout, done.stdout
    assert "Written to" not in done.stdout
