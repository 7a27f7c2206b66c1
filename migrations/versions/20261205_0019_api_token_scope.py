"""api token scope: what each token may do; existing tokens get their owner's role's scope

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05 09:00:00

A token made before scopes existed worked on every page and API route, with every right of
its owner. It keeps what its owner's role gives through the API (learner: practise, author:
author, admin: admin) and no more; pages no longer accept any token.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0019'
down_revision: str | None = '0018'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ROLE_SCOPES = {'learner': 'practise', 'author': 'author', 'admin': 'admin'}


def upgrade() -> None:
    with op.batch_alter_table('api_token', schema=None) as batch_op:
        batch_op.add_column(sa.Column('scope', sa.String(length=10), nullable=True))
    token = sa.table('api_token', sa.column('user_id', sa.Integer()), sa.column('scope', sa.String()))
    user = sa.table('user_account', sa.column('id', sa.Integer()), sa.column('role', sa.String()))
    for role, scope in ROLE_SCOPES.items():
        owners = sa.select(user.c.id).where(user.c.role == role)
        op.execute(token.update().where(token.c.user_id.in_(owners)).values(scope=scope))
    with op.batch_alter_table('api_token', schema=None) as batch_op:
        batch_op.alter_column('scope', existing_type=sa.String(length=10), nullable=False)
        batch_op.create_check_constraint(
            op.f('ck_api_token_scope'), "scope IN ('read', 'practise', 'author', 'admin')"
        )


def downgrade() -> None:
    with op.batch_alter_table('api_token', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_api_token_scope'), type_='check')
        batch_op.drop_column('scope')
