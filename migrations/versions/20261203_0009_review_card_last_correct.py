"""review cards remember whether the learner's latest answer was right

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 09:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_LATEST = """
UPDATE review_card SET last_correct = COALESCE((
    SELECT practice_answer.is_correct FROM practice_answer
    WHERE practice_answer.user_id = review_card.user_id
      AND practice_answer.question_id = review_card.question_id
    ORDER BY practice_answer.answered_at DESC, practice_answer.id DESC
    LIMIT 1
), false)
"""


def upgrade() -> None:
    with op.batch_alter_table('review_card', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_correct', sa.Boolean(), nullable=True))
    op.execute(_LATEST)
    with op.batch_alter_table('review_card', schema=None) as batch_op:
        batch_op.alter_column('last_correct', existing_type=sa.Boolean(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table('review_card', schema=None) as batch_op:
        batch_op.drop_column('last_correct')
