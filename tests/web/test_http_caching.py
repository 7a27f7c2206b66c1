"""Guests' browsers keep content pages: an ETag from the release and the content version, and a
repeat visit that sends it back is answered 304 without rendering."""

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.config import Settings
from app.exams import api as exam_api
from app.exams import routes as exam_routes
from app.main import create_app
from tests.exams.conftest import EXAM
from tests.factories import import_file, log_in, question_id

QA = "Kept — Questions and Answers\nQuestion 1: {stem}\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"


@pytest.fixture
def cached(settings: Settings, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    now = [1000.0]
    monkeypatch.setattr("app.web.cache.time.monotonic", lambda: now[0])
    app = create_app(settings.model_copy(update={"content_cache_seconds": 60}))
    with TestClient(app) as client:
        yield client, now


def test_a_guests_repeat_visit_is_answered_304_without_rendering(cached, seeded, monkeypatch):
    client, _ = cached
    qid = question_id(seeded, "3")
    for path in ("/", "/sets", f"/questions/{qid}", "/notes/tensorrt-note-2", "/search?q=int8"):
        first = client.get(path)
        tag = first.headers["etag"]
        assert first.status_code == 200 and first.headers["cache-control"] == "private, no-cache"
        with monkeypatch.context() as patched:
            patched.setattr("app.web.templating.render", _no_render)
            again = client.get(path, headers={"If-None-Match": f'W/"other", {tag}'})
        assert again.status_code == 304, path
        assert again.headers["etag"] == tag and again.content == b""


def _no_render(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("a page matching the browser's copy was rendered")


def test_a_content_change_gives_the_pages_a_new_tag(cached, db):
    client, now = cached
    import_file(db, QA.format(stem="Old stem?").encode(), "k.txt")
    path = f"/questions/{question_id(db, '1', 'kept')}"
    old = client.get(path)
    import_file(db, QA.format(stem="New stem?").encode(), "k.txt")  # as `studyhall import`
    now[0] += 1.1  # the version is read again
    new = client.get(path, headers={"If-None-Match": old.headers["etag"]})
    assert new.status_code == 200 and "New stem?" in new.text
    assert new.headers["etag"] != old.headers["etag"]


def test_logged_in_pages_carry_no_tag_and_are_always_rendered(cached, seeded, make_user):
    client, _ = cached
    guest_tag = client.get("/").headers["etag"]
    make_user("ann")
    log_in(client, "ann")
    page = client.get("/", headers={"If-None-Match": guest_tag})
    assert page.status_code == 200 and "etag" not in page.headers
    assert "ann" in page.text


def test_pages_carry_no_tag_when_the_content_cache_is_off(client, seeded):
    page = client.get("/")
    assert page.status_code == 200 and "etag" not in page.headers


def test_exam_pages_and_the_exams_api_are_never_stored(user_client, seeded):
    """Every exam route (read from the routers, so a new one is checked too), a redirect and
    an error among them, tells browsers and proxies to keep no copy."""
    ann, stranger = user_client("ann"), user_client("bob")
    started = ann.post(f"/exams/{EXAM}/start", follow_redirects=False)
    attempt_id = started.headers["location"].split("/")[2]
    values = {"attempt_id": attempt_id, "position": "1", "slug": EXAM}
    answers = [started]
    for route in [*exam_routes.router.routes, *exam_api.router.routes]:
        assert isinstance(route, APIRoute)
        if "GET" in route.methods:
            path = route.path.format(**values)
            answers += [ann.get(path, follow_redirects=False), stranger.get(path)]
    answers.append(ann.post(f"/attempts/{attempt_id}/submit", follow_redirects=False))
    answers.append(ann.get(f"/attempts/{attempt_id}/questions/1", follow_redirects=False))
    assert {a.status_code for a in answers} >= {200, 303, 403, 404}
    for answer in answers:
        assert answer.headers["cache-control"] == "no-store", answer.url
