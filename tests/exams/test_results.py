"""The result page: a grid of every question, collapsed items, filters, and the way on
(retake, practise the missed questions, their topics)."""

import re
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.exams.conftest import EXAM
from tests.exams.helpers import attempt, items, right_and_wrong, save_page, start_page
from tests.factories import count_queries, tags


class _Grid(HTMLParser):
    """The grid's cells: each one's classes, address and text (hidden text included)."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self._cell: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "a" and "grid-cell" in (found.get("class") or ""):
            self._cell = {"class": found["class"] or "", "href": found["href"] or "", "text": ""}

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell["text"] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._cell is not None:
            self.cells.append(self._cell)
            self._cell = None


def grid(html: str) -> list[dict[str, str]]:
    parser = _Grid()
    parser.feed(html)
    return parser.cells


@pytest.fixture
def sat(seeded, user_client):  # type: ignore[no-untyped-def]
    """Ann's submitted attempt: 1 right, 2 wrong, 3 blank and flagged, 4 wrong and flagged,
    5 to 7 blank."""
    client = user_client("ann")
    attempt_id = start_page(client)
    shown = items(seeded, attempt_id)
    save_page(client, attempt_id, 1, choice=str(right_and_wrong(shown[0])[0]))
    save_page(client, attempt_id, 2, choice=str(right_and_wrong(shown[1])[1]))
    save_page(client, attempt_id, 3, flagged="1")
    save_page(client, attempt_id, 4, choice=str(right_and_wrong(shown[3])[1]), flagged="1")
    assert client.post(f"/attempts/{attempt_id}/submit").status_code == 200
    return client, attempt_id, shown


def test_the_grid_marks_every_question_right_wrong_unanswered_and_flagged(sat):
    client, attempt_id, _ = sat
    cells = grid(client.get(f"/attempts/{attempt_id}").text)
    assert [cell["class"] for cell in cells] == [
        "grid-cell is-right",
        "grid-cell is-wrong",
        "grid-cell is-unanswered is-flagged",
        "grid-cell is-wrong is-flagged",
        "grid-cell is-unanswered",
        "grid-cell is-unanswered",
        "grid-cell is-unanswered",
    ]
    # each state in words and a mark, never in colour alone
    assert [cell["text"] for cell in cells[:4]] == [
        "1✓, right",
        "2✗, wrong",
        "3–⚑, unanswered, flagged",
        "4✗⚑, wrong, flagged",
    ]
    assert [cell["href"] for cell in cells] == [f"#q-{n}" for n in range(1, 8)]


def test_an_unanswered_question_is_unanswered_not_wrong(sat):
    client, attempt_id, _ = sat
    page = client.get(f"/attempts/{attempt_id}").text
    assert "Question 3 · unanswered" in page and "Question 5 · unanswered" in page
    assert "Question 2 · wrong" in page
    assert not re.search(r"Question [35-7] · wrong", page)
    assert "none (unanswered)" in page


@pytest.mark.parametrize(
    ("show", "positions"),
    [
        ("all", [1, 2, 3, 4, 5, 6, 7]),
        ("wrong", [2, 4]),
        ("unanswered", [3, 5, 6, 7]),
        ("flagged", [3, 4]),
    ],
)
def test_the_filters_show_their_questions_and_the_grid_still_reaches_every_one(
    sat, show, positions
):
    client, attempt_id, _ = sat
    page = client.get(f"/attempts/{attempt_id}/review?show={show}").text
    shown = [a["id"] for a in tags(page, "article") if a["class"] == "review-item"]
    assert shown == [f"q-{n}" for n in positions]
    hrefs = [cell["href"] for cell in grid(page)]
    for n, href in enumerate(hrefs, start=1):
        # a question the filter hides is reached on the whole result
        assert href == (f"#q-{n}" if n in positions else f"/attempts/{attempt_id}#q-{n}")


def test_items_open_to_their_explanation_without_script(sat):
    client, attempt_id, shown = sat
    page = client.get(f"/attempts/{attempt_id}").text
    assert page.count('<details class="review-more">') == 7
    first = page.split('id="q-1"', 1)[1].split("</article>", 1)[0]
    stem, rest = first.split("<details", 1)
    assert "Your answer, right:" in stem and "Right answer:" not in stem
    assert shown[0].snapshot["explanation_html"][:60] in rest
    second = page.split('id="q-2"', 1)[1].split("<details", 1)[0]
    assert "Your answer:" in second and "Right answer:" in second


def test_retake_starts_the_same_exam_again(sat, seeded):
    client, attempt_id, _ = sat
    page = client.get(f"/attempts/{attempt_id}").text
    forms = [f["action"] for f in tags(page, "form")]
    assert f"/exams/{EXAM}/start" in forms
    retaken = client.post(f"/exams/{EXAM}/start", follow_redirects=False)
    assert retaken.status_code == 303
    new_id = int(retaken.headers["location"].rsplit("/", 1)[1])
    assert new_id != attempt_id
    assert attempt(seeded, new_id).status == "open"
    assert attempt(seeded, attempt_id).status == "submitted"


def test_practise_the_missed_ones_opens_a_study_session_of_them(sat):
    client, attempt_id, shown = sat
    page = client.get(f"/attempts/{attempt_id}").text
    link = next(a["href"] for a in tags(page, "a") if (a["href"] or "").startswith("/study/"))
    missed = [item.question_id for item in shown[1:]]
    assert "Practise the 6 I missed" in page
    address = urlsplit(link)
    assert address.path == f"/study/{missed[0]}"
    assert parse_qs(address.query)["plan"] == [".".join(str(qid) for qid in missed)]
    assert client.get(link).status_code == 200


def test_review_the_topics_missed_links_their_pages(sat):
    client, attempt_id, shown = sat
    page = client.get(f"/attempts/{attempt_id}").text
    section = page.split('id="missed-topics-heading"', 1)[1].split("</ul>", 1)[0]
    slugs = {item.snapshot["topic"]["slug"] for item in shown[1:] if item.snapshot.get("topic")}
    assert slugs
    linked = set(re.findall(r'href="/topics/([^"]+)"', section))
    assert linked == slugs
    for slug in linked:
        assert client.get(f"/topics/{slug}").status_code == 200


def test_all_right_offers_no_practice_and_a_custom_exam_no_retake(seeded, user_client):
    client = user_client("bob")
    topics = [t["slug"] for t in client.get("/api/v1/topics").json()]
    data = {"topics": topics, "count": "2", "minutes": "0", "mode": "exam"}
    made = client.post("/exams/custom", data=data, follow_redirects=False)
    attempt_id = int(made.headers["location"].rsplit("/", 1)[1])
    for position, item in enumerate(items(seeded, attempt_id), start=1):
        save_page(client, attempt_id, position, choice=str(right_and_wrong(item)[0]))
    client.post(f"/attempts/{attempt_id}/submit")
    page = client.get(f"/attempts/{attempt_id}").text
    assert "nothing to practise again" in page
    assert "/study/" not in page and "Retake" not in page
    assert 'href="/exams#custom-heading"' in page


def _custom(client, count: int) -> int:  # type: ignore[no-untyped-def]
    topics = [t["slug"] for t in client.get("/api/v1/topics").json()]
    data = {"topics": topics, "count": str(count), "minutes": "0", "mode": "exam"}
    made = client.post("/exams/custom", data=data, follow_redirects=False)
    assert made.status_code == 303
    return int(made.headers["location"].rsplit("/", 1)[1])


def test_the_result_costs_the_same_statements_for_two_questions_or_six(app, seeded, user_client):
    client = user_client("ann")
    cost = {}
    for count in (1, 2, 6):  # the first one warms what a worker keeps
        attempt_id = _custom(client, count)
        assert client.post(f"/attempts/{attempt_id}/submit").status_code == 200
        with count_queries(app) as statements:
            assert client.get(f"/attempts/{attempt_id}").status_code == 200
        cost[count] = len(statements)
    assert cost[2] == cost[6], cost
