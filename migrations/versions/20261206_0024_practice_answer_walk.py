"""practice answer: the walk it was given in

A topic's walk ("topic:<slug>") or a set's wrong answers ("set:<slug>"); answers from before
were given on question pages as far as anyone knows, so they name none.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0024'
down_revision: str | None = '0023'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('practice_answer', sa.Column('walk', sa.String(length=130), nullable=True))


def downgrade() -> None:
    op.drop_column('practice_answer', 'walk')
