"""Structural guards: each page runs a small, fixed number of SQL statements (no N+1)."""

import pytest

from tests.factories import count_queries, import_file, question_id

MAX_QUERIES = 6


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


def test_note_page_query_count_does_not_grow_with_linked_questions(app, client, seeded):
    with count_queries(app) as before:
        client.get("/notes/tensorrt-note-2")
    _more_content(seeded)
    with count_queries(app) as after:
        html = client.get("/notes/tensorrt-note-2").text
    assert html.count("/questions/") > 10  # the extra questions are linked and shown
    assert len(after) == len(before)
