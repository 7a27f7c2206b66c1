"""Upgrades keep what learners did: a database made by an earlier release, or at any earlier
revision, comes up to date with its answers' review cards, tallies and the new content."""

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
import pytest
from alembic.script import ScriptDirectory
from fastapi.testclient import TestClient
from sqlalchemy import MetaData, create_engine, func, insert, select
from typer.testing import CliRunner

from app.cli import cli
from app.config import Settings, get_settings
from app.main import create_app
from app.migrate import alembic_config, upgrade
from tests.factories import SHIPPED_SEED_DIR

FIXTURES = Path(__file__).parent / "fixtures"
# Made by tests/fixtures/make_release_database.py with the release of commit 6b1e7f6
# (schema revision 0002): one learner, "early", answered the 7 seed questions, 4 of them right.
EARLY_RELEASE = FIXTURES / "studyhall-6b1e7f6.db"
EARLY_PASSWORD = "an early learner's passphrase"
EARLY_ANSWERS = {1: True, 2: False, 3: True, 4: True, 5: False, 6: True, 7: False}


def _said(result: Any) -> str:
    return " ".join(click.unstyle(result.output).split())


@pytest.fixture
def early_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A copy of the early release's database, the `studyhall` command pointed at it."""
    path = tmp_path / "studyhall.db"
    shutil.copyfile(EARLY_RELEASE, path)
    url = f"sqlite:///{path}"
    monkeypatch.setenv("STUDYHALL_DATABASE_URL", url)
    monkeypatch.setenv("STUDYHALL_SEED_DIR", str(SHIPPED_SEED_DIR))
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


def _rows(url: str, statement: Any) -> list[Any]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(statement))
    finally:
        engine.dispose()


def _tables(url: str) -> Any:
    engine = create_engine(url)
    try:
        metadata = MetaData()
        metadata.reflect(engine)
        return metadata.tables
    finally:
        engine.dispose()


def test_the_early_release_database_upgrades_as_make_run_does(early_release):
    runner = CliRunner()
    refused = runner.invoke(cli, ["serve"])
    assert refused.exit_code == 2 and "is at revision 0002" in _said(refused)

    migrated = runner.invoke(cli, ["migrate"])
    assert migrated.exit_code == 0, migrated.output
    assert "Upgraded the database schema from revision 0002 to" in _said(migrated)
    assert "Made 7 review cards from 7 answers given before cards were kept." in _said(migrated)
    seeded = runner.invoke(cli, ["seed", "--if-changed"])
    assert seeded.exit_code == 0, seeded.output
    assert "Loaded the seed content: " in _said(seeded)
    assert "exams created 17" in _said(seeded) and "questions created 376" in _said(seeded)

    tables = _tables(early_release)
    cards = tables["review_card"]
    assert dict(_rows(early_release, select(cards.c.question_id, cards.c.last_correct))) == (
        EARLY_ANSWERS
    )
    assert _rows(early_release, select(func.count()).select_from(tables["exam_blueprint"])) == [
        (17,)
    ]
    assert _rows(early_release, select(func.count()).select_from(tables["question"])) == [(383,)]


def test_the_early_learner_sees_their_history_after_the_upgrade(early_release):
    runner = CliRunner()
    for command in (["migrate"], ["seed", "--if-changed"]):
        assert runner.invoke(cli, command).exit_code == 0
    settings = Settings(database_url=early_release, content_cache_seconds=0)
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").json()["status"] == "ok"
        form = {"username": "early", "password": EARLY_PASSWORD}
        assert client.post("/login", data=form, follow_redirects=False).status_code == 303
        progress = client.get("/api/v1/progress").json()
        exams = client.get("/exams").text
    assert progress["activity"]["answers"] == 7
    assert sum(topic["seen"] for topic in progress["topics"]) == 7
    assert sum(topic["latest_right"] for topic in progress["topics"]) == 4
    assert sum(topic["mastery"] > 0 for topic in progress["topics"]) >= 1
    assert progress["review"]["due_today"] == 7
    assert "Full mock exam" in exams or "mock" in exams.lower()


def test_serve_refuses_a_database_without_a_schema(tmp_path, monkeypatch):
    import uvicorn

    started: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: started.append(kwargs))
    monkeypatch.setenv("STUDYHALL_DATABASE_URL", f"sqlite:///{tmp_path / 'new.db'}")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["serve"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2
    assert "no schema yet" in _said(result) and "studyhall migrate" in _said(result)
    assert started == []


def _earlier_revisions() -> list[str]:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    revisions = [rev.revision for rev in script.walk_revisions()]
    return sorted(rev for rev in revisions if rev >= "0002" and rev != script.get_current_head())


def _insert(conn: Any, table: Any, **values: Any) -> int:
    """Insert the values a table has at this revision; return the new row's id."""
    kept = {name: value for name, value in values.items() if name in table.c}
    return conn.execute(insert(table).values(kept).returning(table.c.id)).scalar_one()


def _a_history(url: str, answers: dict[str, list[bool]]) -> None:
    """A learner's answers to questions of one set, written in the schema of the revision."""
    tables, now = _tables(url), datetime(2026, 11, 1, 9, tzinfo=UTC)
    engine = create_engine(url)
    with engine.begin() as conn:
        common = {"title": "Old", "source": "old.txt", "imported_at": now, "updated_at": now}
        set_id = _insert(conn, tables["question_set"], slug="old", size=len(answers), **common)
        user_id = _insert(
            conn,
            tables["user_account"],
            username="early",
            password_hash="-",
            role="learner",
            created_at=now,
        )
        for position, (key, given) in enumerate(answers.items(), start=1):
            question_id = _insert(
                conn,
                tables["question"],
                set_id=set_id,
                key=key,
                position=position,
                place=position,
                stem_md=f"Question {key}?",
                explanation_md="Because.",
                kind="single",
                revision=1,
                **common,
            )
            right = _insert(
                conn,
                tables["choice"],
                question_id=question_id,
                position=1,
                text_md="Right",
                is_correct=True,
            )
            wrong = _insert(
                conn,
                tables["choice"],
                question_id=question_id,
                position=2,
                text_md="Wrong",
                is_correct=False,
            )
            for n, correct in enumerate(given):
                _insert(
                    conn,
                    tables["practice_answer"],
                    user_id=user_id,
                    question_id=question_id,
                    question_revision=1,
                    selected_ids=[right if correct else wrong],
                    is_correct=correct,
                    answered_at=now + timedelta(days=n, minutes=position),
                    source="practice",
                )
    engine.dispose()


@pytest.mark.parametrize("revision", _earlier_revisions())
def test_answers_given_at_each_earlier_revision_get_their_review_cards(empty_url, revision):
    upgrade(empty_url, revision)
    history = {"a": [True], "b": [False], "c": [False, True], "d": [True, True, False]}
    _a_history(empty_url, history)
    rebuilt = upgrade(empty_url)
    assert rebuilt is not None and (rebuilt.cards, rebuilt.answers) == (4, 7)
    assert upgrade(empty_url) is None  # nothing missing any more
    tables = _tables(empty_url)
    cards, questions = tables["review_card"], tables["question"]
    rows = _rows(
        empty_url,
        select(questions.c.key, cards.c.last_correct, cards.c.reviews, cards.c.lapses)
        .join(questions, questions.c.id == cards.c.question_id)
        .order_by(questions.c.key),
    )
    assert [(key, bool(right), reviews) for key, right, reviews, _ in rows] == [
        ("a", True, 1),
        ("b", False, 1),
        ("c", True, 2),
        ("d", False, 3),
    ]
