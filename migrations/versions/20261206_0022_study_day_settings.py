"""study day: each account's daily limits and time zone, and when each card was taken up

Existing accounts get Anki's defaults (20 new questions and 200 reviews a day) and no time
zone yet (UTC, as before, until the learner's browser or account page names one). A review
card answered more than once was taken up by its second answer; the covering index of a
learner's cards carries what the day's limits count.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-06 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0022'
down_revision: str | None = '0021'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CARDS = 'ix_review_card_user_id_due_at'
COLUMNS = ['user_id', 'due_at', 'question_id', 'last_correct', 'stability', 'last_review_at']


def upgrade() -> None:
    op.add_column('user_account', sa.Column('new_per_day', sa.Integer(), server_default='20', nullable=False))
    op.add_column('user_account', sa.Column('reviews_per_day', sa.Integer(), server_default='200', nullable=False))
    op.add_column('user_account', sa.Column('time_zone', sa.String(length=64), nullable=True))
    op.add_column('review_card', sa.Column('taken_up_at', sa.DateTime(timezone=True), nullable=True))
    op.execute(
        'UPDATE review_card SET taken_up_at = ('
        ' SELECT a.answered_at FROM practice_answer a'
        ' WHERE a.user_id = review_card.user_id AND a.question_id = review_card.question_id'
        ' ORDER BY a.answered_at, a.id LIMIT 1 OFFSET 1'
        ') WHERE reviews > 1'
    )
    op.drop_index(CARDS, table_name='review_card')
    op.create_index(CARDS, 'review_card', [*COLUMNS, 'reviews', 'taken_up_at'])


def downgrade() -> None:
    op.drop_index(CARDS, table_name='review_card')
    op.create_index(CARDS, 'review_card', COLUMNS)
    op.drop_column('review_card', 'taken_up_at')
    op.drop_column('user_account', 'time_zone')
    op.drop_column('user_account', 'reviews_per_day')
    op.drop_column('user_account', 'new_per_day')
