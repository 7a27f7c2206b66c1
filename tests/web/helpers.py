"""Helpers for web tests: parse HTML, find seed objects, count SQL statements."""

from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser

from fastapi import FastAPI
from sqlalchemy import event, select

from app.content.models import Choice, Question, QuestionSet
from app.db import Database

SEED_SET = "nca-inference-optimization-tensorrt-5"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(html: str, name: str) -> list[dict[str, str | None]]:
    """Return the attributes of every <name> tag in html."""
    collector = _Collector()
    collector.feed(html)
    return [attrs for tag, attrs in collector.tags if tag == name]


def question_id(db: Database, key: str, set_slug: str = SEED_SET) -> int:
    with db.session_scope() as session:
        return session.scalars(
            select(Question.id)
            .join(QuestionSet)
            .where(Question.key == key, QuestionSet.slug == set_slug)
        ).one()


def choice_ids(db: Database, key: str) -> tuple[int, list[int]]:
    """Return (right choice id, wrong choice ids) of a seed question."""
    with db.session_scope() as session:
        choices = session.execute(
            select(Choice.id, Choice.is_correct).where(Choice.question_id == question_id(db, key))
        ).all()
    return next(c for c, ok in choices if ok), [c for c, ok in choices if not ok]


@contextmanager
def count_queries(app: FastAPI) -> Iterator[list[str]]:
    """Collect every SQL statement the app runs inside the block."""
    statements: list[str] = []

    def record(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        if not statement.startswith(("BEGIN", "PRAGMA", "ROLLBACK", "COMMIT")):
            statements.append(statement)

    engine = app.state.db.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)
