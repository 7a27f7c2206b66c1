"""An attempt's result and its practice-mode feedback show learners an author's links and the
strong suggestions only, as "Related"; authors see every link copied, each suggestion with
its score."""

import pytest
from sqlalchemy import select

from app.db import Database
from app.exams.models import AttemptItem
from tests.content.test_related_links import STRONG, WEAK, _relink, _sections
from tests.exams.conftest import EXAM, START
from tests.exams.helpers import items, right_and_wrong
from tests.factories import question_id

Sections = list[tuple[int, str, str]]  # (id, anchor, heading) of each


@pytest.fixture
def linked(seeded: Database, app) -> tuple[int, Sections]:  # type: ignore[no-untyped-def]
    """Question 3 linked by an author to one section, suggested strongly for a second and
    weakly for a third; the exam clock fixed."""
    app.state.exam_clock = lambda: START
    qid = question_id(seeded, "3")
    sections = _sections(seeded)[:3]
    kinds = [("explicit", 1.0), ("suggested", STRONG), ("suggested", WEAK)]
    _relink(seeded, qid, [(s[0], *kind) for s, kind in zip(sections, kinds, strict=True)])
    return qid, sections


def _start(client, path: str, data: dict | None = None) -> int:  # type: ignore[no-untyped-def]
    response = client.post(path, data=data, follow_redirects=False)
    assert response.status_code == 303
    return int(response.headers["location"].rsplit("/", 1)[1])


def _sit(client, db: Database) -> int:  # type: ignore[no-untyped-def]
    """Start the exam, answer every question right and submit it."""
    attempt_id = _start(client, f"/exams/{EXAM}/start")
    for item in items(db, attempt_id):
        right, _ = right_and_wrong(item)
        page = f"/attempts/{attempt_id}/questions/{item.position}"
        client.post(page, data={"choice": str(right)})
    client.post(f"/attempts/{attempt_id}/submit")
    return attempt_id


def _read_more(html: str) -> str:
    """The "Learn more in the notes" list of the page naming the guide's sections (question 3's)."""
    parts = [part[: part.index("</div>")] for part in html.split('class="read-more"')[1:]]
    (found,) = [part for part in parts if "/notes/guide#" in part]
    return found


def test_the_result_shows_a_learner_the_links_they_see_as_related(user_client, seeded, linked):
    qid, (explicit, strong, weak) = linked
    ann = user_client("ann")
    attempt_id = _sit(ann, seeded)
    more = _read_more(ann.get(f"/attempts/{attempt_id}").text)
    assert explicit[2] in more and strong[2] in more and weak[2] not in more
    assert more.count(">Related</span>") == 1 and "suggested" not in more.lower()
    result = ann.get(f"/api/v1/attempts/{attempt_id}/result").json()
    (links,) = [item["links"] for item in result["items"] if item["question_id"] == qid]
    assert [(link["anchor"], link["origin"]) for link in links] == [
        (explicit[1], "explicit"),
        (strong[1], "suggested"),
    ]


def test_an_author_sees_every_link_on_the_result_with_the_scores(user_client, seeded, linked):
    _, (explicit, strong, weak) = linked
    author = user_client("ada", role="author")
    attempt_id = _sit(author, seeded)
    more = _read_more(author.get(f"/attempts/{attempt_id}").text)
    assert all(section[2] in more for section in (explicit, strong, weak))
    assert more.count(">suggested</span>") == 2 and "score 0.15" in more and "score 0.50" in more


def test_practice_mode_feedback_shows_a_learner_the_links_they_see(user_client, seeded, linked):
    qid, (explicit, strong, weak) = linked
    ann = user_client("ann")
    data = {"topics": "precision-int8-calibration", "count": "1", "minutes": "0"}
    attempt_id = _start(ann, "/exams/custom", {**data, "mode": "practice"})
    (item,) = items(seeded, attempt_id)
    assert item.question_id == qid
    _, wrong = right_and_wrong(item)
    ann.post(f"/attempts/{attempt_id}/questions/1", data={"choice": str(wrong)})
    page = ann.get(f"/attempts/{attempt_id}/questions/1").text
    more = _read_more(page)
    assert "Not quite." in page and explicit[2] in more and strong[2] in more
    assert weak[2] not in page and ">Related</span>" in more and "suggested" not in more.lower()
    feedback = ann.get(f"/api/v1/attempts/{attempt_id}/questions/1").json()["feedback"]
    assert [link["anchor"] for link in feedback["links"]] == [explicit[1], strong[1]]
    author = user_client("ada", role="author")
    attempt_id = _start(author, "/exams/custom", {**data, "mode": "practice"})
    author.post(f"/attempts/{attempt_id}/questions/1", data={"choice": str(wrong)})
    more = _read_more(author.get(f"/attempts/{attempt_id}/questions/1").text)
    assert weak[2] in more and "score 0.15" in more


def test_links_copied_without_their_origin_are_told_apart_by_the_links_now(
    user_client, seeded, linked
):
    """An attempt started before snapshots kept each link's origin and score: the result
    looks them up, and a link that is gone since counts as a weak suggestion."""
    qid, (explicit, strong, weak) = linked
    ann = user_client("ann")
    attempt_id = _sit(ann, seeded)
    gone = {"note_slug": "guide", "note_title": "Guide", "anchor": "gone", "heading": "Gone"}
    with seeded.session_scope(write=True) as session:
        for item in session.scalars(
            select(AttemptItem).where(AttemptItem.attempt_id == attempt_id)
        ):
            old = [{k: v for k, v in link.items() if k in gone} for link in item.snapshot["links"]]
            extra = [gone] if item.question_id == qid else []
            item.snapshot = {**item.snapshot, "links": old + extra}
    more = _read_more(ann.get(f"/attempts/{attempt_id}").text)
    assert explicit[2] in more and strong[2] in more
    assert weak[2] not in more and "Gone" not in more
