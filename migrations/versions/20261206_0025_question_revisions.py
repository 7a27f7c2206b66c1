"""question revisions: every save keeps the question's content; choices get feedback; questions
can be retired

Each question present gets its revision 1 here, its content as it stands: its history then
starts with what it holds, the editor's lock has a revision to compare with from the first
save, and a page listing revisions never has to make one up while it reads.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0025'
down_revision: str | None = '0024'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500
BASELINE_NOTE = 'As it stood before revisions were kept'

question = sa.table(
    'question',
    sa.column('id', sa.Integer),
    sa.column('topic_id', sa.Integer),
    sa.column('stem_md', sa.Text),
    sa.column('explanation_md', sa.Text),
    sa.column('kind', sa.String),
    sa.column('versions', sa.JSON),
    sa.column('difficulty', sa.String),
    sa.column('level', sa.String),
    sa.column('accepted', sa.JSON),
    sa.column('updated_at', sa.DateTime(timezone=True)),
)
topic = sa.table('topic', sa.column('id', sa.Integer), sa.column('slug', sa.String))
choice = sa.table(
    'choice',
    sa.column('question_id', sa.Integer),
    sa.column('position', sa.Integer),
    sa.column('text_md', sa.Text),
    sa.column('is_correct', sa.Boolean),
)
reference = sa.table(
    'question_reference',
    sa.column('question_id', sa.Integer),
    sa.column('position', sa.Integer),
    sa.column('url', sa.String),
    sa.column('title', sa.String),
    sa.column('version', sa.String),
)
link = sa.table(
    'question_note_link',
    sa.column('question_id', sa.Integer),
    sa.column('section_id', sa.Integer),
    sa.column('origin', sa.String),
)
section = sa.table(
    'note_section',
    sa.column('id', sa.Integer),
    sa.column('note_id', sa.Integer),
    sa.column('anchor', sa.String),
)
note = sa.table('note', sa.column('id', sa.Integer), sa.column('slug', sa.String))


def upgrade() -> None:
    op.create_table(
        'question_revision',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('question_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('author_id', sa.Integer(), nullable=True),
        sa.Column('saved_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('note', sa.String(length=200), nullable=False),
        sa.Column('content', sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ['author_id'],
            ['user_account.id'],
            name=op.f('fk_question_revision_author_id_user_account'),
            ondelete='SET NULL',
        ),
        sa.ForeignKeyConstraint(
            ['question_id'],
            ['question.id'],
            name=op.f('fk_question_revision_question_id_question'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_question_revision')),
        sa.UniqueConstraint(
            'question_id', 'number', name=op.f('uq_question_revision_question_id_number')
        ),
    )
    op.create_index(
        op.f('ix_question_revision_author_id'), 'question_revision', ['author_id'], unique=False
    )
    # added in place: both tables carry the search index's triggers on SQLite
    op.add_column(
        'choice', sa.Column('feedback_md', sa.Text(), server_default='', nullable=False)
    )
    op.add_column(
        'choice', sa.Column('keeps_place', sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.add_column('question', sa.Column('retired_at', sa.DateTime(timezone=True), nullable=True))
    _baseline()


def _baseline() -> None:
    """Keep every question's present content as its first revision, a batch at a time."""
    bind = op.get_bind()
    ids = [row[0] for row in bind.execute(sa.select(question.c.id).order_by(question.c.id))]
    table = sa.table(
        'question_revision',
        sa.column('question_id', sa.Integer),
        sa.column('number', sa.Integer),
        sa.column('saved_at', sa.DateTime(timezone=True)),
        sa.column('note', sa.String),
        sa.column('content', sa.JSON),
    )
    for start in range(0, len(ids), BATCH):
        rows = _contents(bind, ids[start : start + BATCH])
        if rows:
            bind.execute(sa.insert(table), rows)


def _contents(bind: sa.Connection, ids: list[int]) -> list[dict]:
    """The revision rows of these questions (the same content as `revisions.snapshots`)."""
    choices: dict[int, list[dict]] = {}
    for qid, text, correct in bind.execute(
        sa.select(choice.c.question_id, choice.c.text_md, choice.c.is_correct)
        .where(choice.c.question_id.in_(ids))
        .order_by(choice.c.question_id, choice.c.position)
    ):
        choices.setdefault(qid, []).append(
            {'text': text, 'correct': bool(correct), 'feedback': '', 'fixed': False}
        )
    references: dict[int, list[dict]] = {}
    for qid, url, title, version in bind.execute(
        sa.select(reference.c.question_id, reference.c.url, reference.c.title, reference.c.version)
        .where(reference.c.question_id.in_(ids))
        .order_by(reference.c.question_id, reference.c.position)
    ):
        references.setdefault(qid, []).append({'url': url, 'title': title, 'version': version})
    notes: dict[int, list[str]] = {}
    for qid, slug, anchor in bind.execute(
        sa.select(link.c.question_id, note.c.slug, section.c.anchor)
        .join(section, section.c.id == link.c.section_id)
        .join(note, note.c.id == section.c.note_id)
        .where(link.c.question_id.in_(ids), link.c.origin == 'explicit')
    ):
        notes.setdefault(qid, []).append(f'{slug}#{anchor}')
    rows = []
    for q in bind.execute(
        sa.select(question, topic.c.slug.label('topic_slug'))
        .outerjoin(topic, topic.c.id == question.c.topic_id)
        .where(question.c.id.in_(ids))
    ).mappings():
        content = {
            'stem': q['stem_md'],
            'explanation': q['explanation_md'],
            'kind': q['kind'],
            'choices': choices.get(q['id'], []),
            'references': references.get(q['id'], []),
            'topic': q['topic_slug'],
            'notes': sorted(notes.get(q['id'], [])),
            'versions': list(q['versions'] or []),
            'difficulty': q['difficulty'],
            'level': q['level'],
            'accepted': list(q['accepted'] or []),
        }
        rows.append(
            {
                'question_id': q['id'],
                'number': 1,
                'saved_at': q['updated_at'],
                'note': BASELINE_NOTE,
                'content': content,
            }
        )
    return rows


def downgrade() -> None:
    op.drop_column('question', 'retired_at')
    op.drop_column('choice', 'keeps_place')
    op.drop_column('choice', 'feedback_md')
    op.drop_index(op.f('ix_question_revision_author_id'), table_name='question_revision')
    op.drop_table('question_revision')
