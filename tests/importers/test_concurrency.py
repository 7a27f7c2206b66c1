"""Imports running at the same time end as if they had run one after another, without errors."""

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor

from app.db import Database
from app.importers.errors import ImportRefused
from tests.factories import CONTENT_TABLES, exported, import_file
from tests.servers import COMMAND_TIMEOUT, server_env, studyhall_command


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


def test_parallel_import_commands_end_as_one_after_another(db, tmp_path):
    """Several `studyhall import` processes at once: no error, the same content as in turn."""
    documents = {
        "same.txt": _page("Same Set", "Which one?"),
        "other.txt": _page("Other Set", "Calibration picks which scales?"),
        "note.txt": _note("Parallel Note"),
    }
    for name, data in documents.items():
        import_file(db, data, name)
    in_turn = _content(db)
    _delete_content(db)
    for name, data in documents.items():
        (tmp_path / name).write_bytes(data)
    files = ["same.txt", "same.txt", "other.txt", "note.txt"]
    env = server_env(db.url)
    commands = [
        subprocess.Popen(
            [*studyhall_command(), "import", name],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for name in files
    ]
    outputs = [command.communicate(timeout=COMMAND_TIMEOUT)[0] for command in commands]
    assert [command.returncode for command in commands] == [0] * len(files), outputs
    assert not [output for output in outputs if "Traceback" in output]
    assert _content(db) == in_turn


def _content(db: Database) -> dict[str, object]:
    """The export, each list in a fixed order (rows are created in whatever order imports ran)."""
    return {
        name: sorted(value, key=json.dumps) if isinstance(value, list) else value
        for name, value in exported(db).items()
    }


def _delete_content(db: Database) -> None:
    with db.session_scope(write=True) as session:
        for table in reversed(CONTENT_TABLES):
            session.execute(table.delete())
