"""question order index: a question's neighbours and place in its set in a few index steps

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03 07:00:00
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index('ix_question_set_order', 'question', ['set_id', 'position', 'id'])


def downgrade() -> None:
    op.drop_index('ix_question_set_order', table_name='question')
