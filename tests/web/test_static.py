"""Static files under content-hashed names, and what every page links to."""

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.static import IMMUTABLE, REVALIDATE, STATIC_DIR, mount_static, static_url
from tests.factories import tags

HASHED = re.compile(r"/static/(?P<stem>[\w./-]+)\.[0-9a-f]{10}(?P<suffix>\.\w+)")


@pytest.fixture
def static_client() -> TestClient:
    """A bare app with only the static mount, independent of the database."""
    app = FastAPI()
    mount_static(app)
    return TestClient(app)


@pytest.mark.parametrize("path", ["app.css", "app.js", "favicon.svg", "vendor/htmx.min.js"])
def test_hashed_url_serves_the_file_for_a_year(static_client, path):
    url = static_url(path)
    match = HASHED.fullmatch(url)
    assert match and match["stem"] + match["suffix"] == path

    response = static_client.get(url)
    assert response.status_code == 200
    assert response.content == (STATIC_DIR / path).read_bytes()
    assert response.headers["cache-control"] == IMMUTABLE


def test_hash_follows_the_file_bytes():
    assert static_url("app.css") != static_url("app.js").replace(".js", ".css")
    assert static_url("app.css") == static_url("app.css")


def test_plain_name_still_works_but_is_revalidated(static_client):
    response = static_client.get("/static/app.css")
    assert response.status_code == 200
    assert response.headers["cache-control"] == REVALIDATE

    again = static_client.get(
        "/static/app.css", headers={"if-none-match": response.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.headers["cache-control"] == REVALIDATE


@pytest.mark.parametrize(
    "url",
    [
        "/static/app.0123456789.css",
        "/static/vendor/htmx.min.0123456789.js",
        "/static/missing.0123456789.css",
        "/static/missing.css",
        "/static/../app/config.0123456789.py",
    ],
)
def test_wrong_hash_or_missing_file_is_not_found(static_client, url):
    assert static_client.get(url).status_code == 404


def test_missing_file_keeps_its_plain_name():
    assert static_url("missing.css") == "/static/missing.css"


# The checks below go through the whole application (the `client` fixture).


def _linked_assets(html: str) -> list[str]:
    links = [attrs["href"] for attrs in tags(html, "link")]
    scripts = [attrs["src"] for attrs in tags(html, "script")]
    return [url for url in links + scripts if url and url.startswith("/static/")]


def test_pages_link_static_files_by_hashed_name(client):
    html = client.get("/").text
    assert re.search(r"/static/app\.[0-9a-f]{10}\.css", html)
    assets = _linked_assets(html)
    assert len(assets) == 5  # icon, two stylesheets (the site and code), htmx and app.js
    assert all(HASHED.fullmatch(url) for url in assets), assets


def test_linked_static_files_load_through_the_app(client):
    for url in _linked_assets(client.get("/").text):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["cache-control"] == IMMUTABLE, url


def _description(html: str) -> str:
    metas = [attrs for attrs in tags(html, "meta") if attrs.get("name") == "description"]
    assert len(metas) == 1
    return metas[0].get("content") or ""


@pytest.mark.parametrize("path", ["/", "/login", "/signup", "/nope"])
def test_every_page_has_a_meta_description(client, path):
    assert len(_description(client.get(path).text)) > 20


def test_content_pages_describe_their_own_content(client, seeded):
    home = _description(client.get("/").text)
    for path in ("/notes/tensorrt-note-2", "/questions/1", "/topics/sparsity"):
        description = _description(client.get(path).text)
        assert description and description != home, path
