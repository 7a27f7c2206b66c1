"""Structural guards on the exam hot path: saves and question pages run a small, fixed set of
statements, read one question's snapshot, and never take a pooled connection on the event loop.

A pooled query on the event loop blocks every request of the worker; under load it waited for
a pooled connection that only the blocked loop could give back. Every read and write goes
through the runner (`db.read`, `db.write`), which runs it in the database's own threads.
"""

import asyncio
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.engine import make_url

from app.main import create_app
from tests.exams.conftest import EXAM
from tests.exams.helpers import items, right_and_wrong
from tests.factories import count_queries, log_in


def _start(client) -> int:  # type: ignore[no-untyped-def]
    response = client.post(f"/exams/{EXAM}/start", follow_redirects=False)
    assert response.status_code == 303
    return int(response.headers["location"].rsplit("/", 1)[1])


@pytest.fixture
def sitting(seeded, user_client):  # type: ignore[no-untyped-def]
    """A logged-in learner with an open attempt, its first question shown once already."""
    client = user_client("ann")
    attempt_id = _start(client)
    assert client.get(f"/attempts/{attempt_id}/questions/1").status_code == 200
    right, wrong = right_and_wrong(items(seeded, attempt_id)[0])
    return client, attempt_id, right, wrong


def _exam_statements(statements: list[str]) -> list[str]:
    # Who is asking is looked up on every request; only the exam's own work is counted.
    return [s for s in statements if "exam_attempt" in s]


def _snapshot_reads(statements: list[str]) -> int:
    return sum("snapshot" in s for s in statements)


def test_an_htmx_save_runs_five_statements_and_reads_one_snapshot(app, sitting):
    client, attempt_id, right, _ = sitting
    with count_queries(app) as statements:
        response = client.post(
            f"/attempts/{attempt_id}/questions/1",
            data={"choice": str(right)},
            headers={"HX-Request": "true"},
        )
    assert response.status_code == 200 and "Saved." in response.text
    exam = _exam_statements(statements)
    # claim the attempt (mine? open? in time?), read the question, write it, the attempt as
    # it now stands, the marks: all in the save's one write, nothing read before it
    assert len(exam) == 5, exam
    assert _snapshot_reads(exam) == 1, exam


def test_an_api_save_runs_four_statements(app, sitting):
    client, attempt_id, right, _ = sitting
    with count_queries(app) as statements:
        response = client.put(
            f"/api/v1/attempts/{attempt_id}/questions/1/answer", json={"choice_ids": [right]}
        )
    assert response.status_code == 200 and response.json()["selected_ids"] == [right]
    exam = _exam_statements(statements)
    assert len(exam) == 4, exam
    assert _snapshot_reads(exam) == 1, exam


@pytest.mark.parametrize("path", ["/attempts/{}/questions/3", "/api/v1/attempts/{}/questions/3"])
def test_a_question_reads_the_attempt_then_its_marks_and_snapshot(app, sitting, path):
    """Nothing of an attempt is kept between requests: a close elsewhere holds at once."""
    client, attempt_id, _, _ = sitting
    for _ in range(2):
        with count_queries(app) as statements:
            assert client.get(path.format(attempt_id)).status_code == 200
        assert len(_exam_statements(statements)) == 2, statements


def test_a_question_page_is_one_read_after_who_is_asking(app, sitting):
    """The attempt, its marks and the question come from one transaction, not one each."""
    client, attempt_id, _, _ = sitting
    begun: list[object] = []
    record = begun.append
    engine = app.state.db.engine
    event.listen(engine, "begin", record)
    try:
        assert client.get(f"/attempts/{attempt_id}/questions/3").status_code == 200
    finally:
        event.remove(engine, "begin", record)
    assert len(begun) == 2, begun  # the viewer's session, then the page


def test_the_summary_reads_no_snapshot(app, sitting):
    client, attempt_id, _, _ = sitting
    with count_queries(app) as statements:
        assert client.get(f"/attempts/{attempt_id}/summary").status_code == 200
    assert _snapshot_reads(_exam_statements(statements)) == 0, statements


@contextmanager
def queries_on_the_event_loop(app) -> Iterator[list[str]]:  # type: ignore[no-untyped-def]
    """Collect the pooled statements run by a thread that is running an event loop."""
    found: list[str] = []

    def record(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # a worker or writer thread: where the database belongs
        found.append(statement)

    engine = app.state.db.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield found
    finally:
        event.remove(engine, "before_cursor_execute", record)


def test_no_exam_request_queries_on_the_event_loop(app, seeded, sitting, user_client):
    client, attempt_id, right, wrong = sitting
    question = f"/attempts/{attempt_id}/questions/1"
    api = f"/api/v1/attempts/{attempt_id}/questions/2"
    htmx = {"HX-Request": "true"}
    admin = user_client("root", role="admin")
    with queries_on_the_event_loop(app) as found:
        assert client.get(question).status_code == 200
        assert client.post(question, data={"choice": str(right)}, headers=htmx).status_code == 200
        bad = client.post(question, data={"choice": "999999"}, headers=htmx)
        assert bad.status_code == 422
        saved = client.post(question, data={"choice": str(wrong), "go": "next"})
        assert saved.status_code == 200
        assert client.put(f"{api}/answer", json={"choice_ids": []}).status_code == 200
        assert client.put(f"{api}/flag", json={"flagged": True}).status_code == 200
        assert client.post("/exams/custom", data={"count": "x"}).status_code == 422
        assert admin.post("/exams/extra-time", data={"username": "nobody"}).status_code == 422
        assert client.get(f"/attempts/{attempt_id}/summary").status_code == 200
        assert client.post(f"/attempts/{attempt_id}/submit").status_code == 200
    assert found == []


def test_a_submit_in_another_worker_is_kept_to_by_this_one(settings, seeded, make_user):
    """Two workers: one shows the attempt open, the other submits it; the first refuses the
    next save and shows the result from the very next request."""
    make_user("bob")
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        log_in(one, "bob")
        two.cookies = one.cookies
        attempt_id = _start(one)
        page = f"/attempts/{attempt_id}/questions/1"
        assert one.get(page).status_code == 200
        right, _ = right_and_wrong(items(seeded, attempt_id)[0])
        assert two.post(f"/attempts/{attempt_id}/submit").status_code == 200
        late = one.post(page, data={"choice": str(right)}, headers={"HX-Request": "true"})
        assert late.status_code == 409
        assert late.headers["hx-redirect"] == f"/attempts/{attempt_id}"
        assert items(seeded, attempt_id)[0].selected_ids == []
        shown = one.get(page, follow_redirects=False)
        assert shown.status_code == 303 and shown.headers["location"] == f"/attempts/{attempt_id}"


def _custom(client, topics: list[str], count: int) -> int:  # type: ignore[no-untyped-def]
    data = {"topics": topics, "count": str(count), "minutes": "60", "mode": "exam"}
    response = client.post("/exams/custom", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    return int(response.headers["location"].rsplit("/", 1)[1])


def test_starting_and_submitting_cost_the_same_statements_for_two_questions_or_six(
    app, seeded, user_client
):
    """A crowd starts and submits at once: neither runs a statement per question."""
    client = user_client("ann")
    topics = [t["slug"] for t in client.get("/api/v1/topics").json()]
    cost = {}
    for count in (1, 2, 6):  # the first one warms what a worker keeps
        with count_queries(app) as started:
            attempt_id = _custom(client, topics, count)
        for position, item in enumerate(items(seeded, attempt_id), start=1):
            right, _ = right_and_wrong(item)
            page = f"/attempts/{attempt_id}/questions/{position}"
            assert client.post(page, data={"choice": str(right)}).status_code == 200
        with count_queries(app) as submitted:
            assert client.post(f"/attempts/{attempt_id}/submit").status_code == 200
        assert len(items(seeded, attempt_id)) == count
        cost[count] = len(started), len(submitted)
    assert cost[2] == cost[6], cost


def test_practice_asks_once_whether_an_open_exam_holds_the_question(app, seeded, sitting, client):
    """A learner's practice answer costs one statement on the exam tables; a guest's none."""
    ann, attempt_id, right, _ = sitting
    qid = items(seeded, attempt_id)[0].question_id
    with count_queries(app) as statements:
        page = ann.post(f"/questions/{qid}", data={"choice": str(right)})
    assert page.status_code == 409
    assert len(_exam_statements(statements)) == 1, statements
    with count_queries(app) as statements:
        assert client.post(f"/questions/{qid}", data={"choice": str(right)}).status_code == 200
    assert _exam_statements(statements) == []


def test_practice_finds_the_open_exams_through_indexes(app, seeded, sitting):
    """SQLite reaches a learner's open exams by index, never by scanning every attempt or
    every item: practice asks on each answer."""
    if seeded.engine.dialect.name != "sqlite":
        pytest.skip("the query plan checked is SQLite's")
    ann, attempt_id, right, _ = sitting
    qid = items(seeded, attempt_id)[0].question_id
    path = make_url(seeded.url).database
    plans: list[str] = []

    def explain(_conn, _cursor, statement, parameters, *_args) -> None:  # type: ignore[no-untyped-def]
        if "exam_attempt_item" in statement and statement.lstrip().startswith("SELECT"):
            with closing(sqlite3.connect(path)) as plain:
                rows = plain.execute(f"EXPLAIN QUERY PLAN {statement}", parameters).fetchall()
            plans.extend(row[3] for row in rows)

    engine = app.state.db.engine
    event.listen(engine, "before_cursor_execute", explain)
    try:
        assert ann.post(f"/questions/{qid}", data={"choice": str(right)}).status_code == 409
    finally:
        event.remove(engine, "before_cursor_execute", explain)
    assert plans and not any(plan.startswith("SCAN") for plan in plans), plans
    assert any("(question_id=? AND attempt_id=?)" in plan for plan in plans), plans
