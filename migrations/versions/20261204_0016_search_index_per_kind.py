"""search index per kind on SQLite: questions and note sections in tables of their own

FTS5's bm25() weighs each word by every row of its table that holds it; with questions and
note sections in one table, ranking 20 note sections read the postings of 50,000 questions.
Each kind gets its own FTS5 table (row id = the question's or section's id), with the same
tokenizer and prefix indexes; the triggers on the content tables are written again for them.
PostgreSQL keeps its one table: its ranking reads only the rows that match.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04 10:40:00
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0016'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FTS_COLUMNS = "title, body, tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3 4'"
SECTION_ROWS = 1 << 40  # the shared table's first note section row (migration 0011)
# Where each kind's rows live: (table, row of an id written {id}).
PER_KIND = (("search_index_question", "{id}"), ("search_index_section", "{id}"))
SHARED = (("search_index", "{id}"), ("search_index", f"{SECTION_ROWS} + {{id}}"))
QUESTION_ROW = """
    INSERT INTO {table} (rowid, title, body)
    SELECT {row}, q.stem_md,
           coalesce((SELECT group_concat(text_md, char(10))
                     FROM (SELECT text_md FROM choice
                           WHERE question_id = q.id ORDER BY position)), '')
           || char(10) || q.explanation_md
    FROM question AS q WHERE {where}
"""
SECTION_ROW = """
    INSERT INTO {table} (rowid, title, body)
    SELECT {row}, s.heading, s.body_md FROM note_section AS s WHERE {where}
"""


def _triggers(layout: tuple[tuple[str, str], ...]) -> dict[str, tuple[str, str]]:
    """The index's triggers (name: when, body) for where its rows live."""
    (question_table, question), (section_table, section) = layout

    def gone(table: str, row: str, content_id: str) -> str:
        return f"DELETE FROM {table} WHERE rowid = {row.format(id=content_id)};"

    def again(kind: int, content_id: str) -> str:
        """Index a question (kind 0) or a section (kind 1) again, as it now is."""
        (table, row), insert, alias = layout[kind], (QUESTION_ROW, SECTION_ROW)[kind], "qs"[kind]
        where = f"{alias}.id = {content_id}"
        filled = insert.format(table=table, row=row.format(id=f"{alias}.id"), where=where)
        return f"{gone(table, row, content_id)}{filled};"

    def question_again(qid: str) -> str:
        return again(0, qid)

    def question_gone(qid: str) -> str:
        return gone(question_table, question, qid)

    def section_again(sid: str) -> str:
        return again(1, sid)

    def section_gone(sid: str) -> str:
        return gone(section_table, section, sid)

    return {
        "search_question_insert": ("AFTER INSERT ON question", question_again("new.id")),
        "search_question_update": (
            "AFTER UPDATE OF stem_md, explanation_md ON question", question_again("new.id")
        ),
        "search_question_delete": ("AFTER DELETE ON question", question_gone("old.id")),
        "search_choice_insert": ("AFTER INSERT ON choice", question_again("new.question_id")),
        "search_choice_update": (
            "AFTER UPDATE OF question_id, position, text_md ON choice",
            question_again("new.question_id"),
        ),
        "search_choice_move": (
            "AFTER UPDATE OF question_id ON choice WHEN old.question_id <> new.question_id",
            question_again("old.question_id"),
        ),
        "search_choice_delete": ("AFTER DELETE ON choice", question_again("old.question_id")),
        "search_section_insert": ("AFTER INSERT ON note_section", section_again("new.id")),
        "search_section_update": (
            "AFTER UPDATE OF heading, body_md ON note_section", section_again("new.id")
        ),
        "search_section_delete": ("AFTER DELETE ON note_section", section_gone("old.id")),
    }


def _rebuild(old: tuple[tuple[str, str], ...], new: tuple[tuple[str, str], ...]) -> None:
    """Move the index from the tables of one layout to those of another, triggers and all."""
    for name in _triggers(old):
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    for table in dict.fromkeys(table for table, _ in old):
        op.execute(f"DROP TABLE {table}")
    for table in dict.fromkeys(table for table, _ in new):
        op.execute(f"CREATE VIRTUAL TABLE {table} USING fts5({FTS_COLUMNS})")
    for name, (when, body) in _triggers(new).items():
        op.execute(f"CREATE TRIGGER {name} {when} BEGIN {body} END")
    (question_table, question), (section_table, section) = new
    op.execute(QUESTION_ROW.format(table=question_table, row=question.format(id="q.id"), where="1"))
    op.execute(SECTION_ROW.format(table=section_table, row=section.format(id="s.id"), where="1"))


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _rebuild(SHARED, PER_KIND)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _rebuild(PER_KIND, SHARED)
