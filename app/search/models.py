"""The search index: a table the migrations own, outside the ORM's metadata.

On SQLite it is an FTS5 virtual table (which keeps shadow tables beside it), on PostgreSQL a
table with a generated tsvector column and a GIN index. Triggers on the content tables keep
it up to date. On SQLite a question is row `id` and a note section row `SECTION_ROWS + id`
(migration 0011), so each kind is one range of rows the index reads alone; on PostgreSQL a
question is row 2 * id and a note section row 2 * id + 1, each with its own id column.
"""

INDEX_TABLE = "search_index"


def is_index_table(name: str) -> bool:
    """Tell whether a table belongs to the search index (its FTS5 shadow tables included)."""
    return name == INDEX_TABLE or name.startswith(f"{INDEX_TABLE}_")


SECTION_ROWS = 1 << 40  # SQLite: note sections come after every question row there can be


def question_row(question_id: int) -> int:
    """The SQLite index row of a question."""
    return question_id


def section_row(section_id: int) -> int:
    """The SQLite index row of a note section."""
    return SECTION_ROWS + section_id
