"""The index's own query languages: SQLite FTS5 and PostgreSQL full-text search.

Each group is found in short steps: how many match (counted up to TOTAL_CAP); one page of
matching rows, best first; the highlighted title and snippet of that page's rows.

On SQLite, ranking is what costs: bm25() first weighs each word by every row of the kind's
table that holds it (a millisecond for a word in most questions), then runs once per row it
ranks, about 1.5 µs a row. A kind matching at most TOTAL_CAP rows is ranked whole; one
matching more is too broad for a ranking to mean much, and is not ranked: its page is the
rows with every word in the title first, then the others, in the index's order (the results
say so; a second word narrows the search). Without a topic, the count, a ranked page and its
highlights come from one statement (FTS5 sorts by rank itself and keeps each row's matches,
so highlighting the page reads nothing again); otherwise the page's row ids come first and
only those rows are highlighted.
"""

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import TextClause, bindparam, text
from sqlalchemy.orm import Session

from app.content.read_models import TopicRef
from app.search.models import INDEX_TABLE, QUESTION_INDEX, SECTION_INDEX
from app.search.read_models import NoteHit, QuestionHit
from app.search.terms import START, STOP, Term, marked_html

SNIPPET_WORDS = 24
TOTAL_CAP = 1000  # matches counted; past it a total says "more than"
_PLAIN_WORD = re.compile(r"[^\W_]+")
_QUESTION = """
    JOIN question AS q ON q.id = {id}
    JOIN question_set AS qs ON qs.id = q.set_id
    LEFT JOIN topic AS t ON t.id = q.topic_id
"""
_SECTION = """
    JOIN note_section AS ns ON ns.id = {id}
    JOIN note AS n ON n.id = ns.note_id
    LEFT JOIN topic AS t ON t.id = n.topic_id
"""
_QUESTION_COLUMNS = "q.id, qs.slug, t.slug, t.title"
_SECTION_COLUMNS = "n.slug, n.title, ns.anchor, t.slug, t.title"


class Backend:
    """Finds and highlights matches; subclasses hold the SQL of one database."""

    # The SQL is written with {index}: the kind's index table, {kind}: which of its rows are
    # of the kind, {join}: the content tables (for a topic's filter or the page's {columns}),
    # {topic}: the topic's filter.
    page_sql = ""  # one page of index row ids, best first
    count_sql = ""  # how many rows match, up to :cap + 1
    highlight_sql = ""  # {columns}: (row, columns..., title, snippet) of the rows :rows
    ranks_all = True  # False: a kind with more than TOTAL_CAP matches is not ranked

    def index(self, kind: str) -> str:
        """The table of the index holding a kind's rows."""
        raise NotImplementedError

    def kind_rows(self, kind: str) -> str:
        """The condition on the index's rows that keeps a kind's."""
        raise NotImplementedError

    def content_id(self, kind: str) -> str:
        """The SQL of the question or section id an index row stands for."""
        raise NotImplementedError

    def params(self, terms: Sequence[Term]) -> dict[str, Any]:
        """Bind the terms (and what else the SQL needs)."""
        raise NotImplementedError

    def questions(
        self, session: Session, terms: Sequence[Term], topics: list[int] | None, limit: int
    ) -> tuple[tuple[QuestionHit, ...], int]:
        """Return one page of matching questions, best first, and how many match."""
        hits, total = self._found(session, terms, "question", topics, limit)
        return tuple(
            QuestionHit(qid, set_slug, marked_html(stem), marked_html(snippet), _topic(ts, tt))
            for qid, set_slug, ts, tt, stem, snippet in hits
        ), total

    def notes(
        self, session: Session, terms: Sequence[Term], topics: list[int] | None, limit: int
    ) -> tuple[tuple[NoteHit, ...], int]:
        """Return one page of matching note sections, best first, and how many match."""
        hits, total = self._found(session, terms, "section", topics, limit)
        # A heading is plain text already, shown as the note shows it.
        return tuple(
            NoteHit(
                slug,
                note_title,
                anchor,
                marked_html(heading, markdown=False),
                marked_html(snippet),
                _topic(ts, tt),
            )
            for slug, note_title, anchor, ts, tt, heading, snippet in hits
        ), total

    def _found(
        self,
        session: Session,
        terms: Sequence[Term],
        kind: str,
        topics: list[int] | None,
        limit: int,
    ) -> tuple[list[tuple[Any, ...]], int]:
        """One page of highlighted rows of a kind, best first, and how many match.

        A row is its columns, then its title and snippet with the index's marks.
        """
        params = self._params(terms, topics, limit)
        rows = session.scalars(self._statement(self.page_sql, kind, topics), params).all()
        if len(rows) < limit:
            total = len(rows)  # all of them: no need to count
        else:
            total = session.scalar(self._statement(self.count_sql, kind, topics), params) or 0
        return self._highlighted(session, terms, kind, list(rows)), total

    def _params(
        self, terms: Sequence[Term], topics: list[int] | None, limit: int
    ) -> dict[str, Any]:
        params = {**self.params(terms), "limit": limit, "cap": TOTAL_CAP}
        if topics is not None:
            params["topics"] = topics
        return params

    def _statement(
        self, sql: str, kind: str, topics: list[int] | None, *, columns: bool = False
    ) -> Any:
        """Fill in the tables and filters of one kind of row (and a topic's, when given).

        With `columns`, the content tables are joined for the page's {columns}.
        """
        owner = "q" if kind == "question" else "n"
        topic = f"AND {owner}.topic_id IN :topics" if topics is not None else ""
        statement = text(
            sql.format(
                index=self.index(kind),
                join=self._join(kind) if topics is not None or columns else "",
                columns=_columns(kind),
                kind=self.kind_rows(kind),
                topic=topic,
            )
        )
        if topics is not None:
            statement = statement.bindparams(bindparam("topics", expanding=True))
        return statement

    def _join(self, kind: str) -> str:
        template = _QUESTION if kind == "question" else _SECTION
        return template.format(id=self.content_id(kind))

    def _highlighted(
        self, session: Session, terms: Sequence[Term], kind: str, rows: list[int]
    ) -> list[tuple[Any, ...]]:
        if not rows:
            return []
        statement = self._statement(self.highlight_sql, kind, None, columns=True)
        statement = statement.bindparams(bindparam("rows", expanding=True))
        found = {
            row[0]: _highlights(row)
            for row in session.execute(statement, {**self.params(terms), "rows": rows})
        }
        return [found[row] for row in rows if row in found]


def _columns(kind: str) -> str:
    return _QUESTION_COLUMNS if kind == "question" else _SECTION_COLUMNS


def _highlights(row: Any) -> tuple[Any, ...]:
    """A highlighted row without its index id: its columns, then its title and snippet."""
    return (*row[1:-2], row[-2] or "", row[-1] or "")


# SQLite's statements of each kind without a topic, built once: found, unranked.
_EVERYWHERE: dict[str, tuple[TextClause, TextClause]] = {}


def _json_page(rows: str) -> str:
    """SQL making a page of rows (each a JSON array named `found`) into one JSON array.

    The page crosses from SQLite to Python in one step, where each row would take one: a
    step lets go of the GIL and takes it back, which means a wait whenever the event loop's
    thread holds it (rendering a page), and the list is decoded in C.
    """
    return "SELECT '[' || group_concat(found, ',') || ']' FROM (" + rows + ")"


class SQLiteBackend(Backend):
    """One FTS5 table per kind; a row's id is its question's or section's."""

    count_sql = """
        SELECT count(*) FROM (
            SELECT 1 FROM {index} {join}
            WHERE {index} MATCH :match {topic}
            LIMIT :cap + 1
        )
    """
    # Run for at most TOTAL_CAP matches only: bm25() runs once a match.
    page_sql = """
        SELECT {index}.rowid FROM {index} {join}
        WHERE {index} MATCH :match {topic}
        ORDER BY bm25({index}, 3.0, 1.0), {index}.rowid
        LIMIT :limit
    """
    # The rows not yet shown (a page with every term in the title comes first), in index
    # order: as JSON, [row, columns..., title, snippet] each.
    unranked_sql = _json_page(
        """
        SELECT json_array({index}.rowid, {columns},
                          highlight({index}, 0, :start, :stop),
                          snippet({index}, 1, :start, :stop, '…', :words)) AS found
        FROM {index} {join}
        WHERE {index} MATCH :match {topic}
          AND {index}.rowid NOT IN (SELECT value FROM json_each(:shown))
        LIMIT :limit
    """
    )
    highlight_sql = """
        SELECT {index}.rowid, {columns},
               highlight({index}, 0, :start, :stop),
               snippet({index}, 1, :start, :stop, '…', :words)
        FROM {index} {join}
        WHERE {index} MATCH :match AND {index}.rowid IN :rows
    """
    # Without a topic: how many match (up to :cap + 1) and, for at most :cap, the ranked page
    # as JSON, [rank, row, columns..., title, snippet] each. FTS5 consumes ORDER BY rank
    # itself: it ranks the matches, then reads the page's rows (with their matches, for
    # highlighting) from its sorter.
    found_sql = (
        """
        WITH found (total) AS (
            SELECT count(*) FROM (
                SELECT 1 FROM {index} WHERE {index} MATCH :match LIMIT :cap + 1
            )
        )
        SELECT total, CASE WHEN total BETWEEN 1 AND :cap THEN (
    """
        + _json_page(
            """
        SELECT json_array(rank, {index}.rowid, {columns},
                          highlight({index}, 0, :start, :stop),
                          snippet({index}, 1, :start, :stop, '…', :words)) AS found
        FROM {index} {join}
        WHERE {index} MATCH :match AND rank MATCH 'bm25(3.0, 1.0)'
        ORDER BY rank
        LIMIT :limit
    """
        )
        + ") END FROM found"
    )
    ranks_all = False

    def index(self, kind: str) -> str:
        return QUESTION_INDEX if kind == "question" else SECTION_INDEX

    def kind_rows(self, kind: str) -> str:
        return "1"  # every row of the kind's table (its SQL leaves {kind} out)

    def content_id(self, kind: str) -> str:
        return f"{self.index(kind)}.rowid"

    def _found(
        self,
        session: Session,
        terms: Sequence[Term],
        kind: str,
        topics: list[int] | None,
        limit: int,
    ) -> tuple[list[tuple[Any, ...]], int]:
        """Count first: rank at most TOTAL_CAP matches, or take the title's first of more."""
        params = self._params(terms, topics, limit)
        if topics is None:
            return self._found_everywhere(session, kind, params)
        total = session.scalar(self._statement(self.count_sql, kind, topics), params) or 0
        if not total:
            return [], 0
        if total <= TOTAL_CAP:
            page = self._statement(self.page_sql, kind, topics)
            rows = list(session.scalars(page, params).all())
            return self._highlighted(session, terms, kind, rows), total
        unranked = self._statement(self.unranked_sql, kind, topics, columns=True)
        return _title_first(lambda values: session.scalar(unranked, values), params), total

    def _found_everywhere(
        self, session: Session, kind: str, params: dict[str, Any]
    ) -> tuple[list[tuple[Any, ...]], int]:
        """Without a topic: statements built once per kind."""
        found, unranked = self._everywhere(kind)
        ((total, page),) = session.execute(found, params).all()
        if not total:
            return [], 0
        if page is None:  # too many to rank
            return _title_first(lambda values: session.scalar(unranked, values), params), total
        ranked = sorted(json.loads(page), key=lambda row: (row[0], row[1]))  # rank, then row
        return [_highlights(row[1:]) for row in ranked], total

    def _everywhere(self, kind: str) -> tuple[TextClause, TextClause]:
        """The found and unranked statements of a kind without a topic."""
        statements = _EVERYWHERE.get(kind)
        if statements is None:
            found, unranked = (
                self._statement(sql, kind, None, columns=True)
                for sql in (self.found_sql, self.unranked_sql)
            )
            statements = _EVERYWHERE[kind] = (found, unranked)
        return statements

    def params(self, terms: Sequence[Term]) -> dict[str, Any]:
        return {"match": fts5_query(terms), "start": START, "stop": STOP, "words": SNIPPET_WORDS}


def _title_first(
    run: Callable[[dict[str, Any]], str | None], params: dict[str, Any]
) -> list[tuple[Any, ...]]:
    """A page of rows with every term in the title first, then the others, in index order.

    `run(values)` runs SQLite's unranked statement with those values: a JSON page or None.
    """
    match, limit = params["match"], params["limit"]
    found = _rows(run(params | {"match": f"({match}) AND title : ({match})", "shown": "[]"}))
    if len(found) < limit:
        shown = json.dumps([row[0] for row in found])
        found += _rows(run(params | {"shown": shown, "limit": limit - len(found)}))
    return [_highlights(row) for row in found]


def _rows(page: str | None) -> list[list[Any]]:
    """The rows of an unranked JSON page, in index order (the order of their ids)."""
    return sorted(json.loads(page)) if page else []


def fts5_query(terms: Sequence[Term]) -> str:
    """Write terms as FTS5 quoted phrases, all required: `"kSTRICT_TYPES" "calib" *`."""
    return " ".join(
        '"' + term.text.replace('"', '""') + '"' + (" *" if term.prefix else "") for term in terms
    )


class PostgresBackend(Backend):
    """One table; words are found in its English document (stemmed, stop words dropped) and
    prefixes in its words as written (`simple`), so `in*` finds "in", "int8" and "inference"."""

    page_sql = """
        SELECT s.id
        FROM ({tsquery}) AS query (words, prefixes, shown) CROSS JOIN {index} AS s {join}
        WHERE {match} AND {kind} {topic}
        ORDER BY {rank} DESC, s.id
        LIMIT :limit
    """
    count_sql = """
        SELECT count(*) FROM (
            SELECT 1 FROM ({tsquery}) AS query (words, prefixes, shown)
            CROSS JOIN {index} AS s {join}
            WHERE {match} AND {kind} {topic}
            LIMIT :cap + 1
        ) AS found
    """
    highlight_sql = """
        SELECT s.id, {columns},
               ts_headline({config}, s.title, query.shown, :title_options),
               ts_headline({config}, s.body, query.shown, :body_options)
        FROM ({tsquery}) AS query (words, prefixes, shown) CROSS JOIN {index} AS s {join}
        WHERE s.id IN :rows
    """
    _title_options = f'StartSel="{START}", StopSel="{STOP}", HighlightAll=true'
    _body_options = (
        f'StartSel="{START}", StopSel="{STOP}", MaxWords={SNIPPET_WORDS}, MinWords=8, '
        'MaxFragments=2, FragmentDelimiter=" … "'
    )

    def index(self, kind: str) -> str:
        return INDEX_TABLE

    def kind_rows(self, kind: str) -> str:
        return f"{self.content_id(kind)} IS NOT NULL"

    def content_id(self, kind: str) -> str:
        return "s.question_id" if kind == "question" else "s.section_id"

    def __init__(self, terms: Sequence[Term]) -> None:
        found = [("s.document", "query.words")] if any(not t.prefix for t in terms) else []
        if any(term.prefix for term in terms):
            found.append(("s.words", "query.prefixes"))
        parts = {
            "{tsquery}": tsquery_sql(terms),
            "{match}": " AND ".join(f"{column} @@ {query}" for column, query in found),
            "{rank}": " + ".join(f"ts_rank({column}, {query})" for column, query in found),
            # only prefixes: highlight the words as written ("in" is an English stop word)
            "{config}": "'english'" if any(not t.prefix for t in terms) else "'simple'",
        }
        for name in ("page_sql", "count_sql", "highlight_sql"):
            sql = getattr(self, name)
            for placeholder, value in parts.items():
                sql = sql.replace(placeholder, value)
            setattr(self, name, sql)

    def params(self, terms: Sequence[Term]) -> dict[str, Any]:
        params: dict[str, Any] = {
            "title_options": self._title_options,
            "body_options": self._body_options,
        }
        for n, term in enumerate(terms):
            words = term.text if not term.prefix else " ".join(prefix_words(term)[:-1])
            params[f"term{n}"] = words
            if term.prefix:
                params[f"prefix{n}"] = prefix_words(term)[-1] + ":*"
        return params


def prefix_words(term: Term) -> list[str]:
    """Split a prefix term into plain words, safe to write into to_tsquery's syntax."""
    return _PLAIN_WORD.findall(term.text)


def tsquery_sql(terms: Sequence[Term]) -> str:
    """The SELECT of three tsqueries requiring every term: the words (English), the prefixes
    (`simple`: a phrase ending in a prefix), and both as the highlighting looks for them."""
    words = [f"phraseto_tsquery('english', :term{n})" for n, t in enumerate(terms) if not t.prefix]
    prefixes = [_prefix_phrase("simple", n, t) for n, t in enumerate(terms) if t.prefix]
    # Highlighted English text has its words stemmed: a prefix is looked for both ways.
    either = [
        f"({_prefix_phrase('simple', n, t)} || {_prefix_phrase('english', n, t)})"
        for n, t in enumerate(terms)
        if t.prefix
    ]
    shown = words + (either if words else prefixes)
    return "SELECT " + ", ".join(_all(parts) for parts in (words, prefixes, shown))


def _prefix_phrase(config: str, n: int, term: Term) -> str:
    """The tsquery of a prefix term: its words in a row, the last one a prefix."""
    prefix = f"to_tsquery('{config}', :prefix{n})"
    if len(prefix_words(term)) == 1:
        return prefix
    return f"tsquery_phrase(phraseto_tsquery('{config}', :term{n}), {prefix})"


def _all(parts: list[str]) -> str:
    return " && ".join(parts) if parts else "NULL::tsquery"


def backend_for(session: Session, terms: Sequence[Term]) -> Backend:
    """Return the backend of the session's database."""
    if session.get_bind().dialect.name == "sqlite":
        return SQLiteBackend()
    return PostgresBackend(terms)


def _topic(slug: str | None, title: str | None) -> TopicRef | None:
    return TopicRef(slug, title) if slug is not None and title is not None else None
