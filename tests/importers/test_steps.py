"""Imports in short steps: checked before any write, other writers go on between the steps,
one import at a time, and a load cut short completes when run again."""

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select, update

from app.accounts.service import create_user
from app.content.models import Question, QuestionNoteLink
from app.db import Database
from app.importers.errors import ImportRefused
from app.importers.service import import_in_steps
from tests.factories import count_rows, exported, import_file, snapshot, table_rows

NOTE = "## Calibration\n\nINT8 calibration picks dynamic ranges with an entropy calibrator.\n"


def library(questions: int, set_slug: str = "big", first: int = 1) -> bytes:
    """A JSON export of one set of questions and one note they can be linked to."""
    return json.dumps(
        {
            "format": "studyhall.content/1",
            "question_sets": [{"slug": set_slug, "title": set_slug.title()}],
            "questions": [
                {
                    "id": f"{set_slug}/{n}",
                    "set": set_slug,
                    "stem": f"Which calibrator picks INT8 dynamic ranges, case {n}?",
                    "choices": [
                        {"text": "The entropy calibrator", "correct": True},
                        {"text": "The legacy one", "correct": False},
                    ],
                    "notes": ["guide#calibration"] if n == first else [],
                }
                for n in range(first, first + questions)
            ],
            "notes": [{"slug": "guide", "title": "Guide", "markdown": NOTE}],
        }
    ).encode()


def steps(db: Database, data: bytes, **kwargs) -> None:  # type: ignore[no-untyped-def]
    import_in_steps(db, data, "library.json", 0.05, **kwargs)


def state(db: Database) -> tuple[object, ...]:
    """The export, questions and choices row for row, and links (their ids aside)."""
    tables = table_rows(db)
    links = sorted(row[1:] for row in tables["question_note_link"])
    return exported(db), tables["question"], tables["choice"], links


def test_a_stepwise_import_and_a_one_transaction_import_agree(db):
    steps(db, library(1201))
    stepwise = state(db)
    report = import_file(db, library(1201), "library.json", 0.05)
    assert report.counts["questions_unchanged"] == 1201
    assert state(db) == stepwise
    assert len(exported(db)["questions"]) == 1201
    assert count_rows(db, QuestionNoteLink, QuestionNoteLink.origin == "suggested") > 0


def test_a_refused_import_writes_nothing(db):
    steps(db, library(3))
    before = snapshot(db)
    bad = json.loads(library(600))
    bad["questions"][550]["notes"] = ["guide#nowhere"]
    with pytest.raises(ImportRefused, match="no note section 'guide#nowhere'"):
        steps(db, json.dumps(bad, indent=1).encode())
    assert snapshot(db) == before


def test_an_import_cut_short_completes_when_run_again(db, monkeypatch):
    calls = []

    def fail_after_two(phase: str, done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 3:
            raise RuntimeError("the process was stopped")

    with pytest.raises(RuntimeError):
        steps(db, library(1200), progress=fail_after_two)
    assert 0 < count_rows(db, Question) < 1200
    steps(db, library(1200))
    complete = exported(db)
    steps(db, library(1200))
    assert exported(db) == complete and len(complete["questions"]) == 1200


def test_other_writers_commit_between_the_steps(db):
    written = []

    def write_between(phase: str, done: int, total: int) -> None:
        with db.session_scope(write=True) as session:
            create_user(session, f"learner{len(written)}", "a long enough password")
        written.append(done)

    steps(db, library(1100), progress=write_between)
    assert len(written) >= 4  # after the head, the note and each of three question steps


def test_adding_questions_scores_only_the_new_ones(db):
    steps(db, library(50))
    with db.session_scope(write=True) as session:  # mark the existing suggestions
        session.execute(update(QuestionNoteLink).values(score=0.5))
    steps(db, library(5, first=51))
    with db.session_scope() as session:
        scores = session.scalars(
            select(QuestionNoteLink.score).where(QuestionNoteLink.origin == "suggested")
        ).all()
    assert sorted(scores).count(0.5) == 49 and len(scores) == 49 + 4


def test_editing_a_note_scores_every_question_again(db):
    steps(db, library(20))
    with db.session_scope(write=True) as session:
        session.execute(update(QuestionNoteLink).values(score=0.5))
    edited = library(20).replace(b"entropy calibrator.", b"entropy calibrator, usually.")
    steps(db, edited)
    with db.session_scope() as session:
        scores = session.scalars(
            select(QuestionNoteLink.score).where(QuestionNoteLink.origin == "suggested")
        ).all()
    assert scores and 0.5 not in scores


def test_imports_run_one_at_a_time(settings):
    documents = [library(700, f"set-{n}") for n in range(3)] + [library(700, "set-0")]
    db = Database(settings.database_url)
    try:
        with ThreadPoolExecutor(max_workers=len(documents)) as pool:
            list(pool.map(lambda data: steps(db, data), documents))
        together = exported(db)
    finally:
        db.dispose()
    assert len(together["questions"]) == 2100
    assert len(together["notes"]) == 1
