"""Practice that keeps to its list: a topic's questions, a set's wrong ones, and a set that
continues at the first question not answered."""

import re
from html import unescape

import pytest
from sqlalchemy import select

from app.content.models import Question, Topic
from tests.factories import SEED_SET, choice_ids, count_queries, log_in, question_id

NEXT = re.compile(r'<a class="button"[^>]* href="([^"]+)">(Next question|Finish)</a>')
SHOWN = re.compile(r'<form method="post" action="([^"#]+)#result-heading"')


@pytest.fixture
def ann(client, make_user):  # type: ignore[no-untyped-def]
    make_user("ann")
    log_in(client, "ann")
    return client


def _answer(client, db, key: str, right: bool):  # type: ignore[no-untyped-def]
    good, bad = choice_ids(db, key)
    choice = good if right else bad[0]
    return client.post(f"/questions/{question_id(db, key)}", data={"choice": str(choice)})


def _link(html: str, text: str) -> str:
    found = re.search(rf'<a class="button[^"]*" href="([^"]+)">{re.escape(text)}</a>', html)
    assert found, f"no “{text}” button"
    return unescape(found.group(1))


def _walk(client, db, start: str) -> tuple[list[int], str]:  # type: ignore[no-untyped-def]
    """Answer each question a walk shows (rightly), following "Next" to the end.

    Returns the ids of the questions shown, in order, and the page the walk ended on.
    """
    by_id = {question_id(db, key): key for key in "1234567"}
    shown: list[int] = []
    page = client.get(start)
    while (form := SHOWN.search(page.text)) is not None:
        action = unescape(form.group(1))
        qid = int(re.search(r"/(\d+)(\?|$)", action).group(1))  # type: ignore[union-attr]
        shown.append(qid)
        assert len(shown) <= 20, shown
        right, _ = choice_ids(db, by_id[qid])
        graded = client.post(action, data={"choice": str(right)})
        assert graded.status_code == 200
        following = NEXT.search(graded.text)
        assert following, "no way on from the result"
        page = client.get(unescape(following.group(1)))
    return shown, page.text


def _topic_questions(db, slug: str) -> set[int]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        topic = session.scalars(select(Topic.id).where(Topic.slug == slug)).one()
        children = set(session.scalars(select(Topic.id).where(Topic.parent_id == topic)))
        where = Question.topic_id.in_({topic} | children)
        return set(session.scalars(select(Question.id).where(where)))


@pytest.mark.parametrize("slug", ["deployment-jetson-dla", "sparsity", "throughput-latency"])
def test_practising_a_topic_walks_its_own_questions_to_an_end(client, seeded, slug):
    topic_page = client.get(f"/topics/{slug}").text
    shown, end = _walk(client, seeded, _link(topic_page, "Practise this topic"))
    assert shown and set(shown) == _topic_questions(seeded, slug)  # each once, no other topic's
    assert len(shown) == len(set(shown))
    assert "You have been through this topic" in end
    assert f'href="/topics/{slug}/practice">Practise this topic again' in end
    assert f'href="/topics/{slug}">Read the topic’s notes' in end


def test_a_parent_topic_walk_takes_its_subtopics_and_a_learner_the_unanswered_first(ann, seeded):
    _answer(ann, seeded, "1", True)
    _answer(ann, seeded, "3", False)
    parent = "inference-optimization-tensorrt"
    start = ann.get(f"/topics/{parent}/practice", follow_redirects=False)
    ids = [question_id(seeded, key) for key in "2456731"]  # unanswered, wrong, right
    plan = ".".join(map(str, ids))
    assert start.headers["location"] == f"/study/{ids[0]}?plan={plan}&topic={parent}"
    shown, end = _walk(ann, seeded, start.headers["location"])
    assert shown == ids
    assert "7 of 7 questions</strong> right now" in end


def test_a_walks_question_page_names_the_topic_and_tries_again_inside_it(client, seeded):
    qid = question_id(seeded, "2")
    address = f"/study/{qid}?plan={qid}.{question_id(seeded, '6')}&topic=deployment-jetson-dla"
    page = client.get(address).text
    assert "<strong>Practising Deployment, Jetson &amp; DLA</strong>" in page
    # only the place in the walk, not the question's place in its set as well
    assert re.findall(r"(?i)question \d+ of \d+", page) == ["question 1 of 2", "Question 1 of 2"]
    graded = client.post(address, data={"choice": str(choice_ids(seeded, "2")[0])}).text
    assert _link(graded, "Try again") == address


def test_a_set_continues_at_the_first_question_not_answered(ann, client, seeded):
    for key in "124":
        _answer(ann, seeded, key, key != "2")
    html = ann.get(f"/sets/{SEED_SET}").text
    third = question_id(seeded, "3")
    assert _link(html, "Continue (question 3 of 7)") == f"/questions/{third}"
    assert "3 of 7 answered" in html
    for key in "3567":
        _answer(ann, seeded, key, True)
    done = ann.get(f"/sets/{SEED_SET}").text
    assert _link(done, "See your result") == f"/sets/{SEED_SET}/summary"


def test_a_set_nobody_answered_starts_at_its_first_question(ann, seeded):
    assert (
        _link(ann.get(f"/sets/{SEED_SET}").text, "Start practising")
        == f"/questions/{question_id(seeded, '1')}"
    )


def test_the_wrong_ones_again_walk_only_the_wrong_ones_in_order(ann, seeded):
    for key, right in (("1", True), ("3", False), ("5", False), ("6", True), ("7", False)):
        _answer(ann, seeded, key, right)
    summary = ann.get(f"/sets/{SEED_SET}/summary").text
    shown, end = _walk(ann, seeded, _link(summary, "Practise the wrong ones again"))
    assert shown == [question_id(seeded, key) for key in "357"]
    assert "You have been through the ones you got wrong" in end
    assert "3 of 3 questions</strong> right now" in end
    assert "Practise the wrong ones again" not in end  # none left wrong
    assert f'href="/sets/{SEED_SET}/summary">See your result' in end


def test_with_nothing_wrong_the_wrong_ones_lead_back_to_the_result(ann, seeded):
    response = ann.get(f"/sets/{SEED_SET}/wrong", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/sets/{SEED_SET}/summary"


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/sets/no-such-set/wrong", 404),
        ("/study/done?plan=1&topic=no-such-topic", 422),
        ("/study/1?plan=1&set=no-such-set", 422),
        ("/study/1?plan=1&topic=BAD!", 422),
    ],
)
def test_bad_walk_addresses_are_refused_clearly(ann, seeded, path, status):
    response = ann.get(path)
    assert response.status_code == status and "<html" in response.text


@pytest.mark.parametrize("path", [f"/sets/{SEED_SET}/wrong", "/study/1?plan=1&set=" + SEED_SET])
def test_guests_are_sent_to_log_in_for_the_wrong_ones(client, seeded, path):
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_a_set_page_and_a_walk_run_a_handful_of_queries(app, ann, seeded):
    for key in "135":
        _answer(ann, seeded, key, key == "1")
    qid = question_id(seeded, "3")
    paths = (
        f"/sets/{SEED_SET}",
        f"/study/{qid}?plan={qid}&topic=precision-int8-calibration",
        f"/study/{qid}?plan={qid}&set={SEED_SET}",
        f"/study/done?plan={qid}&topic=precision-int8-calibration",
    )
    for path in paths:
        ann.get(path)
        with count_queries(app) as statements:
            assert ann.get(path).status_code == 200
        # the set page adds where the learner is in it and their mark on each question
        assert len(statements) <= 7, (path, [s[:60] for s in statements])
