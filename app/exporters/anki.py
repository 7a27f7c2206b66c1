"""Questions as an Anki deck (.apkg): one note a question, on a note type of Studyhall's own.

The front holds the stem and the lettered choices, the back the right choice(s), the
explanation, the sources and the topic; every field is HTML from the Markdown renderer,
sanitised, and every plain value is escaped. Ids are stable, so importing a later export
into Anki updates the notes instead of adding copies: a note's guid comes from the
question's id ("set-slug/key"), the deck's id from its name, the note type's id is fixed.
"""

import hashlib
import io
import itertools
import json
import re
import sqlite3
import time
import zipfile
from collections.abc import Iterable
from contextlib import closing
from html import escape

import genanki

from app.content.markdown import clean, render, render_inline
from app.exporters.errors import NotExportable
from app.exporters.selection import ExportedChoice, ExportedQuestion

DECK = "Studyhall"
MODEL_ID = 1_742_075_301  # fixed forever: a new id would make Anki add every note again
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
FIELDS = ["Question", "Choices", "Answer", "Explanation", "Source", "Topic", "Id"]
_NOT_TAG = re.compile(r"\s+")
_BACK = """{{FrontSide}}
<hr id="answer">
<div class="answer">{{Answer}}</div>
{{#Explanation}}<div class="explanation">{{Explanation}}</div>{{/Explanation}}
{{#Source}}<p class="source">Source: {{Source}}</p>{{/Source}}
{{#Topic}}<p class="topic">Topic: {{Topic}}</p>{{/Topic}}"""
_CSS = """.card { font-family: system-ui, sans-serif; font-size: 18px; text-align: left;
  max-width: 40em; margin: 0 auto; line-height: 1.45; }
.choice { margin: .4em 0; } .letter { font-weight: bold; margin-right: .4em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; } .source, .topic { font-size: 15px; }"""
MODEL = genanki.Model(
    MODEL_ID,
    "Studyhall question",
    fields=[{"name": name} for name in FIELDS],
    templates=[
        {
            "name": "Question",
            "qfmt": '<div class="stem">{{Question}}</div>\n{{Choices}}',
            "afmt": _BACK,
        }
    ],
    css=_CSS,
)


def deck_id(name: str) -> int:
    """The deck's id, the same for the same name in every export (in Anki's usual range)."""
    digest = hashlib.sha256(f"studyhall deck {name}".encode()).digest()
    return (1 << 30) + int.from_bytes(digest[:4], "big") % (1 << 30)


def note_guid(question: ExportedQuestion) -> str:
    """The note's guid, from the question's id alone: it survives edits and later exports."""
    return str(genanki.guid_for("studyhall", question.id))


def write_apkg(
    questions: Iterable[ExportedQuestion], deck: str = DECK, now: float | None = None
) -> bytes:
    """Write the questions as an Anki package named deck; refuse an empty selection."""
    notes = [_note(question) for question in questions]
    if not notes:
        raise NotExportable("the selection holds no questions, and an Anki deck needs one")
    package = genanki.Package(genanki.Deck(deck_id(deck), deck))
    package.decks[0].notes.extend(notes)
    # The collection is built in memory and zipped from there: no file is left behind.
    stamp = time.time() if now is None else now
    with closing(sqlite3.connect(":memory:")) as collection:
        package.write_to_db(collection.cursor(), stamp, itertools.count(int(stamp * 1000)))
        collection.commit()
        data = collection.serialize()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("collection.anki2", data)
        archive.writestr("media", json.dumps({}))
    return out.getvalue()


def _note(question: ExportedQuestion) -> genanki.Note:
    if len(question.choices) > len(LETTERS):
        raise NotExportable(f"question {question.id} has more choices than letters")
    fields = [
        render(question.stem),
        _choices(question),
        _answer(question),
        render(question.explanation) if question.explanation.strip() else "",
        _sources(question),
        escape(" › ".join(question.topic_path)),
        escape(question.id),
    ]
    tags = ["studyhall", question.set_slug, *([question.topic] if question.topic else [])]
    return genanki.Note(
        model=MODEL,
        # a field separator inside a field would shift every field after it
        fields=[field.replace("\x1f", "") for field in fields],
        tags=[_NOT_TAG.sub("_", tag) for tag in tags],
        guid=note_guid(question),
    )


def _choices(question: ExportedQuestion) -> str:
    rows = [_choice(letter, choice.text) for letter, choice in _lettered(question)]
    if question.kind == "multi":
        rows.append('<p class="hint">Choose every right answer.</p>')
    return "\n".join(rows)


def _lettered(question: ExportedQuestion) -> list[tuple[str, ExportedChoice]]:
    return list(zip(LETTERS[: len(question.choices)], question.choices, strict=True))


def _choice(letter: str, text: str) -> str:
    return f'<div class="choice"><span class="letter">{letter}.</span>{render_inline(text)}</div>'


def _answer(question: ExportedQuestion) -> str:
    right = [(letter, choice) for letter, choice in _lettered(question) if choice.correct]
    head = "Right answer" if len(right) == 1 else "Right answers"
    letters = ", ".join(letter for letter, _ in right)
    rows = [_choice(letter, choice.text) for letter, choice in right]
    return "\n".join([f"<p><strong>{head}: {letters}</strong></p>", *rows])


def _sources(question: ExportedQuestion) -> str:
    """The references as links; the sanitiser drops a link to anything but http(s) or mail."""
    links = [
        f'<a href="{escape(r.url)}">{escape(r.title or r.url)}</a>' for r in question.references
    ]
    return clean(", ".join(links))
