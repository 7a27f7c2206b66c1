"""question scope: the versions a question holds for, its difficulty and what it asks, and
the content-check findings an author accepted for it

Existing questions get no versions, difficulty or level; the next import of their file fills
them in, and `check-content` names every question still without them. The columns are added
in place, not by copying the table: the search index's triggers watch it.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0020'
down_revision: str | None = '0019'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('question', sa.Column('versions', sa.JSON(), server_default='[]', nullable=False))
    op.add_column('question', sa.Column('difficulty', sa.String(length=10), nullable=True))
    op.add_column('question', sa.Column('level', sa.String(length=10), nullable=True))
    op.add_column('question', sa.Column('accepted', sa.JSON(), server_default='[]', nullable=False))


def downgrade() -> None:
    op.drop_column('question', 'accepted')
    op.drop_column('question', 'level')
    op.drop_column('question', 'difficulty')
    op.drop_column('question', 'versions')
