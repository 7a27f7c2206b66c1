"""notices to reporters of corrected questions; role changes kept for the audit log

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-07 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0028'
down_revision: str | None = '0027'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'notice',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('question_id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('dismissed_at', sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind IN ('question-corrected')", name=op.f('ck_notice_kind')),
        sa.ForeignKeyConstraint(
            ['question_id'],
            ['question.id'],
            name=op.f('fk_notice_question_id_question'),
            ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['user_id'],
            ['user_account.id'],
            name=op.f('fk_notice_user_id_user_account'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_notice')),
    )
    op.create_index(op.f('ix_notice_question_id'), 'notice', ['question_id'], unique=False)
    op.create_index(
        'ix_notice_user_id_dismissed_at', 'notice', ['user_id', 'dismissed_at'], unique=False
    )
    op.create_table(
        'role_change',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('actor_id', sa.Integer(), nullable=True),
        sa.Column('user_id', sa.Integer(), nullable=True),
        sa.Column('old_role', sa.String(length=10), nullable=False),
        sa.Column('new_role', sa.String(length=10), nullable=False),
        sa.Column('changed_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['actor_id'],
            ['user_account.id'],
            name=op.f('fk_role_change_actor_id_user_account'),
            ondelete='SET NULL',
        ),
        sa.ForeignKeyConstraint(
            ['user_id'],
            ['user_account.id'],
            name=op.f('fk_role_change_user_id_user_account'),
            ondelete='SET NULL',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_role_change')),
    )
    for column in ('actor_id', 'user_id', 'changed_at'):
        op.create_index(
            op.f(f'ix_role_change_{column}'), 'role_change', [column], unique=False
        )


def downgrade() -> None:
    for column in ('actor_id', 'user_id', 'changed_at'):
        op.drop_index(op.f(f'ix_role_change_{column}'), table_name='role_change')
    op.drop_table('role_change')
    op.drop_index('ix_notice_user_id_dismissed_at', table_name='notice')
    op.drop_index(op.f('ix_notice_question_id'), table_name='notice')
    op.drop_table('notice')
