"""api token expiry: every token gets an end date; existing ones 90 days after creation

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 21:45:00
"""

from collections.abc import Sequence
from datetime import timedelta

import sqlalchemy as sa
from alembic import op

from app.db import UTCDateTime


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('api_token', schema=None) as batch_op:
        batch_op.add_column(sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True))
    token = sa.table(
        'api_token',
        sa.column('id', sa.Integer()),
        sa.column('created_at', UTCDateTime()),
        sa.column('expires_at', UTCDateTime()),
    )
    connection = op.get_bind()
    for token_id, created_at in connection.execute(sa.select(token.c.id, token.c.created_at)).all():
        connection.execute(
            token.update()
            .where(token.c.id == token_id)
            .values(expires_at=created_at + timedelta(days=90))
        )
    with op.batch_alter_table('api_token', schema=None) as batch_op:
        batch_op.alter_column('expires_at', existing_type=sa.DateTime(timezone=True), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table('api_token', schema=None) as batch_op:
        batch_op.drop_column('expires_at')
