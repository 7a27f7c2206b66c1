"""The search index: tables the migrations own, outside the ORM's metadata.

On SQLite it is two FTS5 virtual tables (each keeps shadow tables beside it), one per kind,
so a kind's ranking weighs words by that kind's rows alone: row `id` of
`search_index_question` is question `id`, row `id` of `search_index_section` note section
`id` (migration 0016). On PostgreSQL it is one table with two generated tsvector columns,
each with a GIN index: `document` (English: stemmed, stop words dropped) for words and
`words` (`simple`: the words as written) for prefixes (migration 0018); a question is row
2 * id and a note section row 2 * id + 1, each with its own id column. Triggers on the
content tables keep it up to date.
"""

INDEX_TABLE = "search_index"
QUESTION_INDEX = "search_index_question"  # SQLite
SECTION_INDEX = "search_index_section"  # SQLite


def is_index_table(name: str) -> bool:
    """Tell whether a table belongs to the search index (its FTS5 shadow tables included)."""
    return name == INDEX_TABLE or name.startswith(f"{INDEX_TABLE}_")
