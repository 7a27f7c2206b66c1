"""Builders and helpers shared by the tests: seed content, imports, log-ins, HTML and SQL."""

import asyncio
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, func, select

from app.config import PROJECT_ROOT
from app.content.bundle import Bundle, ChoiceData, NoteData, QuestionData, QuestionSetData, Report
from app.content.export import export_content
from app.content.models import (
    Choice,
    Note,
    NoteSection,
    Question,
    QuestionNoteLink,
    QuestionReference,
    QuestionSet,
    Topic,
)
from app.content.service import load_bundle
from app.db import Database
from app.importers.service import import_document, seed_files


def import_file(
    db: Database,
    data: bytes,
    file: str,
    threshold: float = 0.12,
    format: str | None = None,
    skip_bad: bool = False,
) -> Report:
    """Import one document in a write transaction of its own, as `studyhall import` does."""
    with db.session_scope(write=True) as session:
        return import_document(session, data, file, threshold, format, skip_bad=skip_bad)


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


def editor_form(client: TestClient, path: str) -> dict[str, str | list[str]]:
    """The question editor's form at path as the browser would send it (every field; the
    ticked boxes as lists)."""
    page = client.get(path)
    assert page.status_code == 200, page.text
    fields: dict[str, str | list[str]] = {}
    for tag in tags(page.text, "input"):
        name = tag.get("name")
        if not name or tag.get("type") in ("submit", "radio"):
            continue
        if tag.get("type") == "checkbox":
            if "checked" in tag:
                fields.setdefault(name, []).append(tag["value"] or "")  # type: ignore[union-attr]
            continue
        fields[name] = tag.get("value") or ""
    html = page.text
    for name in ("stem", "explanation", "versions"):
        fields[name] = _textarea(html, f'name="{name}"')
    for n in range(1, int(str(fields["choices"])) + 1):
        fields[f"choice-{n}-text"] = _textarea(html, f'name="choice-{n}-text"')
        fields[f"choice-{n}-feedback"] = _textarea(html, f'name="choice-{n}-feedback"')
    fields["kind"] = "single"
    fields["topic"] = ""
    return fields


def _textarea(html: str, marker: str) -> str:
    start = html.index(">", html.index(marker)) + 1
    return unescape(html[start : html.index("</textarea>", start)])


def question_id(db: Database, key: str, set_slug: str = SEED_SET) -> int:
    with db.session_scope() as session:
        return session.scalars(
            select(Question.id)
            .join(QuestionSet)
            .where(Question.key == key, QuestionSet.slug == set_slug)
        ).one()


def choice_ids(db: Database, key: str, set_slug: str = SEED_SET) -> tuple[int, list[int]]:
    """Return (right choice id, wrong choice ids) of a seed question."""
    with db.session_scope() as session:
        choices = session.execute(
            select(Choice.id, Choice.is_correct)
            .where(Choice.question_id == question_id(db, key, set_slug))
            .order_by(Choice.position)
        ).all()
    return next(c for c, ok in choices if ok), [c for c, ok in choices if not ok]


def choice_key(db: Database, qid: int) -> int:
    """Return a right choice id of the question."""
    with db.session_scope() as session:
        return session.scalars(
            select(Choice.id).where(Choice.question_id == qid, Choice.is_correct.is_(True))
        ).first()


@contextmanager
def count_queries(app: FastAPI) -> Iterator[list[str]]:
    """Collect every SQL statement the app runs inside the block."""
    statements: list[str] = []

    def record(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        if not statement.startswith(("BEGIN", "PRAGMA", "ROLLBACK", "COMMIT")):
            statements.append(statement)

    db = app.state.db
    engines = [db.engine]
    for engine in engines:
        event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", record)


CONTENT_TABLES = [
    model.__table__
    for model in (
        Topic,
        QuestionSet,
        Question,
        Choice,
        QuestionReference,
        Note,
        NoteSection,
        QuestionNoteLink,
    )
]


def exported(db: Database) -> dict[str, Any]:
    """Return the export document of everything in db."""
    with db.session_scope() as session:
        return export_content(session)


def table_rows(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Return every row of every content table, in primary-key order."""
    with db.session_scope() as session:
        return {
            table.name: [
                tuple(row)
                for row in session.execute(select(table).order_by(*table.primary_key.columns))
            ]
            for table in CONTENT_TABLES
        }


def row_counts(db: Database) -> dict[str, int]:
    return {name: len(rows) for name, rows in table_rows(db).items()}


def snapshot(db: Database) -> tuple[dict[str, Any], dict[str, list[tuple[Any, ...]]]]:
    """Capture the database completely: its export and every row of every table."""
    return exported(db), table_rows(db)


def load(db: Database, bundle: Bundle, threshold: float = 0.12) -> Report:
    """Load a bundle in one write transaction, as an import does."""
    report = Report(file="bundle.txt", format="test")
    with db.session_scope(write=True) as session:
        load_bundle(session, bundle, report, threshold)
    return report


def a_question(key: str, stem: str = "", correct: int = 1, **fields: Any) -> QuestionData:
    choices = [ChoiceData(f"Choice {n}", n == correct) for n in (1, 2, 3)]
    return QuestionData(key, stem or f"Question {key}?", choices, f"Why {key}.", **fields)


def a_set(*questions: QuestionData, slug: str = "basics", **fields: Any) -> Bundle:
    return Bundle(
        question_sets=[QuestionSetData(slug, slug.title(), questions=list(questions), **fields)]
    )


def a_note(markdown: str, slug: str = "guide", **fields: Any) -> Bundle:
    return Bundle(notes=[NoteData(slug, slug.title(), markdown, **fields)])


# The tests run on a small fixed corpus: the original seed documents with their first catalog.
# The shipped bank in seed/ has tests of its own (tests/content/test_shipped_bank.py).
SEED_DIR = PROJECT_ROOT / "tests" / "seed"
SHIPPED_SEED_DIR = PROJECT_ROOT / "seed"


def load_seed(db: Database, threshold: float = 0.12, seed_dir: Path = SEED_DIR) -> None:
    for path in seed_files(seed_dir):
        import_file(db, path.read_bytes(), f"seed/{path.name}", threshold)


PASSWORD = "correct horse battery staple"


def log_in(client: TestClient, username: str, password: str = PASSWORD) -> None:
    """Log the test client in through the real form."""
    response = client.post(
        "/login", data={"username": username, "password": password}, follow_redirects=False
    )
    assert response.status_code == 303, response.text


def assert_only_owner_sees(
    owner: TestClient, stranger: TestClient, method: str, url: str, **kwargs: object
) -> None:
    """One line per route: another user gets the same 404 as for a missing object."""
    response = stranger.request(method, url, follow_redirects=False, **kwargs)  # type: ignore[arg-type]
    assert response.status_code == 404, (method, url, response.status_code)
    response = owner.request(method, url, follow_redirects=False, **kwargs)  # type: ignore[arg-type]
    assert response.status_code in (200, 201, 303), (method, url, response.status_code)


def count_rows(db: Database, model: Any, *where: Any) -> int:
    """Count the rows of model's table (that match where)."""
    with db.session_scope() as session:
        return session.scalar(select(func.count()).select_from(model).where(*where)) or 0


def import_long_set(db: Database, topic: str, questions: int) -> None:
    """Import a set `<topic>-set` of `questions` questions filed under a new topic."""
    import json

    document = {
        "format": "studyhall.content/1",
        "topics": [{"slug": topic, "title": topic.title()}],
        "question_sets": [
            {"slug": f"{topic}-set", "title": f"{topic.title()} set", "topic": topic}
        ],
        "questions": [
            {
                "id": f"{topic}-set/{n}",
                "set": f"{topic}-set",
                "topic": topic,
                "stem": f"{topic.title()} question number {n}?",
                "choices": [{"text": "yes", "correct": True}, {"text": "no", "correct": False}],
            }
            for n in range(1, questions + 1)
        ],
    }
    import_file(db, json.dumps(document).encode(), f"{topic}.json", threshold=0.99)


T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a loop of its own, even when the browser tests left one running here."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def cite(db: Database, key: str, *references: dict[str, str], set_slug: str = SEED_SET) -> None:
    """Give a question references, through a catalog as an author would."""
    import json

    tables = ", ".join(
        "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in reference.items()) + " }"
        for reference in references
    )
    text = (
        f'format = "studyhall.catalog/1"\n[questions."{set_slug}/{key}"]\nreferences = [{tables}]\n'
    )
    import_file(db, text.encode(), "references.toml")


def a_bank(topics: dict[str, int], set_slug: str = "bank") -> dict[str, Any]:
    """An export document of one set that passes every content check: per leaf topic (under
    a root topic) the given number of questions and a note; each question explained, cited
    and linked, its four choices of one length, the right one turn about in each position.
    Stems share few words (each names words of its own)."""
    document: dict[str, Any] = {
        "format": "studyhall.content/1",
        "topics": [{"slug": "bank-root", "title": "Bank"}],
        "question_sets": [{"slug": set_slug, "title": "Bank", "topic": "bank-root"}],
        "questions": [],
        "notes": [],
    }
    n = 0
    for topic, count in topics.items():
        document["topics"].append({"slug": topic, "title": topic.title(), "parent": "bank-root"})
        document["notes"].append(
            {
                "slug": f"{topic}-guide",
                "title": topic.title(),
                "topic": topic,
                "markdown": "## Facts\n\nWhat every question asks.\n",
            }
        )
        for _ in range(count):
            n += 1
            document["questions"].append(
                {
                    "id": f"{set_slug}/{n}",
                    "set": set_slug,
                    "topic": topic,
                    "stem": f"Which knob {n} sets {topic}{n}a against {topic}{n}b on kit {n}x?",
                    "choices": [
                        {"text": f"Option {letter}", "correct": position == n % 4}
                        for position, letter in enumerate("ABCD")
                    ],
                    "explanation": f"Because of rule {n}.",
                    "notes": [f"{topic}-guide#facts"],
                    "references": [
                        {"title": "Guide", "url": f"https://docs.example.org/{n}", "version": "1.x"}
                    ],
                    "versions": ["Kit 1.x"],
                    "difficulty": "medium",
                    "level": "recall",
                }
            )
    return document
