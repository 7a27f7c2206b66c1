"""The author page that downloads the question bank (authors and admins only)."""

import csv
import io
import xml.etree.ElementTree as ET

import pytest

from app.importers.gift import parse
from tests.exporters.conftest import DOCUMENT, read_apkg
from tests.factories import tags


@pytest.fixture
def author(user_client, planted):  # type: ignore[no-untyped-def]
    return user_client("writer", role="author")


def test_the_form_offers_formats_sets_and_topics_and_works_without_script(author):
    page = author.get("/author/export")
    assert page.status_code == 200
    (form,) = [f for f in tags(page.text, "form") if f.get("action") == "/author/export/file"]
    assert form.get("method") == "get"
    inputs = tags(page.text, "input")
    assert [i["value"] for i in inputs if i.get("name") == "format"] == [
        "json",
        "gift",
        "moodle-xml",
        "csv",
        "apkg",
    ]
    assert [i["value"] for i in inputs if i.get("name") == "set"] == ["plain", "tricky"]
    options = [o.get("value") for o in tags(page.text, "option")]
    assert options == ["", "net", "routing", "other"]
    assert 'href="/author/export"' in author.get("/author/import").text  # the import page links it


@pytest.mark.parametrize("role", ["author", "admin"])
def test_authors_download_gift_as_an_attachment(user_client, planted, role):
    client = user_client("writer", role=role)
    response = client.get("/author/export/file", params={"format": "gift"})
    assert response.status_code == 200
    assert response.headers["content-disposition"] == (
        'attachment; filename="studyhall-questions.gift"'
    )
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert "no-store" in response.headers["cache-control"]
    bundle, _ = parse(response.text, "x.gift")
    assert sum(len(s.questions) for s in bundle.question_sets) == len(DOCUMENT["questions"])


def test_moodle_xml_of_a_topic(author):
    response = author.get("/author/export/file", params={"format": "moodle-xml", "topic": "net"})
    assert response.status_code == 200
    assert 'filename="studyhall-questions-net.xml"' in response.headers["content-disposition"]
    quiz = ET.fromstring(response.content)
    assert len([q for q in quiz if q.get("type") == "multichoice"]) == 4


def test_csv_of_two_sets_keeps_its_byte_order_mark(author):
    response = author.get(
        "/author/export/file", params=[("format", "csv"), ("set", "plain"), ("set", "tricky")]
    )
    assert response.status_code == 200
    assert response.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert len(rows) == 5
    assert response.headers["content-type"] == "text/csv; charset=utf-8"


def test_an_anki_deck_of_a_set_downloads_as_binary(author):
    response = author.get("/author/export/file", params={"format": "apkg", "set": "tricky"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-apkg"
    assert response.headers["content-disposition"] == (
        'attachment; filename="studyhall-questions-tricky.apkg"'
    )
    assert len(read_apkg(response.content).notes) == 4


def test_an_empty_anki_deck_shows_the_form_again(author):
    params = {"format": "apkg", "set": "plain", "topic": "net"}
    response = author.get("/author/export/file", params=params)
    assert response.status_code == 422
    assert "Nothing exported: the selection holds no questions" in response.text
    assert "content-disposition" not in response.headers


def test_json_of_everything_is_the_default_export(author):
    response = author.get("/author/export/file", params={"format": "json", "topic": ""})
    assert response.status_code == 200 and response.json()["format"] == "studyhall.content/1"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"format": "xls"}, "unknown export format &#39;xls&#39;"),
        ({}, "unknown export format &#39;&#39;"),
        ({"format": "gift", "set": "nope"}, "no question set has the slug &#39;nope&#39;"),
        ({"format": "gift", "topic": "<script>"}, "no topic has the slug &#39;&lt;script&gt;&#39;"),
        ({"format": "gift", "topic": "x" * 5000}, "a slug of at most 120 characters"),
        ([("format", "gift"), *[("set", "plain")] * 101], "Choose at most 100 sets"),
    ],
)  # fmt: skip
def test_bad_choices_show_the_form_again_with_a_message(author, params, message):
    response = author.get("/author/export/file", params=params)
    assert response.status_code == 422
    assert message in response.text
    assert "content-disposition" not in response.headers
    assert "<script>" not in response.text.split("<main")[1]


def test_learners_may_not_export(user_client, planted):
    client = user_client("reader")
    assert client.get("/author/export").status_code == 403
    for format in ("gift", "apkg"):
        response = client.get("/author/export/file", params={"format": format})
        assert response.status_code == 403 and "content-disposition" not in response.headers


@pytest.mark.parametrize("path", ["/author/export", "/author/export/file?format=gift"])
def test_guests_are_sent_to_log_in(client, path):
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login?next=")
