"""content version: a counter every content write bumps, for the workers' caches

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02 21:05:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    table = op.create_table(
        'content_version',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_content_version')),
    )
    op.bulk_insert(table, [{'id': 1, 'version': 0}])


def downgrade() -> None:
    op.drop_table('content_version')
