"""search leaves retired questions out: a retired question is found again once brought back

The index's triggers write a question's row only while it is in use, and retiring or bringing
it back (an update of `retired_at`) indexes it again. The rows of questions already retired
are removed.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-07 09:00:00
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0030'
down_revision: str | None = '0029'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IN_USE = " AND q.retired_at IS NULL"
RETIRED = "SELECT id FROM question WHERE retired_at IS NOT NULL"

# --- SQLite: one FTS5 table per kind (migration 0016), row id = the question's id ---------

SQLITE_ROW = """
    INSERT INTO search_index_question (rowid, title, body)
    SELECT q.id, q.stem_md,
           coalesce((SELECT group_concat(text_md, char(10))
                     FROM (SELECT text_md FROM choice
                           WHERE question_id = q.id ORDER BY position)), '')
           || char(10) || q.explanation_md
    FROM question AS q WHERE {where}
"""
# The triggers that index a question again: name, (when, the question's id). `{columns}` is
# where the update trigger's extra column goes.
SQLITE_TRIGGERS = {
    "search_question_insert": ("AFTER INSERT ON question", "new.id"),
    "search_question_update": (
        "AFTER UPDATE OF stem_md, explanation_md{columns} ON question", "new.id"
    ),
    "search_choice_insert": ("AFTER INSERT ON choice", "new.question_id"),
    "search_choice_update": (
        "AFTER UPDATE OF question_id, position, text_md ON choice", "new.question_id"
    ),
    "search_choice_move": (
        "AFTER UPDATE OF question_id ON choice WHEN old.question_id <> new.question_id",
        "old.question_id",
    ),
    "search_choice_delete": ("AFTER DELETE ON choice", "old.question_id"),
}


def _sqlite_triggers(*, in_use_only: bool) -> None:
    condition, columns = (IN_USE, ", retired_at") if in_use_only else ("", "")
    for name, (when, qid) in SQLITE_TRIGGERS.items():
        body = (
            f"DELETE FROM search_index_question WHERE rowid = {qid};"
            + SQLITE_ROW.format(where=f"q.id = {qid}{condition}")
            + ";"
        )
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute(f"CREATE TRIGGER {name} {when.format(columns=columns)} BEGIN {body} END")


# --- PostgreSQL: one table, its rows written by search_index_question() (migration 0007) ---

POSTGRES_FUNCTION = """
    CREATE OR REPLACE FUNCTION search_index_question(qid integer) RETURNS void LANGUAGE sql AS $$
        DELETE FROM search_index WHERE question_id = qid;
        INSERT INTO search_index (id, question_id, title, body)
        SELECT q.id::bigint * 2, q.id, q.stem_md,
               coalesce((SELECT string_agg(c.text_md, E'\\n' ORDER BY c.position)
                         FROM choice AS c WHERE c.question_id = q.id), '')
               || E'\\n' || q.explanation_md
        FROM question AS q WHERE q.id = qid{condition}
        ON CONFLICT (id) DO UPDATE SET title = excluded.title, body = excluded.body;
    $$
"""
POSTGRES_TRIGGER = (
    "CREATE TRIGGER search_question AFTER INSERT OR UPDATE OF stem_md, explanation_md{columns} "
    "ON question FOR EACH ROW EXECUTE FUNCTION search_question_changed()"
)


def _postgres(*, in_use_only: bool) -> None:
    condition, columns = (IN_USE, ", retired_at") if in_use_only else ("", "")
    op.execute(POSTGRES_FUNCTION.format(condition=condition))
    op.execute("DROP TRIGGER IF EXISTS search_question ON question")
    op.execute(POSTGRES_TRIGGER.format(columns=columns))


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _sqlite_triggers(in_use_only=True)
        op.execute(f"DELETE FROM search_index_question WHERE rowid IN ({RETIRED})")
    else:
        _postgres(in_use_only=True)
        op.execute(f"DELETE FROM search_index WHERE question_id IN ({RETIRED})")


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _sqlite_triggers(in_use_only=False)
        op.execute(SQLITE_ROW.format(where=f"q.id IN ({RETIRED})"))
    else:
        _postgres(in_use_only=False)
        op.execute(f"SELECT search_index_question(id) FROM ({RETIRED}) AS retired")
