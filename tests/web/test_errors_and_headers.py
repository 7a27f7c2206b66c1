"""Security headers, error pages and the health check when the database is gone."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.migrate import head_revision
from tests.factories import tags


@pytest.mark.parametrize("path", ["/", "/api/v1/topics", "/nope", "/static/app.css", "/healthz"])
def test_every_response_carries_security_headers(client, path):
    headers = client.get(path).headers
    csp = headers["content-security-policy"]
    for directive in ("default-src 'self'", "object-src 'none'", "base-uri 'none'"):
        assert directive in csp
    assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"


def test_pages_carry_no_inline_script_or_style(client, seeded):
    for path in ("/", "/notes/tensorrt-note-2", "/questions/1", "/nope"):
        html = client.get(path).text
        assert all(script.get("src") for script in tags(html, "script")), path
        assert not tags(html, "style") and " style=" not in html, path
        assert " on" + "click=" not in html


def _broken_app(tmp_path: Path) -> TestClient:
    """An app whose database file exists but was never migrated."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'empty.db'}")
    return TestClient(create_app(settings), raise_server_exceptions=False)


def test_server_errors_show_a_friendly_page_without_a_traceback(tmp_path):
    response = _broken_app(tmp_path).get("/")
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.text
    assert "Traceback" not in response.text and "sqlite" not in response.text.lower()


def test_api_server_errors_are_json(tmp_path):
    response = _broken_app(tmp_path).get("/api/v1/topics")
    assert response.status_code == 500
    assert response.json() == {"detail": "The error has been logged. Please try again in a moment."}


def test_healthz_reports_an_unreachable_database(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'missing-dir' / 'x' / '..'}")
    with TestClient(create_app(settings)) as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "error",
        "database": "unavailable",
        "expected": head_revision(),
    }


def test_healthz_reports_the_schema_revision(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    revision = head_revision()
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        "revision": revision,
        "expected": revision,
    }


def test_healthz_is_not_ok_on_a_database_behind_the_code(client, stamp_revision):
    stamp_revision("0002")
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "error",
        "database": "not migrated",
        "revision": "0002",
        "expected": head_revision(),
    }


def test_wrong_method_gets_405_page(client):
    response = client.delete("/")
    assert response.status_code == 405
    assert "not allowed" in response.text


@pytest.mark.parametrize(("path", "status"), [("/", 200), ("/healthz", 200), ("/nope", 404)])
def test_head_answers_like_get_without_a_body(client, path, status):
    response = client.head(path)
    assert response.status_code == status
    assert response.content == b""
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("path", ["/no/such/page", "/questions/999999", "/admin/users"])
def test_error_pages_show_the_logged_in_header(user_client, seeded, path):
    response = user_client("ann").get(path)
    assert response.status_code in (403, 404)
    assert ">ann</a>" in response.text and "Log out" in response.text
    assert ">Log in</a>" not in response.text


def test_error_pages_for_guests_offer_to_log_in(client, seeded):
    assert ">Log in</a>" in client.get("/no/such/page").text


@pytest.mark.parametrize("encoding", ["gzip"])
def test_pages_and_the_api_are_compressed_when_the_client_accepts_it(client, seeded, encoding):
    for path in ("/", "/api/v1/notes/tensorrt-note-2", "/notes/tensorrt-note-2"):
        response = client.get(path, headers={"Accept-Encoding": encoding})
        assert response.headers.get("content-encoding") == encoding, path
        assert response.headers.get("vary") == "Accept-Encoding"


def test_refused_imports_are_domain_errors_with_status_422():
    from app.errors import DomainError
    from app.importers.errors import ImportRefused

    refused = ImportRefused("f.txt", 3, "bad")
    assert isinstance(refused, DomainError) and refused.status_code == 422
    assert str(refused) == "f.txt:3: bad"


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("OPTIONS", "/login", "GET, HEAD, POST"),
        ("PUT", "/questions/1", "GET, HEAD, POST"),
        ("DELETE", "/api/v1/questions/1/check", "POST"),
    ],
)
def test_a_wrong_method_names_every_method_the_address_takes(client, method, path, allow):
    response = client.request(method, path)
    assert response.status_code == 405 and response.headers["allow"] == allow


def test_the_openapi_document_describes_pages_and_api_errors(client):
    paths = client.get("/openapi.json").json()["paths"]
    revoke = paths["/account/tokens/{item_id}/revoke"]["post"]
    assert [p["name"] for p in revoke["parameters"]] == ["item_id"]
    assert set(paths["/login"]["post"]["responses"]) == {"200", "303", "4XX", "503"}
    assert "text/html" in paths["/login"]["get"]["responses"]["200"]["content"]
    check = paths["/api/v1/questions/{question_id}/check"]["post"]["responses"]
    assert {"400", "401", "404", "413", "422", "503"} <= set(check)
    upload = paths["/author/import"]["post"]["requestBody"]["content"]
    assert upload["multipart/form-data"]["schema"]["required"] == ["document"]
