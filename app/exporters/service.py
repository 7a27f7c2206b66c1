"""Export questions in a chosen format, as a named file."""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content.export import export_content
from app.content.models import QuestionSet, Topic
from app.exporters.anki import write_apkg
from app.exporters.errors import UnknownFormat
from app.exporters.gift import write_gift
from app.exporters.moodle_xml import write_moodle_xml
from app.exporters.selection import ExportedQuestion, read_questions
from app.exporters.spreadsheet import write_csv

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")  # a file name in a header stays a plain word
Writer = Callable[[list[ExportedQuestion]], str | bytes]


@dataclass(frozen=True)
class Format:
    label: str
    extension: str
    media_type: str
    write: Writer | None  # None: the JSON export of all content
    binary: bool = False  # bytes, never written to a terminal


FORMATS: dict[str, Format] = {
    "json": Format("Studyhall JSON (all content)", "json", "application/json", None),
    "gift": Format("GIFT (Moodle text)", "gift", "text/plain; charset=utf-8", write_gift),
    "moodle-xml": Format("Moodle XML", "xml", "application/xml", write_moodle_xml),
    "csv": Format("CSV (spreadsheets)", "csv", "text/csv; charset=utf-8", write_csv),
    "apkg": Format("Anki deck", "apkg", "application/x-apkg", write_apkg, True),
}


@dataclass(frozen=True)
class ExportFile:
    content: str | bytes  # bytes for a binary format (an Anki deck)
    filename: str
    media_type: str

    @property
    def text(self) -> str:
        """The file as text; a binary file has none."""
        if isinstance(self.content, bytes):
            raise TypeError(f"{self.filename} is a binary file")
        return self.content

    @property
    def data(self) -> bytes:
        """The file's bytes (text as UTF-8)."""
        return self.content if isinstance(self.content, bytes) else self.content.encode("utf-8")


def export_file(
    session: Session, format: str, sets: list[str] | None = None, topic: str | None = None
) -> ExportFile:
    """Export the questions of the sets (all without) under the topic in format, as a file."""
    chosen = FORMATS.get(format)
    if chosen is None:
        raise UnknownFormat(f"unknown export format {format!r}; choose one of {', '.join(FORMATS)}")
    if chosen.write is None:
        content: str | bytes = (
            json.dumps(_json(session, sets, topic), ensure_ascii=False, indent=2) + "\n"
        )
    else:
        content = chosen.write(read_questions(session, sets, topic))
    return ExportFile(content, file_name(chosen.extension, sets, topic), chosen.media_type)


def _json(session: Session, sets: list[str] | None, topic: str | None) -> dict[str, Any]:
    """The JSON export; with a set or topic chosen, only their questions."""
    document = export_content(session)
    if sets or topic is not None:
        kept = {question.id for question in read_questions(session, sets, topic)}
        document["questions"] = [q for q in document["questions"] if q["id"] in kept]
    return document


def file_name(extension: str, sets: list[str] | None, topic: str | None) -> str:
    """A name saying what the file holds: studyhall-questions[-set...][-topic].ext."""
    parts = ["studyhall-questions", *(sets or []), *([topic] if topic else [])]
    return f"{_UNSAFE.sub('-', '-'.join(parts))[:150]}.{extension}"


@dataclass(frozen=True)
class Options:
    """What the export form offers: (slug, title) of each question set and topic."""

    sets: list[tuple[str, str]]
    topics: list[tuple[str, str]]


def export_options(session: Session) -> Options:
    """List the question sets and topics an export may be limited to."""
    sets = session.execute(select(QuestionSet.slug, QuestionSet.title).order_by(QuestionSet.slug))
    topics = session.execute(select(Topic.slug, Topic.title).order_by(Topic.position, Topic.id))
    return Options(
        [(slug, title) for slug, title in sets], [(slug, title) for slug, title in topics]
    )


def export_for(
    session: Session, actor: Viewer, format: str, sets: list[str], topic: str | None
) -> ExportFile:
    """Export for a person: only authors and admins may."""
    if not actor.may("author"):
        raise PermissionDenied("Only authors can export content.")
    return export_file(session, format, sets, topic)
