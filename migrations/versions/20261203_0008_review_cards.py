"""review cards: each learner's FSRS state per question they answered

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 07:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('review_card',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.Integer(), nullable=False),
    sa.Column('state', sa.Integer(), nullable=False),
    sa.Column('step', sa.Integer(), nullable=True),
    sa.Column('stability', sa.Float(), nullable=True),
    sa.Column('difficulty', sa.Float(), nullable=True),
    sa.Column('due_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_review_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('reviews', sa.Integer(), nullable=False),
    sa.Column('lapses', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['question_id'], ['question.id'], name=op.f('fk_review_card_question_id_question'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user_account.id'], name=op.f('fk_review_card_user_id_user_account'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_review_card')),
    sa.UniqueConstraint('user_id', 'question_id', name=op.f('uq_review_card_user_id_question_id'))
    )
    with op.batch_alter_table('review_card', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_review_card_question_id'), ['question_id'], unique=False)
        batch_op.create_index('ix_review_card_user_id_due_at', ['user_id', 'due_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('review_card', schema=None) as batch_op:
        batch_op.drop_index('ix_review_card_user_id_due_at')
        batch_op.drop_index(batch_op.f('ix_review_card_question_id'))

    op.drop_table('review_card')
