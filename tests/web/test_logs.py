"""Request ids on every answer and in every log line; the server's text and JSON logs."""

import json
import logging
import logging.config
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
from asgi_correlation_id import CorrelationIdFilter
from fastapi.testclient import TestClient
from uvicorn.logging import AccessFormatter, DefaultFormatter

from app.config import Settings
from app.main import create_app
from app.web.logs import JsonFormatter, RequestDuration, log_config, request_started
from tests.servers import server_env, server_process

ACCESS_ARGS = ("203.0.113.9:5123", "GET", "/search?q=engine", "1.1", 200)
CONFIGURED = ["", "uvicorn", "uvicorn.error", "uvicorn.access", "studyhall", "asgi_correlation_id"]


def _broken_app(tmp_path: Path) -> TestClient:
    """An app whose database file exists but was never migrated: every page is a 500."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'empty.db'}")
    return TestClient(create_app(settings), raise_server_exceptions=False)


def _is_request_id(value: str) -> bool:
    return len(value) == 32 and uuid.UUID(value).hex == value


@pytest.mark.parametrize("path", ["/", "/api/v1/topics", "/nope", "/api/v1/nope", "/healthz"])
def test_every_answer_carries_one_request_id(client, path):
    ids = client.get(path).headers.get_list("x-request-id")
    assert len(ids) == 1 and _is_request_id(ids[0])


def test_error_pages_carry_one_request_id(tmp_path):
    with _broken_app(tmp_path) as broken:
        for path in ("/", "/api/v1/topics"):
            response = broken.get(path)
            assert response.status_code == 500
            ids = response.headers.get_list("x-request-id")
            assert len(ids) == 1 and _is_request_id(ids[0])


def test_revalidated_and_compressed_answers_carry_a_request_id(client, seeded):
    etag = client.get("/static/app.css").headers["etag"]
    unchanged = client.get("/static/app.css", headers={"If-None-Match": etag})
    assert unchanged.status_code == 304 and _is_request_id(unchanged.headers["x-request-id"])
    page = client.get("/notes/tensorrt-note-2", headers={"Accept-Encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip"
    assert _is_request_id(page.headers["x-request-id"])
    assert _is_request_id(client.head("/").headers["x-request-id"])


def test_a_valid_incoming_request_id_is_kept_and_a_bad_one_replaced(client):
    mine = uuid.uuid4().hex
    assert client.get("/", headers={"X-Request-ID": mine}).headers["x-request-id"] == mine
    replaced = client.get("/", headers={"X-Request-ID": "not an id\t"}).headers["x-request-id"]
    assert _is_request_id(replaced)


def test_log_records_written_during_a_request_name_its_id(tmp_path, caplog):
    caplog.handler.addFilter(CorrelationIdFilter())
    mine = uuid.uuid4().hex
    with _broken_app(tmp_path) as broken, caplog.at_level(logging.WARNING, logger="studyhall"):
        response = broken.get("/", headers={"X-Request-ID": mine})
    assert response.headers["x-request-id"] == mine
    ours = [r for r in caplog.records if r.name == "studyhall"]
    assert any(r.getMessage() == "unhandled error on GET /" for r in ours)
    assert ours and {getattr(r, "correlation_id", None) for r in ours} == {mine}


def test_a_record_becomes_one_json_line_with_its_traceback():
    try:
        raise ZeroDivisionError("division by zero")
    except ZeroDivisionError:
        record = logging.getLogger("studyhall").makeRecord(
            "studyhall", logging.ERROR, __file__, 1, "failed on %s", ("/x",), sys.exc_info()
        )
    record.correlation_id = "abc"
    line = JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "ERROR" and entry["logger"] == "studyhall"
    assert entry["message"] == "failed on /x" and entry["request_id"] == "abc"
    assert "ZeroDivisionError" in entry["traceback"]
    assert entry["time"].endswith("Z")
    assert datetime.fromisoformat(entry["time"]).utcoffset().total_seconds() == 0


def test_an_access_line_has_the_request_fields_and_its_duration():
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d', ACCESS_ARGS, None
    )
    token = request_started.set(time.perf_counter() - 0.25)
    try:
        RequestDuration().filter(record)
    finally:
        request_started.reset(token)
    entry = json.loads(JsonFormatter().format(record))
    assert entry["message"] == '203.0.113.9:5123 - "GET /search?q=engine HTTP/1.1" 200'
    assert entry["method"] == "GET" and entry["path"] == "/search?q=engine"
    assert entry["status"] == 200 and entry["client"] == "203.0.113.9:5123"
    assert 250 <= entry["duration_ms"] < 60_000
    assert entry["request_id"] is None


@pytest.fixture
def configure_logging() -> Iterator[Callable[[str], None]]:
    """Apply log_config(format) to this process; put every logger back afterwards."""
    loggers = [logging.getLogger(name) for name in CONFIGURED]
    saved = [(lg, lg.handlers[:], lg.filters[:], lg.level, lg.propagate) for lg in loggers]
    yield lambda log_format: logging.config.dictConfig(log_config(log_format, "info"))
    for lg, handlers, filters, level, propagate in saved:
        lg.handlers[:], lg.filters[:] = handlers, filters
        lg.setLevel(level)
        lg.propagate = propagate


@pytest.mark.parametrize(
    ("log_format", "default", "access"),
    [("text", DefaultFormatter, AccessFormatter), ("json", JsonFormatter, JsonFormatter)],
)
def test_the_config_gives_uvicorn_and_studyhall_one_format(
    configure_logging, log_format, default, access
):
    configure_logging(log_format)
    for name in ("uvicorn", "studyhall", ""):
        (handler,) = logging.getLogger(name).handlers
        assert type(handler.formatter) is default, name
        assert any(isinstance(f, CorrelationIdFilter) for f in handler.filters)
    (handler,) = logging.getLogger("uvicorn.access").handlers
    assert type(handler.formatter) is access
    assert logging.getLogger("uvicorn.access").propagate is False
    if log_format == "text":
        assert "%(correlation_id)s" in handler.formatter._fmt  # type: ignore[union-attr]


def test_a_failing_request_logs_json_lines_with_its_id(configure_logging, capsys, tmp_path):
    configure_logging("json")
    mine = uuid.uuid4().hex
    with _broken_app(tmp_path) as broken:
        assert broken.get("/", headers={"X-Request-ID": mine}).status_code == 500
    lines = [line for line in capsys.readouterr().err.splitlines() if line]
    entries = [json.loads(line) for line in lines]
    failure = next(e for e in entries if e["message"] == "unhandled error on GET /")
    assert failure["request_id"] == mine and failure["logger"] == "studyhall"
    assert "no such table" in failure["traceback"]


def test_the_server_writes_json_lines_with_access_fields(seeded, db_url, tmp_path):
    env = server_env(db_url, log_format="json", access_log="true", log_level="info")
    log = tmp_path / "server.log"
    mine = uuid.uuid4().hex
    with server_process(env, log) as (url, _):
        request = urllib.request.Request(f"{url}/nope?x=1", headers={"X-Request-ID": mine})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.headers["x-request-id"] == mine
    entries = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert {"uvicorn.error", "uvicorn.access"} <= {e["logger"] for e in entries}
    (access,) = [e for e in entries if e["request_id"] == mine]
    assert access["logger"] == "uvicorn.access" and access["level"] == "INFO"
    assert (access["method"], access["path"], access["status"]) == ("GET", "/nope?x=1", 404)
    assert access["client"].startswith("127.0.0.1:") and access["duration_ms"] > 0
