"""Control characters and oversized bodies are refused before any route runs, on both databases."""

import json

import pytest
from typer.testing import CliRunner

from app.accounts.models import ApiToken, User
from app.cli import cli
from app.content.models import Question
from app.web.limits import API_BODY_BYTES, HEADER_BYTES
from tests.factories import count_rows, log_in


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/questions?set=%00",
        "/api/v1/questions?topic=a%00b",
        "/topics/a%00b",
        "/notes/%07bell",
        "/login?next=/%00",
    ],
)
def test_addresses_with_control_characters_point_to_nothing(client, seeded, path):
    response = client.get(path)
    assert response.status_code == 404


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/login", {"username": "a\x00b", "password": "whatever it is"}),
        ("/signup", {"username": "a\x00b", "password": "a long passphrase here"}),
    ],
)
def test_forms_with_control_characters_are_refused(client, db, path, data):
    response = client.post(path, data=data)
    assert response.status_code == 422
    assert "control characters" in response.text
    assert count_rows(db, User) == 0


@pytest.mark.parametrize("path", ["/login", "/signup"])
def test_multipart_forms_with_control_characters_are_refused(client, db, path):
    fields = {"username": (None, "a\x00b"), "password": (None, "a long passphrase here")}
    response = client.post(path, files=fields)
    assert response.status_code == 422
    assert count_rows(db, User) == 0


def test_control_characters_in_an_uploads_file_name_are_dropped(user_client, db):
    author = user_client("writer", role="author")
    page = "Nul Name — Questions and Answers\nQuestion 1: Which?\n- a (Correct answer)\n- b\n"
    body = (
        b'--b\r\nContent-Disposition: form-data; name="document"; filename="bad\x00\x1bname.txt"'
        b"\r\nContent-Type: text/plain\r\n\r\n" + page.encode() + b"\r\n--b--\r\n"
    )
    response = author.post(
        "/author/import", content=body, headers={"content-type": "multipart/form-data; boundary=b"}
    )
    assert response.status_code == 200 and "Imported badname.txt" in response.text
    assert count_rows(db, Question) == 1


def test_a_token_name_with_nul_is_refused(client, make_user, db):
    make_user("ann")
    log_in(client, "ann")
    response = client.post("/account/tokens", data={"name": "laptop\x00"})
    assert response.status_code == 422 and count_rows(db, ApiToken) == 0


def test_a_username_with_nul_in_the_admin_address_is_not_found(user_client, db):
    admin = user_client("boss", role="admin")
    assert admin.post("/admin/users/a%00b/role", data={"role": "author"}).status_code == 404


def _export(stem: str, question_id: str = "nulset/1") -> bytes:
    document = {
        "format": "studyhall.content/1",
        "question_sets": [{"slug": "nulset", "title": "Nul set"}],
        "questions": [
            {
                "id": question_id,
                "set": "nulset",
                "stem": stem,
                "choices": [{"text": "a", "correct": True}, {"text": "b", "correct": False}],
            }
        ],
    }
    return json.dumps(document, indent=2).encode()


def _line(data: bytes, needle: str) -> int:
    text = data.decode()
    return text[: text.index(needle)].count("\n") + 1


@pytest.mark.parametrize(
    ("data", "needle", "message"),
    [
        (_export("a\x00b"), "\\u0000", "control character"),
        (_export("fine", "nulset/1/2"), '"nulset/1/2"', "a key without"),
    ],
    ids=["nul-in-stem", "id-with-two-segments"],
)
def test_imports_refuse_with_file_and_line(
    user_client, cli_env, tmp_path, monkeypatch, db, data, needle, message
):
    line = _line(data, needle)
    author = user_client("writer", role="author")
    response = author.post(
        "/author/import", files={"document": ("q.json", data, "application/json")}
    )
    assert response.status_code == 422
    assert f"q.json, line {line}" in response.text and message in response.text
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.json").write_bytes(data)
    result = CliRunner().invoke(cli, ["import", "q.json"])
    assert (
        result.exit_code == 1
        and result.exception is None
        or isinstance(result.exception, SystemExit)
    )
    assert f"q.json:{line}:" in result.output and "Traceback" not in result.output
    assert count_rows(db, Question) == 0


def test_an_api_body_over_the_limit_is_refused_before_it_is_read(client, seeded):
    body = b'{"choice_ids": [' + b"1," * (API_BODY_BYTES // 2) + b"1]}"
    response = client.post(
        "/api/v1/questions/1/check", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert "at most 1,000,000 bytes" in response.json()["detail"]


def test_a_chunked_body_is_cut_off_at_the_limit(client, seeded):
    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(20):
            yield b"x" * 100_000

    response = client.post(
        "/api/v1/questions/1/check", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413


def test_an_upload_over_the_limit_is_refused_from_its_length(user_client, settings, db):
    author = user_client("writer", role="author")
    big = b"x" * (settings.max_upload_bytes * 4 // 3 + 100_000)  # past it even in base64
    response = author.post("/author/import", files={"document": ("big.txt", big, "text/plain")})
    assert response.status_code == 413 and "too large" in response.text


@pytest.mark.parametrize("path", ["/", "/api/v1/topics"])
def test_headers_over_the_limit_are_refused(client, path):
    response = client.get(path, headers={"x-filler": "x" * HEADER_BYTES})
    assert response.status_code == 431 and "headers are too large" in response.text
    assert client.get(path, headers={"x-filler": "x" * 8_000}).status_code == 200


def test_a_custom_exam_form_sent_as_multipart_with_nul_is_refused(user_client, seeded):
    learner = user_client("ann")
    fields = {"topics": (None, "a\x00b"), "count": (None, "3"), "minutes": (None, "0")}
    response = learner.post("/exams/custom", files=fields, follow_redirects=False)
    assert response.status_code == 422
