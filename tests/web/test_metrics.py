"""/metrics: who may read it, what the application counts, and several workers adding up."""

import os
import subprocess
import sys
import urllib.request

import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from app.accounts.service import create_api_token, viewer
from app.cli import cli
from app.config import Settings
from app.main import create_app
from app.web.metrics import MULTIPROC_DIR, UNMATCHED, exposition
from tests.conftest import PG_URL
from tests.exams.conftest import EXAM
from tests.exams.helpers import items, right_and_wrong
from tests.factories import choice_ids, question_id
from tests.servers import PROJECT_ROOT, server_env, server_process

DURATION = "studyhall_http_request_duration_seconds_count"
ANSWERS = "studyhall_answers_saved_total"
QA = "Metered — Questions and Answers\nQuestion 1: Which?\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample in a scrape (0 when it is not there yet)."""
    for family in text_string_to_metric_families(text):
        for found in family.samples:
            if found.name == name and found.labels == labels:
                return found.value
    return 0.0


def _app(settings: Settings, **changes: object) -> TestClient:
    return TestClient(create_app(settings.model_copy(update=changes)))


@pytest.fixture
def public(settings: Settings):  # type: ignore[no-untyped-def]
    with _app(settings, metrics="public") as client:
        yield client


@pytest.fixture
def admin(user_client) -> TestClient:  # type: ignore[no-untyped-def]
    return user_client("root", role="admin")


def scrape(client: TestClient) -> str:
    response = client.get("/metrics")
    assert response.status_code == 200
    return response.text


def test_metrics_off_is_not_found(settings):
    with _app(settings, metrics="off") as client:
        assert client.get("/metrics").status_code == 404


def test_public_metrics_need_no_log_in(public):
    response = public.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert "# TYPE studyhall_http_request_duration_seconds histogram" in response.text


@pytest.mark.parametrize(
    ("role", "status"), [(None, 401), ("learner", 403), ("author", 403), ("admin", 200)]
)
def test_admin_metrics_by_session(client, user_client, role, status):
    asker = user_client("someone", role=role) if role else client
    response = asker.get("/metrics", follow_redirects=False)
    assert response.status_code == status
    if status == 401:
        assert response.headers["www-authenticate"] == "Bearer" and response.json()["detail"]


@pytest.mark.parametrize(
    ("role", "scope", "status"),
    [("learner", "practise", 403), ("admin", "practise", 403), ("admin", "admin", 200)],
)
def test_admin_metrics_by_api_token(client, make_user, db, role, scope, status):
    user = make_user("scraper", role=role)
    with db.session_scope(write=True) as session:
        _, token = create_api_token(session, viewer(user), "prometheus", scope=scope)
    response = client.get("/metrics", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == status


def test_a_revoked_or_made_up_token_is_refused(client):
    response = client.get("/metrics", headers={"Authorization": "Bearer shpat_nothing"})
    assert response.status_code == 401


def test_a_learners_practice_answer_counts_once(seeded, user_client, admin, client):
    ann = user_client("ann")
    qid = question_id(seeded, "1")
    right, _ = choice_ids(seeded, "1")
    before = sample(scrape(admin), ANSWERS, source="practice")
    assert ann.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]}).is_success
    assert sample(scrape(admin), ANSWERS, source="practice") == before + 1
    assert client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]}).is_success
    answered = ann.post(f"/questions/{qid}", data={"choice": [str(right)]}, follow_redirects=False)
    assert answered.status_code == 303
    assert sample(scrape(admin), ANSWERS, source="practice") == before + 2  # not the guest's


def test_exam_saves_count_and_open_attempts_are_counted(seeded, user_client, admin):
    ann = user_client("ann")
    before = scrape(admin)
    assert sample(before, "studyhall_open_attempts") == 0
    started = ann.post(f"/exams/{EXAM}/start", follow_redirects=False)
    attempt_id = int(started.headers["location"].rsplit("/", 1)[1])
    assert sample(scrape(admin), "studyhall_open_attempts") == 1
    first, second = (right_and_wrong(item)[0] for item in items(seeded, attempt_id)[:2])
    saved = ann.put(
        f"/api/v1/attempts/{attempt_id}/questions/1/answer", json={"choice_ids": [first]}
    )
    assert saved.is_success
    page = f"/attempts/{attempt_id}/questions/2"
    assert ann.post(page, data={"choice": [str(second)]}, follow_redirects=False).is_redirect
    assert ann.post(page, data={"go": "next"}, follow_redirects=False).is_redirect  # no choice
    after = scrape(admin)
    assert sample(after, ANSWERS, source="exam") == sample(before, ANSWERS, source="exam") + 2
    ann.post(f"/attempts/{attempt_id}/submit", follow_redirects=False)
    assert sample(scrape(admin), "studyhall_open_attempts") == 0


def test_durations_are_labelled_by_route_template_never_the_path(seeded, public):
    qid = question_id(seeded, "1")
    labels = {"method": "GET", "route": "/questions/{question_id}", "status": "200"}
    missing = {"method": "GET", "route": UNMATCHED, "status": "404"}
    before = scrape(public)
    public.get(f"/questions/{qid}")
    public.head(f"/questions/{qid}")  # answered as GET, and counted so
    public.get("/no/such/page")
    after = scrape(public)
    assert sample(after, DURATION, **labels) == sample(before, DURATION, **labels) + 2
    assert sample(after, DURATION, **missing) == sample(before, DURATION, **missing) + 1
    routes = {
        found.labels.get("route")
        for family in text_string_to_metric_families(after)
        for found in family.samples
    }
    assert f"/questions/{qid}" not in routes and "/no/such/page" not in routes


def test_content_cache_hits_and_misses_are_counted(seeded, settings):
    qid = question_id(seeded, "1")
    labels = {"cache": "content"}
    with _app(settings, metrics="public", content_cache_seconds=60) as client:
        before = scrape(client)
        client.get(f"/questions/{qid}")
        client.get(f"/questions/{qid}")
        after = scrape(client)
    name = "studyhall_content_cache_requests_total"
    assert sample(after, name, **labels, result="hit") > sample(
        before, name, **labels, result="hit"
    )
    assert sample(after, name, **labels, result="miss") > sample(
        before, name, **labels, result="miss"
    )


def test_database_errors_are_counted_and_metrics_still_answer(tmp_path):
    """A database without tables: the page is a 500, and the gauge reading it is left out."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'empty.db'}", metrics="public")
    name, kind = "studyhall_database_errors_total", {"kind": "OperationalError"}
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        before = scrape(client)
        assert client.get("/api/v1/topics").status_code == 500
        after = scrape(client)
    assert sample(after, name, **kind) == sample(before, name, **kind) + 1
    assert "studyhall_open_attempts" not in after


def test_web_and_command_line_imports_are_counted(user_client, admin, cli_env, tmp_path):
    name = "studyhall_imports_total"
    author = user_client("writer", role="author")
    before = scrape(admin)
    upload = {"document": ("m.txt", QA.encode(), "text/plain")}
    assert author.post("/author/import", files=upload, data={"format": ""}).status_code == 200
    bad = {"document": ("m.txt", QA.replace("- b", "- b (Correct answer)").encode(), "text/plain")}
    assert author.post("/author/import", files=bad, data={"format": ""}).status_code == 422
    after = scrape(admin)
    assert sample(after, name, outcome="imported") == sample(before, name, outcome="imported") + 1
    assert sample(after, name, outcome="refused") == sample(before, name, outcome="refused") + 1
    refused = REGISTRY.get_sample_value(name, {"outcome": "refused"})
    assert CliRunner().invoke(cli, ["import", str(tmp_path / "missing.txt")]).exit_code == 1
    assert REGISTRY.get_sample_value(name, {"outcome": "refused"}) == (refused or 0) + 1


def test_the_registry_reads_the_shared_directory_when_there_is_one(monkeypatch, tmp_path):
    assert "process_cpu_seconds_total" in exposition().decode()  # this process's own
    monkeypatch.setenv(MULTIPROC_DIR, str(tmp_path))  # no worker wrote to it yet
    assert "process_cpu_seconds_total" not in exposition().decode()
    assert "studyhall_answers_saved_total" not in exposition().decode()


COUNT_ONE_ANSWER = """
from app.web.metrics import PRACTICE_ANSWERS, exposition
PRACTICE_ANSWERS.inc()
print(exposition().decode())
"""


def test_processes_sharing_a_directory_are_added_up(tmp_path):
    env = {**os.environ, MULTIPROC_DIR: str(tmp_path)}
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", COUNT_ONE_ANSWER],
            cwd=PROJECT_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    assert sample(done.stdout, ANSWERS, source="practice") == 2
    assert "process_cpu_seconds_total" not in done.stdout  # one process's own, left out


@pytest.mark.skipif(
    not PG_URL, reason="several workers need PostgreSQL (SQLite serves one process)"
)
def test_several_workers_report_together_and_clean_up(seeded, db_url, tmp_path):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**server_env(db_url, metrics="public"), "TMPDIR": str(temporary)}
    with server_process(env, tmp_path / "server.log", workers=2) as (url, _):
        (shared,) = temporary.glob("studyhall-metrics-*")
        for _ in range(10):
            urllib.request.urlopen(f"{url}/api/v1/topics", timeout=10).close()
        with urllib.request.urlopen(f"{url}/metrics", timeout=10) as response:
            text = response.read().decode()
        assert list(shared.glob("*.db"))
    labels = {"method": "GET", "route": "/api/v1/topics", "status": "200"}
    assert sample(text, DURATION, **labels) == 10
    assert text.count("\nstudyhall_open_attempts ") == 1
    assert not shared.exists()
