"""blueprint reasoning: the percent of an exam's questions, at least, that apply or analyse

Existing blueprints ask for none (0), as before.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05 12:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('exam_blueprint', sa.Column('reasoning', sa.Integer(), server_default='0', nullable=False))


def downgrade() -> None:
    op.drop_column('exam_blueprint', 'reasoning')
