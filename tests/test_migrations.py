"""Migrations: one linear chain that builds the schema the models describe, and undoes it."""

from pathlib import Path
from typing import Any

from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text

from app.db import Database
from app.migrate import alembic_config, upgrade
from app.models import Base
from app.search.models import is_index_table
from app.search.service import search


def _tables(url: str) -> set[str]:
    """The tables of the models (the search index is checked on its own)."""
    engine = create_engine(url)
    try:
        names = set(inspect(engine).get_table_names()) - {"alembic_version"}
        return {name for name in names if not is_index_table(name)}
    finally:
        engine.dispose()


def test_chain_is_linear_with_dated_file_names():
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert len(script.get_heads()) == 1
    for revision in script.walk_revisions():
        assert not revision.is_merge_point
        assert Path(revision.path).name[:8].isdigit(), revision.path


def test_upgrade_builds_every_table_and_downgrade_removes_them(empty_url):
    upgrade(empty_url)
    assert _tables(empty_url) == set(Base.metadata.tables)
    command.downgrade(alembic_config(empty_url), "base")
    assert _tables(empty_url) == set()
    upgrade(empty_url)
    assert _tables(empty_url) == set(Base.metadata.tables)


def test_models_and_migrations_do_not_drift(empty_url):
    upgrade(empty_url)
    command.check(alembic_config(empty_url))  # raises when autogenerate would find changes


def test_tokens_made_before_expiry_existed_expire_90_days_after_creation(empty_url):
    upgrade(empty_url, "0003")
    engine = create_engine(empty_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO user_account (id, username, password_hash, role, created_at) "
                    "VALUES (1, 'ann', 'x', 'learner', '2026-01-01 00:00:00+00:00')"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO api_token (id, user_id, name, token_hash, hint, created_at) "
                    "VALUES (1, 1, 'old', 'h', 'abcd', '2026-01-01 00:00:00+00:00')"
                )
            )
        upgrade(empty_url)
        with engine.connect() as conn:
            expires = conn.execute(text("SELECT expires_at FROM api_token")).scalar_one()
        assert str(expires).startswith("2026-04-01")
    finally:
        engine.dispose()


def test_tokens_made_before_scopes_existed_get_their_owners_roles_scope(empty_url):
    upgrade(empty_url, "0018")
    stamp = "'2026-01-01 00:00:00+00:00'"
    rows = []
    for n, role in enumerate(("learner", "author", "admin"), start=1):
        rows += [
            "INSERT INTO user_account (id, username, password_hash, role, created_at) "
            f"VALUES ({n}, '{role}', 'x', '{role}', {stamp})",
            "INSERT INTO api_token (id, user_id, name, token_hash, hint, created_at, expires_at) "
            f"VALUES ({n}, {n}, 'old', 'h{n}', 'abcd', {stamp}, {stamp})",
        ]
    _run(empty_url, *rows)
    upgrade(empty_url)
    engine = create_engine(empty_url)
    try:
        with engine.connect() as conn:
            scopes = conn.execute(text("SELECT id, scope FROM api_token ORDER BY id")).all()
    finally:
        engine.dispose()
    assert [tuple(row) for row in scopes] == [(1, "practise"), (2, "author"), (3, "admin")]


def _run(url: str, *statements: str) -> None:
    """Run statements in one transaction."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            for statement in statements:
                conn.execute(text(statement))
    finally:
        engine.dispose()


def _add_content(url: str, n: int, word: str) -> None:
    """Question n (stem "Which {word}?", a choice "zeppelin{n}") and note section n ("{word}")."""
    stamp = "'2026-01-01 00:00:00+00:00'"
    rows = [
        f"INSERT INTO question_set (id, slug, title, source, imported_at) VALUES ({n}, 's{n}', 'S', '', {stamp})",
        f"INSERT INTO question (id, set_id, key, position, stem_md, explanation_md, kind, source, revision, updated_at) VALUES ({n}, {n}, '{n}', 1, 'Which {word}?', 'Entropy.', 'single', '', 1, {stamp})",
        f"INSERT INTO choice (id, question_id, position, text_md, is_correct) VALUES ({n}, {n}, 1, 'zeppelin{n}', true)",
        f"INSERT INTO note (id, slug, title, author, source, body_md, revision, updated_at) VALUES ({n}, 'n{n}', 'N', '', '', '## {word}', 1, {stamp})",
        f"INSERT INTO note_section (id, note_id, position, anchor, heading, level, body_md) VALUES ({n}, {n}, 1, '{word}', '{word}', 2, 'marsupial')",
    ]
    _run(url, *rows)


def _found(url: str, query: str) -> tuple[list[int], list[str]]:
    """The ids of the questions and the anchors of the note sections a search finds."""
    db = Database(url)
    try:
        with db.session_scope() as session:
            results = search(session, query)
            return [q.id for q in results.questions], [n.anchor for n in results.notes]
    finally:
        db.dispose()


def test_search_index_covers_content_from_before_it_and_goes_on_downgrade(empty_url):
    upgrade(empty_url, "0004")
    _add_content(empty_url, 1, "calibrator")
    upgrade(empty_url)
    assert _found(empty_url, "calibrator zeppelin1 entropy") == ([1], [])
    assert _found(empty_url, "calibrator marsupial") == ([], ["calibrator"])
    command.downgrade(alembic_config(empty_url), "0004")
    engine = create_engine(empty_url)
    try:
        assert not [name for name in inspect(engine).get_table_names() if is_index_table(name)]
    finally:
        engine.dispose()


def _scalars(url: str, sqlite_sql: str, postgres_sql: str, **params: Any) -> list[Any]:
    """The first column of the rows of the statement written for the database's dialect."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            sql = sqlite_sql if conn.dialect.name == "sqlite" else postgres_sql
            return list(conn.execute(text(sql), params).scalars())
    finally:
        engine.dispose()


def _one_table_rows(url: str, word: str) -> list[int]:
    """The rows of the one-table index (migrations 0007 to 0015) holding a word."""
    return _scalars(
        url,
        "SELECT rowid FROM search_index WHERE search_index MATCH :word ORDER BY rowid",
        "SELECT id FROM search_index WHERE document @@ plainto_tsquery('english', :word) ORDER BY id",
        word=word,
    )


def test_search_index_keeps_its_rows_and_triggers_across_its_per_kind_tables(empty_url):
    """SQLite's index moves from one table to one per kind (0016) and back, rows and all."""
    sqlite = empty_url.startswith("sqlite")
    question, section = (
        (lambda n: n, lambda n: (1 << 40) + n) if sqlite else (lambda n: 2 * n, lambda n: 2 * n + 1)
    )
    upgrade(empty_url)
    _add_content(empty_url, 1, "calibrator")
    _add_content(empty_url, 4, "dingo")
    command.downgrade(alembic_config(empty_url), "0015")
    # The one table's triggers index what is added, changed and removed
    _add_content(empty_url, 2, "quokka")
    _run(
        empty_url,
        "UPDATE question SET stem_md = 'Which platypus?' WHERE id = 4",
        "DELETE FROM note_section WHERE id = 4",
    )
    assert _one_table_rows(empty_url, "calibrator") == [question(1), section(1)]
    assert _one_table_rows(empty_url, "quokka") == [question(2), section(2)]
    assert _one_table_rows(empty_url, "platypus") == [question(4)]
    assert _one_table_rows(empty_url, "dingo") == []
    upgrade(empty_url)
    _add_content(empty_url, 3, "wombat")
    for n, word in ((1, "calibrator"), (2, "quokka"), (3, "wombat")):
        assert _found(empty_url, word) == ([n], [word])
        assert _found(empty_url, f"zeppelin{n} entropy") == ([n], [])
    assert _found(empty_url, "platypus") == ([4], [])
    assert _found(empty_url, "dingo") == ([], [])
    # and so do the per-kind tables' triggers
    _run(
        empty_url,
        "UPDATE choice SET question_id = 3, position = 2 WHERE id = 1",
        "UPDATE note_section SET body_md = 'echidna' WHERE id = 2",
        "DELETE FROM choice WHERE id = 4",
        "DELETE FROM question WHERE id = 4",
    )
    assert _found(empty_url, "zeppelin1") == ([3], [])
    assert _found(empty_url, "echidna") == ([], ["quokka"])
    assert _found(empty_url, "platypus") == ([], [])


def test_every_search_trigger_survives_the_whole_chain(empty_url):
    """A later batch migration on SQLite rebuilds its table and drops that table's triggers."""
    upgrade(empty_url)
    tables = set(
        _scalars(
            empty_url,
            "SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search%'",
            "SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname LIKE 'search%'",
        )
    )
    assert tables == {"question", "choice", "note_section"}


def test_review_cards_learn_the_outcome_of_the_latest_answer_before_them(empty_url):
    upgrade(empty_url, "0008")
    engine = create_engine(empty_url)
    stamp = "'2026-01-01 00:00:00+00:00'"
    rows = [
        f"INSERT INTO user_account (id, username, password_hash, role, created_at) VALUES (1, 'ann', 'x', 'learner', {stamp})",
        f"INSERT INTO question_set (id, slug, title, source, imported_at) VALUES (1, 's', 'S', '', {stamp})",
        *(
            f"INSERT INTO question (id, set_id, key, position, stem_md, explanation_md, kind, source, revision, updated_at) VALUES ({q}, 1, '{q}', {q}, 'Q{q}', '', 'single', '', 1, {stamp})"
            for q in (1, 2)
        ),
        # question 1: right, then wrong; question 2: wrong, then right (the same second twice)
        *(
            f"INSERT INTO practice_answer (id, user_id, question_id, question_revision, selected_ids, is_correct, answered_at) VALUES ({n}, 1, {q}, 1, '[]', {ok}, '2026-01-0{day} 00:00:00+00:00')"
            for n, q, ok, day in [
                (1, 1, "true", 1),
                (2, 1, "false", 2),
                (3, 2, "false", 3),
                (4, 2, "true", 3),
            ]
        ),
        *(
            f"INSERT INTO review_card (id, user_id, question_id, state, due_at, reviews, lapses) VALUES ({q}, 1, {q}, 1, {stamp}, 2, 0)"
            for q in (1, 2)
        ),
    ]
    try:
        with engine.begin() as conn:
            for row in rows:
                conn.execute(text(row))
        upgrade(empty_url)
        with engine.connect() as conn:
            found = conn.execute(
                text("SELECT question_id, last_correct FROM review_card ORDER BY question_id")
            ).all()
        assert [(q, bool(ok)) for q, ok in found] == [(1, False), (2, True)]
    finally:
        engine.dispose()


def test_questions_stored_before_places_existed_get_their_places_and_sets_their_sizes(empty_url):
    upgrade(empty_url, "0014")
    engine = create_engine(empty_url)
    stamp = "'2026-01-01 00:00:00+00:00'"
    # set 1 holds positions 2, 1, 2 (a kept question shares a place: the id breaks the tie)
    members = [(1, 1, 2), (2, 1, 1), (3, 1, 2), (4, 2, 5)]
    rows = [
        *(
            f"INSERT INTO question_set (id, slug, title, source, imported_at) VALUES ({s}, 's{s}', 'S', '', {stamp})"
            for s in (1, 2, 3)
        ),
        *(
            f"INSERT INTO question (id, set_id, key, position, stem_md, explanation_md, kind, source, revision, updated_at) VALUES ({q}, {s}, '{q}', {p}, 'Q{q}', '', 'single', '', 1, {stamp})"
            for q, s, p in members
        ),
    ]
    try:
        with engine.begin() as conn:
            for row in rows:
                conn.execute(text(row))
        upgrade(empty_url)
        with engine.connect() as conn:
            places = conn.execute(text("SELECT id, ordinal FROM question ORDER BY id")).all()
            sizes = conn.execute(text("SELECT id, question_count FROM question_set ORDER BY id"))
            assert [tuple(row) for row in sizes] == [(1, 3), (2, 1), (3, 0)]
        assert [tuple(row) for row in places] == [(1, 2), (2, 1), (3, 3), (4, 1)]
    finally:
        engine.dispose()


def test_study_day_columns_take_defaults_and_cards_learn_when_they_were_taken_up(empty_url):
    upgrade(empty_url, "0021")
    engine = create_engine(empty_url)
    stamp = "'2026-01-01 00:00:00+00:00'"
    rows = [
        f"INSERT INTO user_account (id, username, password_hash, role, created_at) VALUES (1, 'ann', 'x', 'learner', {stamp})",
        f"INSERT INTO question_set (id, slug, title, source, imported_at) VALUES (1, 's', 'S', '', {stamp})",
        *(
            f"INSERT INTO question (id, set_id, key, position, stem_md, explanation_md, kind, source, revision, updated_at) VALUES ({q}, 1, '{q}', {q}, 'Q{q}', '', 'single', '', 1, {stamp})"
            for q in (1, 2)
        ),
        # question 1 answered on the 1st, 2nd and 3rd; question 2 once
        *(
            f"INSERT INTO practice_answer (id, user_id, question_id, question_revision, selected_ids, is_correct, answered_at) VALUES ({n}, 1, {q}, 1, '[]', true, '2026-01-0{day} 00:00:00+00:00')"
            for n, q, day in [(1, 1, 1), (2, 1, 2), (3, 1, 3), (4, 2, 1)]
        ),
        *(
            f"INSERT INTO review_card (id, user_id, question_id, state, due_at, reviews, lapses, last_correct) VALUES ({q}, 1, {q}, 2, {stamp}, {reviews}, 0, true)"
            for q, reviews in ((1, 3), (2, 1))
        ),
    ]
    try:
        with engine.begin() as conn:
            for row in rows:
                conn.execute(text(row))
        upgrade(empty_url)
        with engine.connect() as conn:
            user = conn.execute(
                text("SELECT new_per_day, reviews_per_day, time_zone FROM user_account")
            ).one()
            taken = conn.execute(
                text("SELECT question_id, taken_up_at FROM review_card ORDER BY question_id")
            ).all()
        assert tuple(user) == (20, 200, None)
        assert [(q, str(at)[:10] if at else None) for q, at in taken] == [
            (1, "2026-01-02"),
            (2, None),
        ]
        command.downgrade(alembic_config(empty_url), "0021")
        assert "time_zone" not in {c["name"] for c in inspect(engine).get_columns("user_account")}
        assert "taken_up_at" not in {c["name"] for c in inspect(engine).get_columns("review_card")}
        upgrade(empty_url)
        command.check(alembic_config(empty_url))
    finally:
        engine.dispose()


def test_answers_from_before_walks_name_none_and_keep_their_rows_both_ways(empty_url):
    upgrade(empty_url, "0023")
    stamp = "'2026-01-01 00:00:00+00:00'"
    _run(
        empty_url,
        f"INSERT INTO user_account (id, username, password_hash, role, created_at) VALUES (1, 'ann', 'x', 'learner', {stamp})",
        f"INSERT INTO question_set (id, slug, title, source, imported_at) VALUES (1, 's', 'S', '', {stamp})",
        f"INSERT INTO question (id, set_id, key, position, stem_md, explanation_md, kind, source, revision, updated_at) VALUES (1, 1, '1', 1, 'Q1', '', 'single', '', 1, {stamp})",
        f"INSERT INTO practice_answer (id, user_id, question_id, question_revision, selected_ids, is_correct, answered_at) VALUES (1, 1, 1, 1, '[]', true, {stamp})",
    )
    engine = create_engine(empty_url)
    try:
        upgrade(empty_url, "0024")
        with engine.connect() as conn:
            assert conn.execute(text("SELECT id, walk FROM practice_answer")).all() == [(1, None)]
        command.downgrade(alembic_config(empty_url), "0023")
        assert "walk" not in {c["name"] for c in inspect(engine).get_columns("practice_answer")}
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM practice_answer")).scalar_one() == 1
    finally:
        engine.dispose()
