"""note revisions: every save keeps a note's title and Markdown, who saved it, when and why

Each note present gets its revision 1 here, its text as it stands, so the note editor's lock
has a revision to compare with from the first save.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-07 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0029'
down_revision: str | None = '0028'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BASELINE_NOTE = 'As it stood before revisions were kept'

note = sa.table(
    'note',
    sa.column('id', sa.Integer),
    sa.column('title', sa.String),
    sa.column('body_md', sa.Text),
    sa.column('updated_at', sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    table = op.create_table(
        'note_revision',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('note_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('author_id', sa.Integer(), nullable=True),
        sa.Column('saved_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('note', sa.String(length=200), nullable=False),
        sa.Column('content', sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ['author_id'],
            ['user_account.id'],
            name=op.f('fk_note_revision_author_id_user_account'),
            ondelete='SET NULL',
        ),
        sa.ForeignKeyConstraint(
            ['note_id'], ['note.id'], name=op.f('fk_note_revision_note_id_note'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_note_revision')),
        sa.UniqueConstraint('note_id', 'number', name=op.f('uq_note_revision_note_id_number')),
    )
    op.create_index(
        op.f('ix_note_revision_author_id'), 'note_revision', ['author_id'], unique=False
    )
    rows = [
        {
            'note_id': n.id,
            'number': 1,
            'saved_at': n.updated_at,
            'note': BASELINE_NOTE,
            'content': {'title': n.title, 'markdown': n.body_md},
        }
        for n in op.get_bind().execute(sa.select(note).order_by(note.c.id))
    ]
    if rows:
        op.bulk_insert(table, rows)


def downgrade() -> None:
    op.drop_index(op.f('ix_note_revision_author_id'), table_name='note_revision')
    op.drop_table('note_revision')
