"""notes read per learner; answers keep how long they took and where they were given

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('note_read',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('note_id', sa.Integer(), nullable=False),
    sa.Column('read_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['note_id'], ['note.id'], name=op.f('fk_note_read_note_id_note'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user_account.id'], name=op.f('fk_note_read_user_id_user_account'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_note_read')),
    sa.UniqueConstraint('user_id', 'note_id', name=op.f('uq_note_read_user_id_note_id'))
    )
    with op.batch_alter_table('note_read', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_note_read_note_id'), ['note_id'], unique=False)

    with op.batch_alter_table('practice_answer', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seconds', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('source', sa.String(length=10), server_default='practice', nullable=False))
        batch_op.create_check_constraint(op.f('ck_practice_answer_source'), "source IN ('practice', 'exam')")
        batch_op.drop_index(batch_op.f('ix_practice_answer_user_id'))
        batch_op.create_index('ix_practice_answer_user_id_answered_at', ['user_id', 'answered_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('practice_answer', schema=None) as batch_op:
        batch_op.drop_index('ix_practice_answer_user_id_answered_at')
        batch_op.create_index(batch_op.f('ix_practice_answer_user_id'), ['user_id'], unique=False)
        batch_op.drop_constraint(op.f('ck_practice_answer_source'), type_='check')
        batch_op.drop_column('source')
        batch_op.drop_column('seconds')

    with op.batch_alter_table('note_read', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_note_read_note_id'))

    op.drop_table('note_read')
