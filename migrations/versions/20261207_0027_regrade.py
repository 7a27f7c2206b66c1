"""regrade: a fixed key applied to a question's graded attempts and answers, and each
attempt's score before and after

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-07 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0027'
down_revision: str | None = '0026'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'regrade',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('question_id', sa.Integer(), nullable=False),
        sa.Column('revision', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=True),
        sa.Column('regraded_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('flipped', sa.Integer(), nullable=False),
        sa.Column('answers', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ['question_id'],
            ['question.id'],
            name=op.f('fk_regrade_question_id_question'),
            ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['user_id'],
            ['user_account.id'],
            name=op.f('fk_regrade_user_id_user_account'),
            ondelete='SET NULL',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_regrade')),
    )
    op.create_index(op.f('ix_regrade_question_id'), 'regrade', ['question_id'], unique=False)
    op.create_index(op.f('ix_regrade_user_id'), 'regrade', ['user_id'], unique=False)
    op.create_table(
        'regrade_attempt',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('regrade_id', sa.Integer(), nullable=False),
        sa.Column('attempt_id', sa.Integer(), nullable=False),
        sa.Column('old_score', sa.Float(), nullable=False),
        sa.Column('new_score', sa.Float(), nullable=False),
        sa.Column('old_percent', sa.Float(), nullable=False),
        sa.Column('new_percent', sa.Float(), nullable=False),
        sa.Column('old_passed', sa.Boolean(), nullable=False),
        sa.Column('new_passed', sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ['attempt_id'],
            ['exam_attempt.id'],
            name=op.f('fk_regrade_attempt_attempt_id_exam_attempt'),
            ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['regrade_id'],
            ['regrade.id'],
            name=op.f('fk_regrade_attempt_regrade_id_regrade'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_regrade_attempt')),
    )
    op.create_index(
        op.f('ix_regrade_attempt_attempt_id'), 'regrade_attempt', ['attempt_id'], unique=False
    )
    op.create_index(
        op.f('ix_regrade_attempt_regrade_id'), 'regrade_attempt', ['regrade_id'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_regrade_attempt_regrade_id'), table_name='regrade_attempt')
    op.drop_index(op.f('ix_regrade_attempt_attempt_id'), table_name='regrade_attempt')
    op.drop_table('regrade_attempt')
    op.drop_index(op.f('ix_regrade_user_id'), table_name='regrade')
    op.drop_index(op.f('ix_regrade_question_id'), table_name='regrade')
    op.drop_table('regrade')
