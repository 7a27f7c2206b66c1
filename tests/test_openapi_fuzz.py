"""Schemathesis over /openapi.json, served by `studyhall serve`: no server error, and every
answer (status, content type, body) is the one the document describes.

It runs where CI runs it, against PostgreSQL; anonymous and with a learner's API token, at
least `CASES` test cases each (the count schemathesis reports is checked, so it cannot shrink
unseen): 15,000 or more together.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.accounts.service import create_api_token, viewer
from tests.conftest import PG_URL
from tests.servers import server_env, serving

CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
        "response_headers_conformance",
        "unsupported_method",
        "allow_header_conformance",
    ]
)

CASES = 7_500  # each run's least; both together make 15,000
EXAMPLES = "110"  # fuzzed cases an operation at most; the coverage phase adds its own
pytestmark = pytest.mark.skipif(
    not PG_URL, reason="runs against PostgreSQL (set STUDYHALL_TEST_DATABASE_URL), as CI does"
)


@pytest.fixture
def api(seeded, make_user, db_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The seeded site served for real, and a learner's API token."""
    user = make_user("learner")
    with seeded.session_scope(write=True) as session:
        _, token = create_api_token(session, viewer(user), "schemathesis", scope="practise")
    log = tmp_path / "server.log"
    with serving(server_env(db_url), log) as url:
        yield url, token, log


@pytest.mark.parametrize("who", ["anonymous", "learner"])
def test_every_answer_is_the_documented_one(api, who, tmp_path):
    url, token, log = api
    headers = ["-H", f"Authorization: Bearer {token}"] if who == "learner" else []
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "run",
        f"{url}/openapi.json",
        "--checks",
        CHECKS,
        "--phases",
        "examples,coverage,fuzzing",
        "--max-examples",
        EXAMPLES,
        "--seed",
        "1",
        "--workers",
        "1",  # the generator's caches are not thread-safe
        "--generation-database",
        "none",
        "--no-color",
        *headers,
    ]
    done = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stdout[-20_000:] + done.stderr[-5_000:]
    assert "Traceback" not in log.read_text()
    cases = re.search(r"Test cases:\s+(\d+) generated", done.stdout)
    assert cases is not None, done.stdout[-5_000:]
    assert int(cases.group(1)) >= CASES, done.stdout[-5_000:]
