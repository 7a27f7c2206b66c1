"""The search index: a table the migrations own, outside the ORM's metadata.

On SQLite it is an FTS5 virtual table (which keeps shadow tables beside it), on PostgreSQL a
table with a generated tsvector column and a GIN index. Triggers on the content tables keep
it up to date. A question is row 2 * id, a note section row 2 * id + 1.
"""

INDEX_TABLE = "search_index"


def is_index_table(name: str) -> bool:
    """Tell whether a table belongs to the search index (its FTS5 shadow tables included)."""
    return name == INDEX_TABLE or name.startswith(f"{INDEX_TABLE}_")


def question_row(question_id: int) -> int:
    return question_id * 2


def section_row(section_id: int) -> int:
    return section_id * 2 + 1
