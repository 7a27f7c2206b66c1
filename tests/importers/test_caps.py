"""Caps on what one document may declare: topics, exams and question sets, refused at the
first one past the cap, before anything is written."""

import json

import pytest

from app.config import Settings
from app.importers.errors import ImportRefused
from app.importers.service import Caps, parse_document
from tests.factories import import_file, snapshot

HEADER = 'format = "studyhall.catalog/1"\n'


def catalog(topics: int, exams: int = 0) -> str:
    parts = [HEADER]
    parts += [f'\n[[topics]]\nslug = "t-{n}"\ntitle = "Topic {n}"\n' for n in range(1, topics + 1)]
    parts += [
        f'\n[exams."e-{n}"]\ntitle = "Exam {n}"\nquestions = 5\ntopics = {{ t-1 = 1 }}\n'
        for n in range(1, exams + 1)
    ]
    return "".join(parts)


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_the_defaults_are_the_settings():
    defaults = Settings()
    assert Caps.of(defaults) == Caps(topics=500, exams=200, sets=500)


def test_a_catalog_past_the_topic_cap_is_refused_and_writes_nothing(db):
    text = catalog(Settings().import_max_topics + 1)
    before = snapshot(db)
    with pytest.raises(ImportRefused) as caught:
        import_file(db, text.encode(), "big.toml")
    refused = caught.value
    assert refused.file == "big.toml" and refused.line == line_of(text, 'slug = "t-501"')
    assert refused.message == (
        "one document may declare at most 500 topics and this one declares 501; "
        "split it (or raise STUDYHALL_IMPORT_MAX_TOPICS)"
    )
    assert snapshot(db) == before
    import_file(db, catalog(500).encode(), "fits.toml")  # at the cap it loads


def test_exams_past_their_cap_are_refused_at_the_first_one_over():
    text = catalog(1, exams=3)
    with pytest.raises(ImportRefused) as caught:
        parse_document(text.encode(), "exams.toml", caps=Caps(topics=10, exams=2, sets=10))
    assert caught.value.line == line_of(text, '[exams."e-3"]')
    assert "at most 2 exams and this one declares 3" in str(caught.value)


def test_an_export_past_the_set_cap_is_refused():
    export = {
        "format": "studyhall.content/1",
        "question_sets": [{"slug": f"s-{n}", "title": f"Set {n}"} for n in range(3)],
        "questions": [],
    }
    with pytest.raises(ImportRefused) as caught:
        parse_document(json.dumps(export, indent=1).encode(), "e.json", caps=Caps(10, 10, 2))
    assert "at most 2 question sets and this one declares 3" in caught.value.message
    assert "STUDYHALL_IMPORT_MAX_SETS" in caught.value.message


def test_the_upload_page_shows_the_refusal(seeded, user_client):  # type: ignore[no-untyped-def]
    author = user_client("ann", role="author")
    before = snapshot(seeded)
    response = author.post(
        "/author/import",
        files={"document": ("big.toml", catalog(501).encode(), "text/plain")},
    )
    assert response.status_code == 422
    assert "big.toml" in response.text and "at most 500 topics" in response.text
    assert snapshot(seeded) == before
