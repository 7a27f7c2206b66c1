"""item statistics indexes: on SQLite, the answers each statistics pass reads, in its order

`app.items.queries` groups the answered exam items and the practice answers by question and
chosen ids. These covering indexes hold those columns in that order, so each pass walks one
index without reading the table or sorting. PostgreSQL groups by hashing and has no B-tree
for JSON: it gets none.

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-08 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.create_index(
        "ix_exam_attempt_item_statistics",
        "exam_attempt_item",
        ["question_id", "selected_ids", "is_correct", "points", "attempt_id"],
        sqlite_where=sa.text("answered_at IS NOT NULL"),
    )
    op.create_index(
        "ix_practice_answer_statistics",
        "practice_answer",
        ["question_id", "selected_ids", "is_correct", "seconds"],
        sqlite_where=sa.text("source = 'practice'"),
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.drop_index("ix_practice_answer_statistics", table_name="practice_answer")
    op.drop_index("ix_exam_attempt_item_statistics", table_name="exam_attempt_item")
