"""search: a full-text index of question stems, choices, explanations and note sections

SQLite gets an FTS5 table, PostgreSQL a table with a weighted tsvector and a GIN index.
Triggers on the content tables keep either one up to date, whoever writes. A question is
row 2 * id of the index, a note section row 2 * id + 1.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03 06:30:00
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# --- SQLite -------------------------------------------------------------------------------

# porter stems English words ("calibrated" finds "calibration"); unicode61 splits at
# punctuation, and the search builds phrases from what a person types, so `kSTRICT_TYPES`,
# `2:4` or `--saveEngine` match the same token runs in the text.
SQLITE_TABLE = (
    "CREATE VIRTUAL TABLE search_index USING fts5("
    "title, body, tokenize = 'porter unicode61 remove_diacritics 2')"
)
SQLITE_QUESTION_ROW = """
    INSERT INTO search_index (rowid, title, body)
    SELECT q.id * 2, q.stem_md,
           coalesce((SELECT group_concat(text_md, char(10))
                     FROM (SELECT text_md FROM choice
                           WHERE question_id = q.id ORDER BY position)), '')
           || char(10) || q.explanation_md
    FROM question AS q WHERE {where}
"""
SQLITE_SECTION_ROW = """
    INSERT INTO search_index (rowid, title, body)
    SELECT s.id * 2 + 1, s.heading, s.body_md FROM note_section AS s WHERE {where}
"""


def _sqlite_reindex_question(qid: str) -> str:
    return (
        f"DELETE FROM search_index WHERE rowid = {qid} * 2;"
        + SQLITE_QUESTION_ROW.format(where=f"q.id = {qid}")
        + ";"
    )


def _sqlite_reindex_section(sid: str) -> str:
    return (
        f"DELETE FROM search_index WHERE rowid = {sid} * 2 + 1;"
        + SQLITE_SECTION_ROW.format(where=f"s.id = {sid}")
        + ";"
    )


SQLITE_TRIGGERS = {
    'search_question_insert': (
        "AFTER INSERT ON question", _sqlite_reindex_question("new.id")
    ),
    'search_question_update': (
        "AFTER UPDATE OF stem_md, explanation_md ON question", _sqlite_reindex_question("new.id")
    ),
    'search_question_delete': (
        "AFTER DELETE ON question", "DELETE FROM search_index WHERE rowid = old.id * 2;"
    ),
    'search_choice_insert': (
        "AFTER INSERT ON choice", _sqlite_reindex_question("new.question_id")
    ),
    'search_choice_update': (
        "AFTER UPDATE OF question_id, position, text_md ON choice",
        _sqlite_reindex_question("new.question_id"),
    ),
    'search_choice_move': (
        "AFTER UPDATE OF question_id ON choice WHEN old.question_id <> new.question_id",
        _sqlite_reindex_question("old.question_id"),
    ),
    'search_choice_delete': (
        "AFTER DELETE ON choice", _sqlite_reindex_question("old.question_id")
    ),
    'search_section_insert': (
        "AFTER INSERT ON note_section", _sqlite_reindex_section("new.id")
    ),
    'search_section_update': (
        "AFTER UPDATE OF heading, body_md ON note_section", _sqlite_reindex_section("new.id")
    ),
    'search_section_delete': (
        "AFTER DELETE ON note_section", "DELETE FROM search_index WHERE rowid = old.id * 2 + 1;"
    ),
}


def _upgrade_sqlite() -> None:
    op.execute(SQLITE_TABLE)
    for name, (when, body) in SQLITE_TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} BEGIN {body} END")
    op.execute(SQLITE_QUESTION_ROW.format(where="1"))
    op.execute(SQLITE_SECTION_ROW.format(where="1"))


def _downgrade_sqlite() -> None:
    for name in SQLITE_TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.execute("DROP TABLE IF EXISTS search_index")


# --- PostgreSQL ---------------------------------------------------------------------------

# The foreign keys remove a row with its question or section (and TRUNCATE ... CASCADE of
# the content empties the index too).
POSTGRES_TABLE = """
    CREATE TABLE search_index (
        id bigint NOT NULL,
        question_id integer REFERENCES question (id) ON DELETE CASCADE,
        section_id integer REFERENCES note_section (id) ON DELETE CASCADE,
        title text NOT NULL,
        body text NOT NULL,
        document tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('english', title), 'A')
            || setweight(to_tsvector('english', body), 'B')
        ) STORED,
        CONSTRAINT pk_search_index PRIMARY KEY (id)
    )
"""
POSTGRES_INDEXES = (
    "CREATE INDEX ix_search_index_document ON search_index USING gin (document)",
    "CREATE INDEX ix_search_index_question_id ON search_index (question_id)",
    "CREATE INDEX ix_search_index_section_id ON search_index (section_id)",
)
POSTGRES_FUNCTIONS = {
    'search_index_question(qid integer)': """
        INSERT INTO search_index (id, question_id, title, body)
        SELECT q.id::bigint * 2, q.id, q.stem_md,
               coalesce((SELECT string_agg(c.text_md, E'\\n' ORDER BY c.position)
                         FROM choice AS c WHERE c.question_id = q.id), '')
               || E'\\n' || q.explanation_md
        FROM question AS q WHERE q.id = qid
        ON CONFLICT (id) DO UPDATE SET title = excluded.title, body = excluded.body;
    """,
    'search_index_section(sid integer)': """
        INSERT INTO search_index (id, section_id, title, body)
        SELECT s.id::bigint * 2 + 1, s.id, s.heading, s.body_md
        FROM note_section AS s WHERE s.id = sid
        ON CONFLICT (id) DO UPDATE SET title = excluded.title, body = excluded.body;
    """,
}
POSTGRES_TRIGGER_FUNCTIONS = {
    'search_question_changed': "PERFORM search_index_question(NEW.id);",
    'search_choice_changed': """
        IF TG_OP <> 'INSERT' THEN PERFORM search_index_question(OLD.question_id); END IF;
        IF TG_OP <> 'DELETE' THEN PERFORM search_index_question(NEW.question_id); END IF;
    """,
    'search_section_changed': "PERFORM search_index_section(NEW.id);",
}
POSTGRES_TRIGGERS = {
    'search_question': (
        "AFTER INSERT OR UPDATE OF stem_md, explanation_md ON question",
        'search_question_changed',
    ),
    'search_choice': (
        "AFTER INSERT OR DELETE OR UPDATE OF question_id, position, text_md ON choice",
        'search_choice_changed',
    ),
    'search_section': (
        "AFTER INSERT OR UPDATE OF heading, body_md ON note_section",
        'search_section_changed',
    ),
}


def _upgrade_postgresql() -> None:
    op.execute(POSTGRES_TABLE)
    for statement in POSTGRES_INDEXES:
        op.execute(statement)
    for signature, body in POSTGRES_FUNCTIONS.items():
        op.execute(f"CREATE FUNCTION {signature} RETURNS void LANGUAGE sql AS $${body}$$")
    for name, body in POSTGRES_TRIGGER_FUNCTIONS.items():
        op.execute(
            f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$BEGIN {body} RETURN NULL; END$$"
        )
    for name, (when, function) in POSTGRES_TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} FOR EACH ROW EXECUTE FUNCTION {function}()")
    op.execute("SELECT search_index_question(id) FROM question")
    op.execute("SELECT search_index_section(id) FROM note_section")


def _downgrade_postgresql() -> None:
    for name, (when, _) in POSTGRES_TRIGGERS.items():
        table = when.rsplit(" ON ", 1)[1]
        op.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
    for name in POSTGRES_TRIGGER_FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {name}()")
    for signature in POSTGRES_FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {signature}")
    op.execute("DROP TABLE IF EXISTS search_index")


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _upgrade_sqlite()
    else:
        _upgrade_postgresql()


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _downgrade_sqlite()
    else:
        _downgrade_postgresql()
