"""question references: the sources (web pages and product versions) behind an answer

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A table of its own: a batch alter of `question` on SQLite would drop the search triggers.
    op.create_table('question_reference',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=300), nullable=True),
    sa.Column('url', sa.String(length=2000), nullable=False),
    sa.Column('version', sa.String(length=80), nullable=True),
    sa.ForeignKeyConstraint(['question_id'], ['question.id'], name=op.f('fk_question_reference_question_id_question'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_question_reference')),
    sa.UniqueConstraint('question_id', 'position', name=op.f('uq_question_reference_question_id_position'))
    )


def downgrade() -> None:
    op.drop_table('question_reference')
