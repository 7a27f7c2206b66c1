"""a question's or a note section's open errata are found by target and status together

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 19:10:00
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TARGETS = ('question_id', 'section_id')


def upgrade() -> None:
    for column in TARGETS:
        op.drop_index(f'ix_problem_report_{column}', table_name='problem_report')
        op.create_index(f'ix_problem_report_{column}_status', 'problem_report', [column, 'status'])


def downgrade() -> None:
    for column in TARGETS:
        op.drop_index(f'ix_problem_report_{column}_status', table_name='problem_report')
        op.create_index(f'ix_problem_report_{column}', 'problem_report', [column])
