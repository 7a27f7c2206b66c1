"""search prefixes on PostgreSQL: the words as written, beside the English document

The English configuration stems words and drops stop words, so a prefix such as `in*` or
`on*` could never match ("in" is not in the document, "inference" is there as "infer"). A
second generated tsvector keeps the words as written (the `simple` configuration: lower
case, nothing dropped), with its own GIN index; prefixes are looked up there. Punctuation
splits words first, as in SQLite's tokenizer: `INT8/FP16` is two words, not a file name, and
`docs.nvidia.com` three, not a host. SQLite's FTS5 tables already keep every word: nothing
changes there.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05 09:00:00
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(
            """
            ALTER TABLE search_index ADD COLUMN words tsvector GENERATED ALWAYS AS (
                setweight(to_tsvector('simple', regexp_replace(title, '[[:punct:]]+', ' ', 'g')), 'A')
                || setweight(to_tsvector('simple', regexp_replace(body, '[[:punct:]]+', ' ', 'g')), 'B')
            ) STORED
            """
        )
        op.execute("CREATE INDEX ix_search_index_words ON search_index USING gin (words)")


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("DROP INDEX ix_search_index_words")
        op.execute("ALTER TABLE search_index DROP COLUMN words")
