"""The item statistics pages: who may see them, the table's markup, sorting, filters, pages,
the CSV download and one question's page."""

import csv
import io

import pytest

from app.content.bundle import ChoiceData, QuestionData, TopicData
from tests.factories import a_set, count_queries, import_long_set, load, tags
from tests.items.planted import KEYS, plant

URLS = ("/author/items", "/author/items.csv", "/author/items/1")


@pytest.fixture
def author(user_client):  # type: ignore[no-untyped-def]
    return user_client("ada", role="author")


@pytest.mark.parametrize("url", URLS)
def test_learners_are_refused_and_guests_sent_to_log_in(client, user_client, db, url):
    plant(db, learners=3)
    guest = client.get(url, follow_redirects=False)
    assert guest.status_code == 303 and guest.headers["location"].startswith("/login")
    assert user_client("leo").get(url, follow_redirects=False).status_code == 403
    assert user_client("root", role="admin").get(url).status_code in (200, 404)


def _rows(html: str) -> list[str]:
    """The question links of the table, in order."""
    return [a["href"] or "" for a in tags(html, "a") if "/author/items/" in (a["href"] or "")]


def test_the_table_has_a_caption_scoped_headers_and_its_sort_state(db, author):
    planted = plant(db)
    response = author.get("/author/items")
    assert response.status_code == 200
    html = response.text
    assert "<caption" in html and "sorted by question (ascending)" in html
    columns = [th for th in tags(html, "th") if th.get("scope") == "col"]
    assert len(columns) == 7
    assert [th.get("aria-sort") for th in columns] == ["ascending"] + [None] * 6
    assert len([th for th in tags(html, "th") if th.get("scope") == "row"]) == 8
    ids = planted.question_ids
    assert _rows(html) == [f"/author/items/{ids[key]}" for key in KEYS]  # the set's order
    assert 'href="/author/items"' in author.get("/author/import").text  # the header links it


def test_sorting_by_a_column_and_back(db, author):
    planted = plant(db)
    ids = planted.question_ids
    html = author.get("/author/items?sort=facility&dir=desc").text
    sorted_th = [th for th in tags(html, "th") if th.get("aria-sort")]
    assert sorted_th == [{"scope": "col", "aria-sort": "descending", "class": "num"}]
    order = _rows(html)
    assert order[0] == f"/author/items/{ids['easy']}" and order[-1] == f"/author/items/{ids['few']}"
    # the sorted column's link turns the order around; filters stay in every link
    assert 'href="/author/items?sort=facility"' in html
    html = author.get("/author/items?flag=any&sort=facility").text
    assert 'href="/author/items?flag=any&amp;sort=facility&amp;dir=desc"' in html


def test_filters_by_flag_source_set_and_topic(db, author):
    planted = plant(db)
    ids = planted.question_ids
    rows = _rows(author.get("/author/items?flag=wrong-key").text)
    assert rows == [f"/author/items/{ids['miskeyed']}"]
    rows = _rows(author.get("/author/items?source=practice&flag=too-easy").text)
    assert rows == [f"/author/items/{ids['hard']}"]
    html = author.get("/author/items?source=practice").text
    assert "Practice has no attempt" in html and "n/a" in html
    other = QuestionData(
        "other",
        "Another set's question?",
        [ChoiceData("yes", True), ChoiceData("no", False)],
        "So.",
    )
    bundle = a_set(other, slug="elsewhere")
    bundle.topics.append(TopicData("elsewhere-topic", "Elsewhere"))
    bundle.question_sets[0].questions[0].topic = "elsewhere-topic"
    load(db, bundle)
    assert len(_rows(author.get("/author/items").text)) == 9
    assert len(_rows(author.get("/author/items?set=planted").text)) == 8
    assert len(_rows(author.get("/author/items?topic=elsewhere-topic").text)) == 1
    empty = author.get("/author/items?set=planted&topic=elsewhere-topic")
    assert empty.status_code == 200 and "No question matches" in empty.text


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("sort=nonsense", 422),
        ("dir=sideways", 422),
        ("source=everywhere", 422),
        ("flag=bogus", 422),
        ("page=0", 422),
        ("page=abc", 422),
        ("page=99999999999", 422),
        ("set=%3Cscript%3E", 422),
        ("set=" + "a" * 200, 422),
        ("set=no-such-set", 422),
        ("topic=no-such-topic", 422),
    ],
)
def test_wrong_addresses_get_a_clear_refusal(db, author, query, status):
    plant(db, learners=3)
    for url in ("/author/items", "/author/items.csv"):
        response = author.get(f"{url}?{query}")
        assert response.status_code == status, (url, query)
    assert author.get("/author/items?page=2").status_code == 404  # one page of three rows
    assert author.get("/author/items.csv?page=2").status_code == 200  # the CSV holds all pages
    assert author.get("/author/items/999999").status_code == 404
    assert author.get("/author/items/0").status_code == 404


def test_pages_of_fifty_keep_the_filters_and_the_order(db, author):
    import_long_set(db, "long", 120)
    first = author.get("/author/items?sort=responses&dir=desc").text
    assert len(_rows(first)) == 50 and "Page 1 of 3" in first
    assert 'href="/author/items?sort=responses&amp;dir=desc&amp;page=2" rel="next"' in first
    last = author.get("/author/items?sort=responses&dir=desc&page=3").text
    assert len(_rows(last)) == 20 and 'rel="prev"' in last and 'rel="next"' not in last
    assert "rows 101–120 of 120" in last
    seen = set(_rows(first)) | set(_rows(author.get("/author/items?page=2").text))
    assert len(seen | set(_rows(last))) == 120


def test_the_page_runs_as_many_statements_for_many_questions_as_for_few(app, db, author):
    plant(db, learners=5)
    with count_queries(app) as few:
        assert author.get("/author/items").status_code == 200
    import_long_set(db, "long", 150)
    with count_queries(app) as many:
        assert author.get("/author/items?page=3").status_code == 200
    assert len(many) == len(few) <= 12, many


def test_the_csv_holds_the_same_rows_with_formulas_defused(db, author):
    planted = plant(db)
    hostile = QuestionData(
        "hostile",
        '=HYPERLINK("http://evil.example")',
        [ChoiceData("ok", True), ChoiceData("not ok", False)],
        "No.",
    )
    bundle = a_set(hostile, slug="hostile")
    bundle.question_sets[0].title = "@Evil set"
    load(db, bundle)
    response = author.get("/author/items.csv?sort=facility&dir=desc")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    table = _rows(author.get("/author/items?sort=facility&dir=desc").text)
    assert [f"/author/items/{r['question_id']}" for r in rows] == table
    evil = next(r for r in rows if r["set"].endswith("Evil set"))
    assert evil["set"] == "'@Evil set" and evil["question"].startswith("'=HYPERLINK")
    miskeyed = next(r for r in rows if r["question_id"] == str(planted.question_ids["miskeyed"]))
    assert float(miskeyed["discrimination"]) < 0  # a number stays a number
    assert miskeyed["flags"] == "Possibly wrong key; Negative discrimination"
    assert miskeyed["median_seconds"] == "not recorded"
    flagged = list(csv.DictReader(io.StringIO(author.get("/author/items.csv?flag=any").text)))
    assert len(flagged) == 4


def test_one_questions_page_explains_its_flags(db, author):
    planted = plant(db)
    html = author.get(f"/author/items/{planted.question_ids['miskeyed']}").text
    assert "Possibly wrong key" in html and "Check the key" in html
    assert "Negative discrimination" in html and "−0.87" in html
    assert "miskeyed choice B" in html and "30.0%" in html  # B: 18 of 60
    assert "not recorded" in html
    assert "practice answers belong to no attempt" in html
    few = author.get(f"/author/items/{planted.question_ids['few']}").text
    assert "too few responses to judge yet (3; flags wait for at least 20)" in few
    assert 'aria-current="page"' in few
