"""Importing documents through the browser (authors and admins only)."""

import pytest
from sqlalchemy import func, select

from app.content.models import Question

QA = (
    "Upload Set — Questions and Answers\n"
    "Question 1: Which one?\n- this one (Correct answer)\n- that one\n"
    "Correct answer: this one\nBecause.\n"
)


def _questions(db) -> int:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        return session.scalar(select(func.count(Question.id))) or 0


def _upload(client, content: bytes, name: str = "upload.txt", fmt: str = ""):  # type: ignore[no-untyped-def]
    return client.post(
        "/author/import", files={"document": (name, content, "text/plain")}, data={"format": fmt}
    )


@pytest.mark.parametrize("role", ["author", "admin"])
def test_authors_import_a_document_and_see_the_report(user_client, db, role):
    client = user_client("writer", role=role)
    assert client.get("/author/import").status_code == 200
    response = _upload(client, QA.encode())
    assert response.status_code == 200
    assert "Imported upload.txt" in response.text and "questions created: 1" in response.text
    assert _questions(db) == 1
    assert "Which one?" in client.get("/sets/upload-set").text


def test_a_refused_upload_names_the_line_and_saves_nothing(user_client, seeded):
    client = user_client("writer", role="author")
    before = _questions(seeded)
    bad = QA.replace("- that one", "- that one (Correct answer)")
    response = _upload(client, bad.encode(), "bad.txt")
    assert response.status_code == 422
    assert "Nothing was imported." in response.text and "bad.txt, line 4" in response.text
    assert _questions(seeded) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"\x00\x01\x02binary", "binary file"),
        (b"just some words\n", "unrecognised format"),
    ],
)
def test_bad_uploads_are_explained(user_client, db, content, message):
    client = user_client("writer", role="author")
    response = _upload(client, content)
    assert response.status_code == 422 and message in response.text
    assert _questions(db) == 0


def test_oversized_uploads_are_refused(settings, db, make_user):
    from fastapi.testclient import TestClient

    from app.main import create_app
    from tests.conftest import log_in

    app = create_app(settings.model_copy(update={"max_upload_bytes": 100}))
    make_user("writer", role="author")
    with TestClient(app) as client:
        log_in(client, "writer")
        response = _upload(client, QA.encode() * 3)
    assert response.status_code == 422 and "larger than the limit" in response.text
    assert _questions(db) == 0


def test_learners_may_not_import(user_client, db):
    client = user_client("reader")
    assert client.get("/author/import").status_code == 403
    assert _upload(client, QA.encode()).status_code == 403
    assert _questions(db) == 0


def test_guests_are_sent_to_log_in(client):
    response = client.get("/author/import", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login?next=")


def test_the_service_checks_the_role_too(db):
    from app.accounts.errors import PermissionDenied
    from app.accounts.service import Viewer
    from app.importers.service import import_upload

    with pytest.raises(PermissionDenied), db.session_scope(write=True) as session:
        import_upload(session, Viewer(1, "reader", "learner"), QA.encode(), "x.txt", 10_000, 0.12)
    assert _questions(db) == 0


def test_a_refusal_while_loading_keeps_nothing_it_had_written(user_client, db):
    """The catalog's new topic is written before its unknown note is found: neither stays."""
    from app.content.models import ContentVersion, Topic
    from tests.factories import count_rows

    client = user_client("writer", role="author")
    catalog = (
        'format = "studyhall.catalog/1"\n\n[[topics]]\nslug = "new-topic"\ntitle = "New"\n\n'
        '[notes."no-such-note"]\ntopic = "new-topic"\n'
    )
    response = _upload(client, catalog.encode(), "c.toml")
    assert response.status_code == 422 and "no note" in response.text
    assert count_rows(db, Topic) == 0
    with db.session_scope() as session:
        assert (session.scalar(select(ContentVersion.version)) or 0) == 0


def _multipart(chunks: list[int], size: int) -> tuple[dict[str, str], object]:
    """A chunked multipart upload of size bytes; chunks records how many were read."""
    boundary = "studyhallboundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="document"; filename="u.txt"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()

    def body():  # type: ignore[no-untyped-def]
        chunks.append(1)
        yield head
        for _ in range(size // 100_000):
            chunks.append(1)
            yield b"x" * 100_000
        yield f"\r\n--{boundary}--\r\n".encode()

    return {"content-type": f"multipart/form-data; boundary={boundary}"}, body()


def test_a_strangers_upload_is_not_read_before_the_log_in_redirect(client, db):
    read: list[int] = []
    headers, body = _multipart(read, 1_500_000)
    response = client.post("/author/import", content=body, headers=headers, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")
    assert len(read) <= 1


def test_an_authors_chunked_upload_is_cut_off_at_the_limit(user_client, settings, db):
    author = user_client("writer", role="author")
    read: list[int] = []
    headers, body = _multipart(read, settings.max_upload_bytes * 4 // 3 + 500_000)  # base64
    response = author.post("/author/import", content=body, headers=headers)
    assert response.status_code == 413 and "too large" in response.text
    assert _questions(db) == 0


def test_a_form_without_a_document_asks_for_one(user_client, db):
    author = user_client("writer", role="author")
    response = author.post("/author/import", data={"format": "qa"})
    assert response.status_code == 422 and "Choose a file to import." in response.text


def test_the_uploaded_files_name_names_its_format(user_client, db):
    client = user_client("writer", role="author")
    aiken = b"Which one?\nA. This\nB. That\nANSWER: A\n"
    refused = _upload(client, aiken, "quiz.gift")
    assert refused.status_code == 422
    assert "the file&#39;s name says gift but its content is aiken" in refused.text
    assert _questions(db) == 0
    named = _upload(client, b"Which one?\nA. This\nANSWER: A\n", "quiz.aiken.txt")
    assert named.status_code == 422  # read as Aiken, whose reader names the fault
    assert "quiz.aiken.txt, line 1: a question cannot be read" in named.text
    assert _upload(client, aiken, "quiz.aiken.txt").status_code == 200
    assert _questions(db) == 1
