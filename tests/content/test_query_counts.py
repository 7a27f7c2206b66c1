"""Structural guards: each page runs a small, fixed number of SQL statements (no N+1)."""

import sqlite3
from contextlib import closing

import pytest
from sqlalchemy import event
from sqlalchemy.engine import make_url

from tests.factories import count_queries, import_file, import_long_set, question_id

MAX_QUERIES = 6
# Statements per page for a library of any size (lists are paged, counts come from SQL).
PAGE_QUERIES = {
    "/": 5,
    "/sets/bulk-set": 4,
    "/sets/bulk-set?page=2": 4,
    "/topics/bulk": 6,
    "/questions/last": 2,
    "/sets": 1,
    "/notes": 1,
}


def _more_content(db) -> None:  # type: ignore[no-untyped-def]
    """Add questions and link them all to the note, so an N+1 would multiply queries."""
    lines = ["Extra Set — Questions and Answers"]
    for n in range(1, 21):
        lines += [
            f"Question {n}: Which calibration table option {n} applies to INT8 precision?",
            "- The entropy calibrator (Correct answer)",
            "- The legacy calibrator",
            "Correct answer: The entropy calibrator",
            "INT8 calibration uses dynamic range and the calibration table cache.",
        ]
    import_file(db, "\n".join(lines).encode(), "extra.txt", threshold=0.01)


@pytest.mark.parametrize(
    "path", ["/", "/topics/precision-int8-calibration", "/notes/tensorrt-note-2", "/sets/extra-set"]
)
def test_pages_run_a_handful_of_queries(app, client, seeded, path):
    _more_content(seeded)
    with count_queries(app) as statements:
        assert client.get(path).status_code == 200
    assert len(statements) <= MAX_QUERIES, statements


def test_question_page_and_answer_run_a_handful_of_queries(app, client, seeded):
    _more_content(seeded)
    qid = question_id(seeded, "3")
    with count_queries(app) as statements:
        assert client.get(f"/questions/{qid}").status_code == 200
    assert len(statements) <= MAX_QUERIES, statements


def test_note_page_query_count_does_not_grow_with_linked_questions(app, user_client, seeded):
    author = user_client("ann", role="author")  # who sees every suggestion, weak ones too
    with count_queries(app) as before:
        author.get("/notes/tensorrt-note-2")
    _more_content(seeded)
    with count_queries(app) as after:
        html = author.get("/notes/tensorrt-note-2").text
    assert html.count("/questions/") > 10  # the extra questions are linked and shown
    assert len(after) == len(before)


def _statements(app, client, db, questions: int) -> dict[str, int]:  # type: ignore[no-untyped-def]
    import_long_set(db, "bulk", questions)
    last = question_id(db, str(questions), "bulk-set")
    paths = ["/", "/sets/bulk-set", "/sets/bulk-set?page=2", "/topics/bulk", f"/questions/{last}"]
    paths += ["/sets", "/notes"]
    counts = {}
    for path in paths:
        with count_queries(app) as statements:
            response = client.get(path)
        assert response.status_code == 200, path
        assert response.text.count('<li><a href="/questions/') <= 50, path  # one page at most
        counts[path.replace(str(last), "last")] = len(statements)
    return counts


@pytest.mark.parametrize("questions", [60, 5000])
def test_page_queries_do_not_grow_with_the_library(app, client, db, questions):
    """The same statements with 60 questions as with 5,000: lists are paged, not loaded whole."""
    assert _statements(app, client, db, questions) == PAGE_QUERIES


def test_open_errata_are_found_by_their_page_not_among_every_open_report(app, client, seeded):
    """A question or note page asks for its own open errata: SQLite must reach them through
    the target's index. Through the status index it would read every open report in the
    library on each page (2.6 ms a page with 20,000 open reports)."""
    if seeded.engine.dialect.name != "sqlite":
        pytest.skip("the query plan checked is SQLite's")
    path = make_url(seeded.url).database
    plans: list[str] = []

    def explain(_conn, _cursor, statement, parameters, *_args) -> None:  # type: ignore[no-untyped-def]
        if "problem_report" in statement and statement.lstrip().startswith("SELECT"):
            with closing(sqlite3.connect(path)) as plain:
                rows = plain.execute(f"EXPLAIN QUERY PLAN {statement}", parameters).fetchall()
            plans.extend(row[3] for row in rows if "problem_report" in row[3])

    for engine in [app.state.db.engine]:
        event.listen(engine, "before_cursor_execute", explain)
    try:
        assert client.get(f"/questions/{question_id(seeded, '3')}").status_code == 200
        assert client.get("/notes/tensorrt-note-2").status_code == 200
    finally:
        for engine in [app.state.db.engine]:
            event.remove(engine, "before_cursor_execute", explain)
    assert any("question_id" in plan for plan in plans), plans
    assert any("section_id" in plan for plan in plans), plans
    assert all(
        "(question_id=? AND status=?)" in p or "(section_id=? AND status=?)" in p for p in plans
    ), plans
