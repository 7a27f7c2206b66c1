"""The media store: images an import carries, stored once and served with long caching."""

import hashlib

import pytest
from sqlalchemy import func, select

from app.content.markdown import clean, render
from app.content.models import Media, Question
from app.importers.preview import preview_documents
from tests.factories import import_file
from tests.importers.test_moodle_xml import PNG, PNG_SHA, multichoice, with_file

QUIZ = multichoice(
    with_file('Which? <img src="@@PLUGINFILE@@/chart.png" alt="c">', "chart.png", PNG)
)
URL = f"/media/{PNG_SHA}/chart.png"


def _media(db) -> list[tuple[str, str, str, bytes]]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        rows = session.execute(select(Media.sha256, Media.name, Media.content_type, Media.data))
        return [tuple(row) for row in rows]


def test_an_import_stores_each_image_once(db):
    report = import_file(db, QUIZ.encode(), "quiz.xml")
    assert report.counts["images_stored"] == 1
    assert _media(db) == [(PNG_SHA, "chart.png", "image/png", PNG)]
    other = QUIZ.replace("chart.png", "same.png").replace("Which?", "Which other?")
    again = import_file(db, other.encode(), "other.xml")
    assert again.counts["images_stored"] == 0 and len(_media(db)) == 1


def test_a_dry_run_writes_no_media(db):
    with db.session_scope(write=True) as session:
        (preview,) = preview_documents(session, [("quiz.xml", QUIZ.encode())], 0.12)
    assert preview.report is not None and preview.report.counts["images_stored"] == 1
    assert _media(db) == []
    with db.session_scope() as session:
        assert session.scalar(select(func.count()).select_from(Media)) == 0


def test_the_image_is_served_with_its_type_and_long_caching(client, db):
    import_file(db, QUIZ.encode(), "quiz.xml")
    response = client.get(URL)
    assert response.status_code == 200 and response.content == PNG
    assert response.headers["content-type"] == "image/png"
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert response.headers["x-content-type-options"] == "nosniff"
    # the digest finds the image; the name is for people
    assert client.get(f"/media/{PNG_SHA}/other-name.png").content == PNG


@pytest.mark.parametrize(
    "path",
    [
        f"/media/{hashlib.sha256(b'x').hexdigest()}/x.png",
        "/media/not-a-digest/x.png",
        f"/media/{PNG_SHA.upper()}/chart.png",
        f"/media/{PNG_SHA}",
    ],
)
def test_an_unknown_image_is_not_found(client, db, path):
    import_file(db, QUIZ.encode(), "quiz.xml")
    assert client.get(path).status_code == 404


def test_the_question_page_shows_the_image(client, db):
    import_file(db, QUIZ.encode(), "quiz.xml")
    with db.session_scope() as session:
        question_id = session.scalar(select(Question.id))
    page = client.get(f"/questions/{question_id}").text
    assert f'<img src="{URL}" alt="c">' in page


@pytest.mark.parametrize(
    ("markdown", "html"),
    [
        (f"![a chart]({URL})", f'<p><img src="{URL}" alt="a chart"></p>\n'),
        ("![a chart](/static/app.css)", '<p><a href="/static/app.css" rel="noopener'),
        ("![a chart](chart.png)", '<p><a href="chart.png" rel="noopener'),
        (
            "![x](https://evil.example/x.png)",
            '<p><a href="https://evil.example/x.png" rel="noopener noreferrer nofollow">x</a></p>\n',
        ),
        (f"![x](/media/{PNG_SHA}/../../admin)", '<p><a href="/media/'),
    ],
)
def test_only_images_of_the_media_store_are_shown(markdown, html):
    rendered = render(markdown)
    assert rendered.startswith(html), rendered


def test_the_sanitiser_drops_any_other_image_source():
    assert clean(f'<img src="{URL}" alt="a">') == f'<img src="{URL}" alt="a">'
    assert clean('<img src="/account" alt="a">') == '<img alt="a">'
    assert clean('<img src="https://evil.example/x.png">') == "<img>"
