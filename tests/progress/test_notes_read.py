"""Marking a note as read: a form without JavaScript, htmx or the end-of-note script with it."""

from datetime import UTC, datetime, timedelta

import pytest

from app.progress import queries
from app.progress.models import NoteRead
from tests.factories import count_rows, log_in, tags

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
NOTE = "tensorrt-note-2"
READ = f"/notes/{NOTE}/read"


@pytest.fixture
def ann(app, client, make_user):  # type: ignore[no-untyped-def]
    app.state.clock = lambda: T0
    make_user("ann")
    log_in(client, "ann")
    return client


def test_a_learner_marks_a_note_as_read_without_javascript(ann, seeded):
    page = ann.get(f"/notes/{NOTE}").text
    (form,) = [f for f in tags(page, "form") if f.get("action") == READ]
    assert "data-read-at-end" in form and "Mark as read" in page
    assert [s for s in tags(page, "script") if "notes" in (s.get("src") or "")]
    response = ann.post(READ, follow_redirects=False)
    assert (
        response.status_code == 303 and response.headers["location"] == f"/notes/{NOTE}#note-read"
    )
    page = ann.get(f"/notes/{NOTE}").text
    assert "you marked this note as read on" in page and "2026-12-03 09:00" in page
    assert not [f for f in tags(page, "form") if f.get("action") == READ]


def test_htmx_gets_the_new_status_and_marking_again_keeps_the_first_time(app, ann, seeded):
    first = ann.post(READ, headers={"HX-Request": "true"})
    assert first.status_code == 200 and first.text.lstrip().startswith('<section id="note-read"')
    app.state.clock = lambda: T0 + timedelta(days=2)
    again = ann.post(READ, headers={"HX-Request": "true"})
    assert "2026-12-03 09:00" in again.text
    assert count_rows(seeded, NoteRead) == 1


def test_notes_read_count_in_topic_mastery(ann, seeded, make_user):
    ann.post(READ)
    bob = make_user("bob")  # another learner read nothing
    with seeded.session_scope() as session:
        mine = {t.slug: t for t in queries.topic_mastery(session, bob.id - 1, T0)}
        theirs = {t.slug: t for t in queries.topic_mastery(session, bob.id, T0)}
    topic = "precision-int8-calibration"
    assert (mine[topic].notes_read, mine[topic].note_count, theirs[topic].notes_read) == (1, 1, 0)
    assert "notes read: 1 of 1" in ann.get("/progress").text
    api = {t["slug"]: t for t in ann.get("/api/v1/progress").json()["topics"]}
    assert (api[topic]["notes_read"], api[topic]["notes"]) == (1, 1)


def test_guests_are_asked_to_log_in_and_cannot_mark(client, seeded):
    page = client.get(f"/notes/{NOTE}").text
    assert "to keep track of the notes you read" in page and "Mark as read" not in page
    response = client.post(READ, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


@pytest.mark.parametrize("path", ["/notes/nope/read", "/notes/Bad!/read"])
def test_marking_a_missing_note_is_refused(ann, seeded, path):
    response = ann.post(path)
    assert response.status_code == 404
    assert count_rows(seeded, NoteRead) == 0
