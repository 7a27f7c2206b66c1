"""an exam item is found by its question and attempt together

Practice asks whether a learner's open exam holds a question; the index on the question
alone made that read every attempt that ever held it.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-06 10:00:00
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0023'
down_revision: str | None = '0022'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index('ix_exam_attempt_item_question_id', table_name='exam_attempt_item')
    op.create_index(
        'ix_exam_attempt_item_question_id_attempt_id',
        'exam_attempt_item',
        ['question_id', 'attempt_id'],
    )


def downgrade() -> None:
    op.drop_index('ix_exam_attempt_item_question_id_attempt_id', table_name='exam_attempt_item')
    op.create_index('ix_exam_attempt_item_question_id', 'exam_attempt_item', ['question_id'])
