"""a learner's cards and answers indexes carry what the dashboard sums, so it reads them alone

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04 12:00:00
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CARDS = 'ix_review_card_user_id_due_at'
ANSWERS = 'ix_practice_answer_user_id_answered_at'


def upgrade() -> None:
    op.drop_index(CARDS, table_name='review_card')
    op.create_index(
        CARDS,
        'review_card',
        ['user_id', 'due_at', 'question_id', 'last_correct', 'stability', 'last_review_at'],
    )
    op.drop_index(ANSWERS, table_name='practice_answer')
    op.create_index(ANSWERS, 'practice_answer', ['user_id', 'answered_at', 'seconds'])


def downgrade() -> None:
    op.drop_index(ANSWERS, table_name='practice_answer')
    op.create_index(ANSWERS, 'practice_answer', ['user_id', 'answered_at'])
    op.drop_index(CARDS, table_name='review_card')
    op.create_index(CARDS, 'review_card', ['user_id', 'due_at'])
