"""A large library stays small on the wire: the home page and /exams show the first topics
and exams, and link to pages that list the rest."""

import re

import pytest
from sqlalchemy import insert

from app.content import queries
from app.content.blueprints import ExamBlueprint
from app.content.models import Topic
from app.db import Database
from app.exams.queries import EXAMS_PAGE, TOPIC_CHOICES
from tests.factories import log_in, tags

ROOTS, TOPICS, EXAMS = 60, 2_000, 600
BUDGET = 200_000  # bytes a page of a large library may take
ABOUT = "Covers the precision, calibration and deployment trade-offs of this part of the stack. "


def grow(db: Database) -> None:
    """2,000 topics (60 at the top, the first with 1,000 subtopics) and 600 exams."""
    topics = [
        {
            "id": n,
            "slug": f"t-{n}",
            "title": f"Topic number {n}",
            "description_md": ABOUT,
            "parent_id": None if n <= ROOTS else (1 if n <= 1_000 + ROOTS else n % (ROOTS - 1) + 2),
            "position": n,
        }
        for n in range(1, TOPICS + 1)
    ]
    exams = [
        {
            "slug": f"e-{n}",
            "title": f"Practice exam {n}",
            "description_md": ABOUT * 2,
            "question_count": 10,
            "time_limit_s": 600,
            "pass_mark": 70,
            "mode": "exam",
            "sets": [],
            "topics": {"t-1": 1.0},
            "position": n,
        }
        for n in range(1, EXAMS + 1)
    ]
    with db.session_scope(write=True) as session:
        session.execute(insert(Topic), topics)
        session.execute(insert(ExamBlueprint), exams)


@pytest.fixture
def large(db: Database) -> Database:
    grow(db)
    return db


def links(html: str) -> list[str]:
    return [str(a["href"]) for a in tags(html, "a")]


def test_the_home_page_shows_the_first_topics_and_links_to_all(large, client):
    page = client.get("/")
    assert page.status_code == 200 and len(page.content) < BUDGET, len(page.content)
    shown = re.findall(r'<h3><a href="/topics/(t-\d+)">', page.text)
    assert shown == [f"t-{n}" for n in range(1, queries.HOME_TOPICS + 1)]
    assert "All 60 topics" in page.text and "/topics" in links(page.text)
    assert "988 more subtopics" in page.text  # the first card names 12 of its 1,000


def test_all_topics_page_by_page(large, client):
    first = client.get("/topics")
    assert len(first.content) < BUDGET and "/topics?page=2" in links(first.text)
    assert "Topics 1–50 of 60" in first.text
    last = client.get("/topics?page=2")
    # the page's headings go down one level at a time: h1, then a card's h2
    assert re.findall(r'<h2><a href="/topics/(t-\d+)">', last.text) == [
        f"t-{n}" for n in range(51, ROOTS + 1)
    ]
    assert client.get("/topics?page=3").status_code == 404


def test_the_home_view_keeps_no_whole_tree(large):
    with large.session_scope() as session:
        view = queries.home(session)
    assert len(view.topics) == queries.HOME_TOPICS and view.topic_count == ROOTS
    assert max(len(t.children) for t in view.topics) == queries.CARD_CHIPS
    assert all(not chip.children for t in view.topics for chip in t.children)
    assert view.topics[0].more_children == 988


def test_the_exams_page_shows_a_page_of_exams(large, client):
    page = client.get("/exams")
    assert page.status_code == 200 and len(page.content) < BUDGET, len(page.content)
    assert page.text.count('class="card"') == EXAMS_PAGE
    assert "Exams 1–20 of 600" in page.text and "/exams?page=2" in links(page.text)
    last = client.get("/exams?page=30")
    assert "Practice exam 600" in last.text and 'rel="next"' not in last.text
    assert client.get("/exams?page=31").status_code == 404


def test_the_custom_form_offers_the_top_of_the_tree(large, client, make_user):
    make_user("ann")
    log_in(client, "ann")
    page = client.get("/exams")
    assert len(page.content) < BUDGET, len(page.content)
    offered = [t["value"] for t in tags(page.text, "input") if t.get("name") == "topics"]
    assert offered == [f"t-{n}" for n in range(1, ROOTS + 1)]  # 2,000 do not fit in 200
    assert len(offered) <= TOPIC_CHOICES
    assert "The top 60 of 2000 topics; choosing one includes all its subtopics." in page.text
    assert "Your attempts" in page.text
    assert "Your attempts" not in client.get("/exams?page=2").text
