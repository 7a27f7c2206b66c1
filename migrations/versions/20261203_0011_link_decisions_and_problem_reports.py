"""link decisions and problem reports: authors' word on suggested links; errata

New tables only: the content tables keep their search triggers (a batch ALTER on SQLite
would copy them and drop the triggers). On SQLite the search index is built again with
prefix indexes for prefixes of 2 to 4 characters, so `ten*` reads one list of postings
instead of joining those of every word it begins, and with questions and note sections in
two ranges of rows, so a search of one kind reads that kind's rows alone (its triggers are
written again for the new rows).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 09:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# --- SQLite search index -------------------------------------------------------------------
# Rows move from 2 * id (questions) and 2 * id + 1 (sections) to id and SECTION_ROWS + id, so
# each kind is a range the index reads alone; and prefixes of 2 to 4 characters get prefix
# indexes. The triggers (on the content tables) are written again for the new rows.
SECTION_ROWS = 1 << 40
FTS_COLUMNS = "title, body, tokenize = 'porter unicode61 remove_diacritics 2'"
QUESTION_ROW = """
    INSERT INTO search_index (rowid, title, body)
    SELECT {row}, q.stem_md,
           coalesce((SELECT group_concat(text_md, char(10))
                     FROM (SELECT text_md FROM choice
                           WHERE question_id = q.id ORDER BY position)), '')
           || char(10) || q.explanation_md
    FROM question AS q WHERE {where}
"""
SECTION_ROW = """
    INSERT INTO search_index (rowid, title, body)
    SELECT {row}, s.heading, s.body_md FROM note_section AS s WHERE {where}
"""
NEW_ROWS = ("{id}", f"{SECTION_ROWS} + {{id}}")  # question row, section row of an id
OLD_ROWS = ("{id} * 2", "{id} * 2 + 1")


def _triggers(rows: tuple[str, str]) -> dict[str, tuple[str, str]]:
    """The index's triggers (name: when, body) for a way of numbering its rows."""
    question, section = rows

    def question_again(qid: str) -> str:
        row = question.format(id=qid)
        insert = QUESTION_ROW.format(row=question.format(id="q.id"), where=f"q.id = {qid}")
        return f"DELETE FROM search_index WHERE rowid = {row};{insert};"

    def section_again(sid: str) -> str:
        row = section.format(id=sid)
        insert = SECTION_ROW.format(row=section.format(id="s.id"), where=f"s.id = {sid}")
        return f"DELETE FROM search_index WHERE rowid = {row};{insert};"

    return {
        "search_question_insert": ("AFTER INSERT ON question", question_again("new.id")),
        "search_question_update": (
            "AFTER UPDATE OF stem_md, explanation_md ON question", question_again("new.id")
        ),
        "search_question_delete": (
            "AFTER DELETE ON question",
            f"DELETE FROM search_index WHERE rowid = {question.format(id='old.id')};",
        ),
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
        "search_section_delete": (
            "AFTER DELETE ON note_section",
            f"DELETE FROM search_index WHERE rowid = {section.format(id='old.id')};",
        ),
    }


def _rebuild_sqlite_index(rows: tuple[str, str], options: str) -> None:
    """Build the index again with its rows numbered `rows`, and the triggers that fill it."""
    for name in _triggers(rows):
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.execute("DROP TABLE search_index")
    op.execute(f"CREATE VIRTUAL TABLE search_index USING fts5({FTS_COLUMNS}{options})")
    for name, (when, body) in _triggers(rows).items():
        op.execute(f"CREATE TRIGGER {name} {when} BEGIN {body} END")
    op.execute(QUESTION_ROW.format(row=rows[0].format(id="q.id"), where="1"))
    op.execute(SECTION_ROW.format(row=rows[1].format(id="s.id"), where="1"))


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _rebuild_sqlite_index(NEW_ROWS, ", prefix = '2 3 4'")
    op.create_table('link_decision',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.Integer(), nullable=False),
    sa.Column('section_id', sa.Integer(), nullable=False),
    sa.Column('decision', sa.String(length=10), nullable=False),
    sa.Column('decided_by_id', sa.Integer(), nullable=True),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("decision IN ('confirmed', 'rejected')", name=op.f('ck_link_decision_decision')),
    sa.ForeignKeyConstraint(['decided_by_id'], ['user_account.id'], name=op.f('fk_link_decision_decided_by_id_user_account'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['question_id'], ['question.id'], name=op.f('fk_link_decision_question_id_question'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['section_id'], ['note_section.id'], name=op.f('fk_link_decision_section_id_note_section'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_link_decision')),
    sa.UniqueConstraint('question_id', 'section_id', name=op.f('uq_link_decision_question_id_section_id'))
    )
    with op.batch_alter_table('link_decision', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_link_decision_decided_by_id'), ['decided_by_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_link_decision_section_id'), ['section_id'], unique=False)

    op.create_table('problem_report',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.Integer(), nullable=True),
    sa.Column('section_id', sa.Integer(), nullable=True),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('erratum', sa.Boolean(), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('reporter_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('resolution', sa.Text(), nullable=False),
    sa.Column('resolved_by_id', sa.Integer(), nullable=True),
    sa.Column('resolved_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('source_key', sa.String(length=64), nullable=True),
    sa.CheckConstraint("kind IN ('wrong-answer', 'typo', 'outdated', 'other')", name=op.f('ck_problem_report_kind')),
    sa.CheckConstraint("status IN ('open', 'resolved')", name=op.f('ck_problem_report_status')),
    sa.CheckConstraint('(question_id IS NULL) <> (section_id IS NULL)', name=op.f('ck_problem_report_one_target')),
    sa.ForeignKeyConstraint(['question_id'], ['question.id'], name=op.f('fk_problem_report_question_id_question'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['reporter_id'], ['user_account.id'], name=op.f('fk_problem_report_reporter_id_user_account'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['resolved_by_id'], ['user_account.id'], name=op.f('fk_problem_report_resolved_by_id_user_account'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['section_id'], ['note_section.id'], name=op.f('fk_problem_report_section_id_note_section'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_problem_report')),
    sa.UniqueConstraint('source_key', name=op.f('uq_problem_report_source_key'))
    )
    with op.batch_alter_table('problem_report', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_problem_report_question_id'), ['question_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_problem_report_reporter_id'), ['reporter_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_problem_report_resolved_by_id'), ['resolved_by_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_problem_report_section_id'), ['section_id'], unique=False)
        batch_op.create_index('ix_problem_report_status_created_at', ['status', 'created_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('problem_report', schema=None) as batch_op:
        batch_op.drop_index('ix_problem_report_status_created_at')
        batch_op.drop_index(batch_op.f('ix_problem_report_section_id'))
        batch_op.drop_index(batch_op.f('ix_problem_report_resolved_by_id'))
        batch_op.drop_index(batch_op.f('ix_problem_report_reporter_id'))
        batch_op.drop_index(batch_op.f('ix_problem_report_question_id'))

    op.drop_table('problem_report')
    with op.batch_alter_table('link_decision', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_link_decision_section_id'))
        batch_op.drop_index(batch_op.f('ix_link_decision_decided_by_id'))

    op.drop_table('link_decision')
    if op.get_bind().dialect.name == 'sqlite':
        _rebuild_sqlite_index(OLD_ROWS, "")
