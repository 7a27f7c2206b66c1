"""Planted content for the export tests: GIFT's special characters, Markdown with code and
braces, several right answers, choices' feedback, formula-like cells, and a topic tree with a
'/' in a name."""

import io
import json
import sqlite3
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from app.db import Database
from app.exporters.selection import ExportedChoice, ExportedQuestion, ExportedReference
from app.migrate import upgrade
from tests.factories import import_file

SPECIALS = "Escapes: ~ = # { } : and a backslash \\ then \\n and \\\\ too"
CODE = "Given\n\n```cpp\nauto f = [](int x) { return x; };  // {}\n```\n\nwhich **one**?"
QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "tricky/escapes",
        "topic": "routing",
        "stem": SPECIALS,
        "choices": [
            {"text": "a ~ b", "correct": True, "feedback": SPECIALS},
            {"text": "x = y", "correct": False},
            {"text": "#hash and ####four", "correct": False, "feedback": "####not general\n\n#"},
            {"text": "{brace} and key: value \\", "correct": False, "feedback": "ends in \\"},
        ],
        "explanation": "Because ~ = # { } : \\ all need escaping.\n\n// not a comment",
    },
    {
        "id": "tricky/multi",
        "topic": "routing",
        "stem": "Which three are right?",
        "kind": "multi",
        "choices": [
            {"text": "one", "correct": True},
            {"text": "two", "correct": True},
            {"text": "three", "correct": True},
            {"text": "four", "correct": False},
            {"text": "five", "correct": False},
        ],
        "explanation": "One, two and three.",
    },
    {
        "id": "tricky/code",
        "topic": "net",
        "stem": CODE,
        "choices": [
            {"text": "`engine->getTensorShape()`", "correct": False, "feedback": CODE},
            {"text": "`ctx->getTensorShape()` with `{}`", "correct": True},
        ],
        "explanation": "Para one.\n\n- a list\n- of `{x}`\n\nPara three.",
        "references": [{"url": "https://example.org/doc", "title": "The doc", "version": "1.0"}],
    },
    {
        "id": "tricky/formulas",
        "topic": "net",
        "stem": "=SUM(A1:A2) looks like a formula",
        "choices": [
            {"text": "[html]<b>text</b>", "correct": True},
            {"text": "-1", "correct": False},
            {"text": "+1", "correct": False},
            {"text": "@cmd", "correct": False},
            {"text": "'quoted'", "correct": False},
        ],
        "explanation": "",
    },
    {
        "id": "plain/one",
        "topic": "other",
        "stem": "A plain question?",
        "choices": [{"text": "yes", "correct": True}, {"text": "no", "correct": False}],
        "explanation": "Yes.",
    },
]
DOCUMENT = {
    "format": "studyhall.content/1",
    "topics": [
        {"slug": "net", "title": "Net/Ops"},
        {"slug": "routing", "title": "Routing: {basics}", "parent": "net"},
        {"slug": "other", "title": "Other"},
    ],
    "question_sets": [
        {"slug": "tricky", "title": "Tricky", "topic": "net"},
        {"slug": "plain", "title": "Plain", "topic": "other"},
    ],
    "questions": [{**q, "set": q["id"].split("/")[0]} for q in QUESTIONS],
}


@pytest.fixture
def planted(db: Database) -> Database:
    """The database with the planted content."""
    import_file(db, json.dumps(DOCUMENT).encode(), "planted.json", 0.99)
    return db


@pytest.fixture
def other_db(empty_url: str) -> Iterator[Database]:
    """A second database, migrated and empty, on the same backend as the test's."""
    upgrade(empty_url)
    database = Database(empty_url)
    yield database
    database.dispose()


def exported_question(**fields: Any) -> ExportedQuestion:
    """A question as the writers take it, the planted first one unless told otherwise."""
    first = QUESTIONS[0]
    values: dict[str, Any] = {
        "id": first["id"],
        "set_slug": "tricky",
        "set_title": "Tricky",
        "topic": "routing",
        "topic_path": ("Net/Ops", "Routing: {basics}"),
        "stem": first["stem"],
        "choices": tuple(
            ExportedChoice(c["text"], c["correct"], c.get("feedback", "")) for c in first["choices"]
        ),
        "explanation": first["explanation"],
        "kind": "single",
        "references": (ExportedReference("https://example.org/a", "A"),),
    }
    return ExportedQuestion(**(values | fields))


@dataclass(frozen=True)
class AnkiNote:
    guid: str
    model_id: int
    fields: dict[str, str]
    tags: list[str]


@dataclass(frozen=True)
class AnkiDeck:
    """What an .apkg holds, read back from its collection."""

    names: list[str]  # the zip's members
    decks: dict[int, str]  # id -> name, Anki's "Default" deck left out
    models: dict[int, str]  # id -> name
    notes: list[AnkiNote]
    cards: list[tuple[int, int]]  # (note id, deck id)


def read_apkg(data: bytes) -> AnkiDeck:
    """Open an Anki package: a zip whose collection.anki2 is an SQLite database."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        collection = archive.read("collection.anki2")
    connection = sqlite3.connect(":memory:")
    try:
        connection.deserialize(collection)
        decks_json, models_json = connection.execute("SELECT decks, models FROM col").fetchone()
        models = {int(k): m for k, m in json.loads(models_json).items()}
        fields = {mid: [f["name"] for f in m["flds"]] for mid, m in models.items()}
        notes = [
            AnkiNote(
                guid, mid, dict(zip(fields[mid], flds.split("\x1f"), strict=True)), tags.split()
            )
            for guid, mid, flds, tags in connection.execute(
                "SELECT guid, mid, flds, tags FROM notes ORDER BY id"
            )
        ]
        cards = list(connection.execute("SELECT nid, did FROM cards ORDER BY id"))
    finally:
        connection.close()
    decks = {int(k): d["name"] for k, d in json.loads(decks_json).items() if d["name"] != "Default"}
    return AnkiDeck(names, decks, {k: m["name"] for k, m in models.items()}, notes, cards)
