"""each question keeps its place in its set, and each set its size, so pages read them

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04 06:10:00
"""

from collections.abc import Sequence
from itertools import groupby

import sqlalchemy as sa
from alembic import op


revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

question = sa.table('question', sa.column('id'), sa.column('set_id'), sa.column('position'), sa.column('ordinal'))
question_set = sa.table('question_set', sa.column('id'), sa.column('question_count'))


def upgrade() -> None:
    # added in place, not by copying the tables: the search index's triggers watch them
    op.add_column('question', sa.Column('ordinal', sa.Integer(), server_default='0', nullable=False))
    op.add_column('question_set', sa.Column('question_count', sa.Integer(), server_default='0', nullable=False))

    bind = op.get_bind()
    rows = bind.execute(
        sa.select(question.c.set_id, question.c.id).order_by(
            question.c.set_id, question.c.position, question.c.id
        )
    ).all()
    places, sizes = [], []
    for set_id, members in groupby(rows, key=lambda row: row[0]):
        ids = [qid for _, qid in members]
        places += [{'qid': qid, 'place': place} for place, qid in enumerate(ids, start=1)]
        sizes.append({'sid': set_id, 'size': len(ids)})
    if places:
        bind.execute(
            question.update().where(question.c.id == sa.bindparam('qid')).values(ordinal=sa.bindparam('place')),
            places,
        )
    if sizes:
        bind.execute(
            question_set.update().where(question_set.c.id == sa.bindparam('sid')).values(question_count=sa.bindparam('size')),
            sizes,
        )


def downgrade() -> None:
    op.drop_column('question_set', 'question_count')
    op.drop_column('question', 'ordinal')
