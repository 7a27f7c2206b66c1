"""content version remembers which seed content was loaded last

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04 21:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('content_version', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seed_digest', sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('content_version', schema=None) as batch_op:
        batch_op.drop_column('seed_digest')
