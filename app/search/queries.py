"""The index's own query languages: SQLite FTS5 and PostgreSQL full-text search.

Each group is found in short steps: how many match (counted up to TOTAL_CAP); one page of
matching rows, best first; the highlighted title and snippet of that page's rows.

On SQLite, ranking is what costs: bm25() first weighs each word by every row of the index
that holds it (milliseconds for a common word, and again for each kind), then runs once per
row it ranks, about 1.5 µs a row. A kind matching at most TOTAL_CAP rows is ranked whole; one
matching more is too broad for a ranking to mean much, and is not ranked: its page is the
rows with every word in the title first, then the others, in the index's order (the results
say so; a second word narrows the search). Each kind of row is a range of the index, so a
kind is read alone: the first matches' row ids count them and give the range, and one query
over that range returns the page with its highlights (FTS5 sorts by rank itself and keeps
each row's matches, so highlighting the page reads nothing again).
"""

import re
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.orm import Session

from app.content.read_models import TopicRef
from app.search.models import SECTION_ROWS
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

    page_sql = ""  # {join} {kind} {topic}: one page of rows, best first
    count_sql = ""  # {join} {kind} {topic}: how many rows match, up to :cap + 1
    highlight_sql = ""  # {join} {columns}: (row, columns..., title, snippet) of given rows
    page_row = highlight_row = ""  # the index row's id in the page and highlight SQL
    question_kind = section_kind = ""  # which rows are questions, which sections
    ranks_all = True  # False: a kind with more than TOTAL_CAP matches is not ranked

    def content_id(self, kind: str, row: str) -> str:
        """The id of the question or section an index row (written `row`) stands for."""
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
            QuestionHit(qid, set_slug, title, snippet, _topic(ts, tt))
            for qid, set_slug, ts, tt, title, snippet in hits
        ), total

    def notes(
        self, session: Session, terms: Sequence[Term], topics: list[int] | None, limit: int
    ) -> tuple[tuple[NoteHit, ...], int]:
        """Return one page of matching note sections, best first, and how many match."""
        hits, total = self._found(session, terms, "section", topics, limit)
        return tuple(
            NoteHit(slug, note_title, anchor, heading, snippet, _topic(ts, tt))
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
        """One page of highlighted rows of a kind, best first, and how many match."""
        rows, total = self._page(session, terms, kind, topics, limit)
        return self._highlighted(session, terms, kind, rows), total

    def _page(
        self,
        session: Session,
        terms: Sequence[Term],
        kind: str,
        topics: list[int] | None,
        limit: int,
    ) -> tuple[list[int], int]:
        params = {**self.params(terms), "limit": limit, "cap": TOTAL_CAP}
        if topics is not None:
            params["topics"] = topics
        rows = session.scalars(self._statement(self.page_sql, kind, topics), params).all()
        if len(rows) < limit:
            return list(rows), len(rows)  # all of them: no need to count
        total = session.scalar(self._statement(self.count_sql, kind, topics), params) or 0
        return list(rows), total

    def _statement(self, sql: str, kind: str, topics: list[int] | None) -> Any:
        """Fill in the joins and filters of one kind of row (and a topic's, when given)."""
        owner = "q" if kind == "question" else "n"
        topic = f"AND {owner}.topic_id IN :topics" if topics is not None else ""
        statement = text(
            sql.format(
                join=self._join(kind, self.page_row) if topics is not None else "",
                kind=self._kind(kind),
                topic=topic,
            )
        )
        if topics is not None:
            statement = statement.bindparams(bindparam("topics", expanding=True))
        return statement

    def _kind(self, kind: str) -> str:
        return self.question_kind if kind == "question" else self.section_kind

    def _join(self, kind: str, row: str) -> str:
        template = _QUESTION if kind == "question" else _SECTION
        return template.format(id=self.content_id(kind, row))

    def _highlighted(
        self, session: Session, terms: Sequence[Term], kind: str, rows: list[int]
    ) -> list[tuple[Any, ...]]:
        if not rows:
            return []
        columns = _QUESTION_COLUMNS if kind == "question" else _SECTION_COLUMNS
        sql = self.highlight_sql.format(join=self._join(kind, self.highlight_row), columns=columns)
        statement = text(sql).bindparams(bindparam("rows", expanding=True))
        found = {
            row[0]: _marked(row)
            for row in session.execute(statement, {**self.params(terms), "rows": rows})
        }
        return [found[row] for row in rows if row in found]


def _marked(row: Any) -> tuple[Any, ...]:
    """A highlighted row without its index id: its columns, then title and snippet as HTML."""
    return (*row[1:-2], marked_html(row[-2] or ""), marked_html(row[-1] or ""))


class SQLiteBackend(Backend):
    # Run for a kind matching at most TOTAL_CAP rows only: bm25() runs once a match.
    page_sql = """
        SELECT search_index.rowid FROM search_index {join}
        WHERE search_index MATCH :match AND {kind} {topic}
        ORDER BY bm25(search_index, 3.0, 1.0), search_index.rowid
        LIMIT :limit
    """
    count_sql = """
        SELECT count(*) FROM (
            SELECT 1 FROM search_index {join}
            WHERE search_index MATCH :match AND {kind} {topic}
            LIMIT :cap + 1
        )
    """
    unranked_sql = """
        SELECT search_index.rowid FROM search_index {join}
        WHERE search_index MATCH :match AND {kind} {topic}
        LIMIT :limit
    """
    highlight_sql = """
        SELECT search_index.rowid, {columns},
               highlight(search_index, 0, :start, :stop),
               snippet(search_index, 1, :start, :stop, '…', :words)
        FROM search_index {join}
        WHERE search_index MATCH :match AND search_index.rowid IN :rows
    """
    first_rows_sql = """
        SELECT count(*), min(id), max(id) FROM (
            SELECT search_index.rowid AS id FROM search_index
            WHERE search_index MATCH :match AND {kind}
            LIMIT :cap + 1
        )
    """
    # FTS5 consumes ORDER BY rank itself: it ranks the range, then reads the page's rows
    # (with their matches, for highlighting) from its sorter.
    ranked_sql = """
        SELECT search_index.rowid, {columns},
               highlight(search_index, 0, :start, :stop),
               snippet(search_index, 1, :start, :stop, '…', :words)
        FROM search_index {join}
        WHERE search_index MATCH :match AND rank MATCH 'bm25(3.0, 1.0)'
          AND search_index.rowid BETWEEN :low AND :high
        ORDER BY rank
        LIMIT :limit
    """
    unranked_highlighted_sql = """
        SELECT search_index.rowid, {columns},
               highlight(search_index, 0, :start, :stop),
               snippet(search_index, 1, :start, :stop, '…', :words)
        FROM search_index {join}
        WHERE search_index MATCH :match AND {kind}
        LIMIT :limit
    """
    page_row = highlight_row = "search_index.rowid"
    question_kind = f"search_index.rowid < {SECTION_ROWS}"
    section_kind = f"search_index.rowid >= {SECTION_ROWS}"
    ranks_all = False

    def content_id(self, kind: str, row: str) -> str:
        return row if kind == "question" else f"{row} - {SECTION_ROWS}"

    def _found(
        self,
        session: Session,
        terms: Sequence[Term],
        kind: str,
        topics: list[int] | None,
        limit: int,
    ) -> tuple[list[tuple[Any, ...]], int]:
        """Without a topic: count the first matches, then one query for the highlighted page."""
        if topics is not None:  # the topic is in other tables: rank what passes the join
            return super()._found(session, terms, kind, topics, limit)
        params = {**self.params(terms), "limit": limit, "cap": TOTAL_CAP}
        first = self._statement(self.first_rows_sql, kind, None)
        total, low, high = session.execute(first, params).one()
        if not total:
            return [], 0
        columns = _QUESTION_COLUMNS if kind == "question" else _SECTION_COLUMNS
        join = self._join(kind, "search_index.rowid")
        if total <= TOTAL_CAP:
            ranked = text(self.ranked_sql.format(join=join, columns=columns))
            rows = session.execute(ranked, params | {"low": low, "high": high}).all()
        else:
            sql = self.unranked_highlighted_sql.format(
                join=join, columns=columns, kind=self._kind(kind)
            )
            unranked = text(sql)
            rows = _title_first(
                lambda match, count: session.execute(
                    unranked, params | {"match": match, "limit": count}
                ).all(),
                params["match"],
                limit,
            )
        return [_marked(row) for row in rows], total

    def _page(
        self,
        session: Session,
        terms: Sequence[Term],
        kind: str,
        topics: list[int] | None,
        limit: int,
    ) -> tuple[list[int], int]:
        """Count first: rank at most TOTAL_CAP matches, or take the title's first of more."""
        params = {**self.params(terms), "limit": limit, "cap": TOTAL_CAP, "topics": topics}
        total = session.scalar(self._statement(self.count_sql, kind, topics), params) or 0
        if total <= TOTAL_CAP:
            page = self._statement(self.page_sql, kind, topics)
            return list(session.scalars(page, params).all()), total
        unranked = self._statement(self.unranked_sql, kind, topics)
        rows = _title_first(
            lambda match, count: [
                (row,)
                for row in session.scalars(unranked, params | {"match": match, "limit": count})
            ],
            params["match"],
            limit,
        )
        return [row[0] for row in rows], total

    def params(self, terms: Sequence[Term]) -> dict[str, Any]:
        return {"match": fts5_query(terms), "start": START, "stop": STOP, "words": SNIPPET_WORDS}


def _title_first(run: Callable[[str, int], Sequence[Any]], match: str, limit: int) -> list[Any]:
    """Rows (row id first) with every term in the title first, then the others, in index order.

    `run(match, count)` returns up to count rows matching an FTS5 query.
    """
    rows = list(run(f"({match}) AND title : ({match})", limit))
    if len(rows) < limit:
        shown = {row[0] for row in rows}
        others = [row for row in run(match, limit + len(rows)) if row[0] not in shown]
        rows += others[: limit - len(rows)]
    return rows


def fts5_query(terms: Sequence[Term]) -> str:
    """Write terms as FTS5 quoted phrases, all required: `"kSTRICT_TYPES" "calib" *`."""
    return " ".join(
        '"' + term.text.replace('"', '""') + '"' + (" *" if term.prefix else "") for term in terms
    )


class PostgresBackend(Backend):
    page_sql = """
        SELECT s.id
        FROM ({tsquery}) AS query (tsq) CROSS JOIN search_index AS s {join}
        WHERE s.document @@ query.tsq AND {kind} {topic}
        ORDER BY ts_rank(s.document, query.tsq) DESC, s.id
        LIMIT :limit
    """
    count_sql = """
        SELECT count(*) FROM (
            SELECT 1 FROM ({tsquery}) AS query (tsq) CROSS JOIN search_index AS s {join}
            WHERE s.document @@ query.tsq AND {kind} {topic}
            LIMIT :cap + 1
        ) AS found
    """
    highlight_sql = """
        SELECT s.id, {columns},
               ts_headline('english', s.title, query.tsq, :title_options),
               ts_headline('english', s.body, query.tsq, :body_options)
        FROM ({tsquery}) AS query (tsq) CROSS JOIN search_index AS s {join}
        WHERE s.id IN :rows
    """
    page_row = highlight_row = "s.id"
    question_kind, section_kind = "s.question_id IS NOT NULL", "s.section_id IS NOT NULL"
    _title_options = f'StartSel="{START}", StopSel="{STOP}", HighlightAll=true'
    _body_options = (
        f'StartSel="{START}", StopSel="{STOP}", MaxWords={SNIPPET_WORDS}, MinWords=8, '
        'MaxFragments=2, FragmentDelimiter=" … "'
    )

    def content_id(self, kind: str, row: str) -> str:
        return "s.question_id" if kind == "question" else "s.section_id"

    def __init__(self, terms: Sequence[Term]) -> None:
        self.page_sql = self.page_sql.replace("{tsquery}", tsquery_sql(terms))
        self.count_sql = self.count_sql.replace("{tsquery}", tsquery_sql(terms))
        self.highlight_sql = self.highlight_sql.replace("{tsquery}", tsquery_sql(terms))

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
    """The SELECT of one tsquery requiring every term (phrases; a prefix at a term's end)."""
    parts = []
    for n, term in enumerate(terms):
        phrase = f"phraseto_tsquery('english', :term{n})"
        if term.prefix:
            phrase = f"tsquery_phrase({phrase}, to_tsquery('english', :prefix{n}))"
        parts.append(phrase)
    return "SELECT " + " && ".join(parts)


def backend_for(session: Session, terms: Sequence[Term]) -> Backend:
    """Return the backend of the session's database."""
    if session.get_bind().dialect.name == "sqlite":
        return SQLiteBackend()
    return PostgresBackend(terms)


def _topic(slug: str | None, title: str | None) -> TopicRef | None:
    return TopicRef(slug, title) if slug is not None and title is not None else None
