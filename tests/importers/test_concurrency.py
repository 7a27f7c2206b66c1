"""Imports running at the same time end as if they had run one after another, without errors."""

from concurrent.futures import ThreadPoolExecutor

from app.db import Database
from app.importers.errors import ImportRefused
from tests.factories import exported, import_file


def _page(title: str, stem: str) -> bytes:
    return (
        f"{title} — Questions and Answers\nQuestion 1: {stem}\n- a (Correct answer)\n- b\n"
        "Correct answer: a\nBecause.\n"
    ).encode()


def _note(title: str) -> bytes:
    return (
        f"someone\na tagline\n{title}\nWritten in\nby\nsomeone\n, ,\n"
        "  1. Calibration picks INT8 scales\n  2. Engines are built once\nTags\n"
    ).encode()


def test_parallel_imports_of_the_same_and_different_files_all_succeed(settings):
    """The same new file three times, and different files at once (PostgreSQL and SQLite)."""
    documents = [
        ("same.txt", _page("Same Set", "Which one?")),
        ("same.txt", _page("Same Set", "Which one?")),
        ("same.txt", _page("Same Set", "Which one?")),
        ("other.txt", _page("Other Set", "Calibration picks which scales?")),
        ("note.txt", _note("Parallel Note")),
        ("third.txt", _page("Third Set", "Engines are built how often?")),
    ]
    db = Database(settings.database_url)
    try:
        with ThreadPoolExecutor(max_workers=len(documents)) as pool:
            outcomes = list(pool.map(lambda d: _import(db, *d), documents))
        assert outcomes == ["ok"] * len(documents)
        together = exported(db)
    finally:
        db.dispose()
    assert {s["slug"] for s in together["question_sets"]} == {"same-set", "other-set", "third-set"}
    assert len(together["questions"]) == 3 and len(together["notes"]) == 1


def _import(db: Database, name: str, data: bytes) -> str:
    try:
        import_file(db, data, name)
    except ImportRefused as exc:
        return f"refused {exc}"
    return "ok"
