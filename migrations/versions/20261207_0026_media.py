"""media: images shown in content, stored once by the SHA-256 of their bytes

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-07 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0026'
down_revision: str | None = '0025'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'media',
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('content_type', sa.String(length=40), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('sha256', name=op.f('pk_media')),
    )


def downgrade() -> None:
    op.drop_table('media')
