"""Whole pages kept per read model: each person still sees their own header and messages."""

import re

import pytest
from fastapi.testclient import TestClient

from app.config import PROJECT_ROOT, Settings
from app.main import create_app
from tests.factories import import_file, log_in, question_id

QA = "Kept — Questions and Answers\nQuestion 1: {stem}\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"


@pytest.fixture
def cached_app(settings: Settings):  # type: ignore[no-untyped-def]
    return create_app(settings.model_copy(update={"content_cache_seconds": 60}))


def test_kept_pages_show_each_person_their_own_header(cached_app, db, make_user):
    import_file(db, QA.format(stem="Kept stem?").encode(), "k.txt")
    path = f"/questions/{question_id(db, '1', 'kept')}"
    make_user("ann")
    make_user("bob")
    with TestClient(cached_app) as ann, TestClient(cached_app) as bob:
        log_in(ann, "ann")
        log_in(bob, "bob")
        guest = TestClient(cached_app)
        for _ in range(2):  # the second round is served from kept pages
            for client, name in ((ann, ">ann</a>"), (bob, ">bob</a>"), (guest, ">Log in</a>")):
                for page in (path, "/"):
                    html = client.get(page).text
                    assert name in html, (page, name)
                    assert ">ann</a>" not in html or name == ">ann</a>"
        assert "You are logged in." in ann.get("/?done=logged-in").text
        guest.close()


def test_a_kept_page_is_made_again_after_a_content_change(cached_app, db, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr("app.web.cache.time.monotonic", lambda: now[0])
    import_file(db, QA.format(stem="Before?").encode(), "k.txt")
    path = f"/questions/{question_id(db, '1', 'kept')}"
    with TestClient(cached_app) as client:
        client.get(path)
        assert "Before?" in client.get(path).text
        import_file(db, QA.format(stem="After?").encode(), "k.txt")
        now[0] += 1.1
        assert "After?" in client.get(path).text


def test_every_route_has_a_name_of_its_own(app):
    """url_for takes the first route of a name, so two routes must never share one."""
    names: list[str] = []

    def walk(routes) -> None:  # type: ignore[no-untyped-def]
        for route in routes:
            if hasattr(route, "original_router"):
                walk(route.original_router.routes)
            elif getattr(route, "name", None):
                names.append(route.name)

    walk(app.routes)
    assert len(names) > 30
    assert sorted(name for name in set(names) if names.count(name) > 1) == []


def test_pages_link_to_pages_not_to_the_api(app):
    from app.web.templating import url_for

    assert url_for("progress") == "/progress"
    assert url_for("search") == "/search"
    assert url_for("start_exam", slug="x") == "/exams/x/start"


def test_url_for_refuses_the_parameters_the_router_refuses(app):
    from starlette.routing import NoMatchFound

    from app.web.templating import url_for

    assert url_for("question", question_id=12) == "/questions/12"
    for params in ({}, {"question_id": 12, "page": 2}, {"slug": "x"}):
        with pytest.raises(NoMatchFound):
            url_for("question", **params)


def test_pages_name_routes_and_static_files_as_url_for_would(app):
    from starlette.routing import NoMatchFound

    from app.web import templating
    from app.web.static import static_url

    names: list[str] = []

    def walk(routes) -> None:  # type: ignore[no-untyped-def]
        for route in routes:
            if hasattr(route, "original_router"):
                walk(route.original_router.routes)
            elif getattr(route, "param_convertors", None) == {} and route.name != "static":
                names.append(route.name)

    walk(app.routes)
    assert len(names) > 20
    for name in names:
        assert getattr(templating.paths, name) == templating.url_for(name)
    assert templating.assets["app.css"] == static_url("app.css") != "/static/app.css"
    with pytest.raises(NoMatchFound):
        templating.paths.no_such_route  # noqa: B018


@pytest.mark.parametrize(
    ("n", "shown"),
    [(0, "0 questions"), (1, "1 question"), (2, "2 questions"), (50000, "50,000 questions")],
)
def test_counts_read_as_words_with_thousands_set_apart(n, shown):
    from app.web.templating import templates

    macro = '{% from "components/macros.html" import plural %}{{ plural(n, "question") }}'
    assert templates.env.from_string(macro).render(n=n) == shown


def test_every_scrolling_table_can_be_reached_and_named_from_the_keyboard():
    """A table wider than the screen scrolls in its own box: a keyboard user can only scroll
    it if the box takes focus, and a screen reader names the box it lands on."""
    wrappers = []
    for page in (PROJECT_ROOT / "templates").rglob("*.html"):
        for tag in re.findall(r"<div[^>]*\btable-scroll\b[^>]*>", page.read_text()):
            wrappers.append(tag)
            assert 'tabindex="0"' in tag and 'role="region"' in tag, (page.name, tag)
            assert "aria-labelledby=" in tag or "aria-label=" in tag, (page.name, tag)
    assert len(wrappers) >= 7
