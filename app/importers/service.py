"""Detect a document's format and parse it into a content bundle."""

import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.config import Settings, get_settings
from app.content.bundle import BlueprintData, Bundle, QuestionSetData, Report, TopicData
from app.content.errors import InvalidContent
from app.content.linking import Transactions
from app.content.service import LoadProgress, load_bundle, load_in_steps
from app.db import Database
from app.importers import (
    aiken,
    catalog,
    csv_questions,
    errata,
    export_json,
    gift,
    moodle_xml,
    note,
    qa,
)
from app.importers.errors import ImportRefused
from app.importers.lock import exclusive_import, import_lock_until_commit
from app.importers.text import decode

Parser = Callable[[str, str], tuple[Bundle, Report]]
PAUSE_S = 0.11  # between two write steps of an import on SQLite (see _transactions)
FORMATS: dict[str, tuple[Callable[[str], bool], Parser]] = {
    moodle_xml.FORMAT: (moodle_xml.looks_like, moodle_xml.parse),
    "json": (export_json.looks_like, export_json.parse),
    "catalog": (catalog.looks_like, catalog.parse),
    "qa": (qa.looks_like, qa.parse),
    "note": (note.looks_like, note.parse),
    "errata": (errata.looks_like, errata.parse),
    "csv": (csv_questions.looks_like, csv_questions.parse),  # before GIFT: a cell may hold '{'
    "gift": (gift.looks_like, gift.parse),
    "aiken": (aiken.looks_like, aiken.parse),
}
# The formats whose questions are read one by one, and so may be imported leaving out the
# ones that cannot be read (skip_bad): each left out is reported with its line
SKIPPING_BAD: dict[str, Parser] = {
    name: partial(parse, skip_bad=True)
    for name, parse in [
        ("aiken", aiken.parse),
        ("gift", gift.parse),
        (moodle_xml.FORMAT, moodle_xml.parse),
        ("csv", csv_questions.parse),
    ]
}
NO_SKIPPING = "skipping bad questions applies only to Aiken, GIFT, Moodle XML and CSV files"


# Names that say their format; checked in order, so ".gift.txt" before any ".txt"
BY_NAME = (
    (".gift.txt", "gift"),
    (".aiken.txt", "aiken"),
    (".gift", "gift"),
    (".xml", moodle_xml.FORMAT),
    (".csv", "csv"),
)


def format_by_name(file: str) -> str | None:
    """The format a file's name says it is in, if it says one."""
    name = file.lower()
    return next((format for suffix, format in BY_NAME if name.endswith(suffix)), None)


def detect_format(text: str, file: str) -> str:
    """Name the format text is written in, from the file's name and its content, or refuse
    it; a name and content that disagree are refused, as either may be the mistake."""
    named = format_by_name(file)
    if named is not None and FORMATS[named][0](text):
        return named
    found = next((name for name, (looks_like, _) in FORMATS.items() if looks_like(text)), None)
    if named is not None and found is not None:
        raise ImportRefused(
            file,
            1,
            f"the file's name says {named} but its content is {found}: rename the file or "
            "choose the format",
        )
    if named is not None or found is not None:
        return named or str(found)
    raise ImportRefused(
        file,
        1,
        "unrecognised format: expected a Q&A page (title ending in '— Questions and Answers'), "
        "a note with a numbered outline, a catalog or errata (TOML), a Studyhall JSON export, "
        "a GIFT file (Moodle: '::title::', answers in '{...}'), an Aiken file (Moodle: "
        "lettered choices and 'ANSWER: X'), a Moodle XML file ('<quiz>') or a CSV file with "
        "a header naming the columns 'question', 'choice_a', 'choice_b' and 'right'",
    )


@dataclass(frozen=True)
class Caps:
    """How many topics, exams and question sets one document may declare."""

    topics: int
    exams: int
    sets: int

    @classmethod
    def of(cls, settings: Settings) -> "Caps":
        return cls(settings.import_max_topics, settings.import_max_exams, settings.import_max_sets)


def parse_document(
    data: bytes,
    file: str,
    format: str | None = None,
    caps: Caps | None = None,
    skip_bad: bool = False,
) -> tuple[Bundle, Report]:
    """Decode and parse one document within the caps (by default the settings'); the format
    is detected unless given. With skip_bad, the questions that cannot be read are reported
    and left out, where the format allows it (SKIPPING_BAD); elsewhere the report says so."""
    text = decode(data, file)
    if format == aiken.SKIP_BAD:
        format, skip_bad = "aiken", True
    if format is not None and format not in FORMATS:
        raise ImportRefused(
            file, 1, f"unknown format {format!r}; choose one of {', '.join(FORMATS)}"
        )
    name = format or detect_format(text, file)
    if skip_bad and name not in SKIPPING_BAD:
        try:
            bundle, report = FORMATS[name][1](text, file)
        except ImportRefused as exc:
            raise ImportRefused(file, exc.line, f"{exc.message} ({NO_SKIPPING})") from None
        report.warn(1, f"{NO_SKIPPING}: this {name} file is imported whole or not at all")
    else:
        bundle, report = (SKIPPING_BAD[name] if skip_bad else FORMATS[name][1])(text, file)
    refuse_past_caps(bundle, file, caps or Caps.of(get_settings()))
    return bundle, report


def refuse_past_caps(bundle: Bundle, file: str, caps: Caps) -> None:
    """Refuse a document declaring more topics, exams or sets than one import may, at the
    first one past the cap: a library that large loads in several documents."""
    kinds: list[tuple[str, Sequence[TopicData | BlueprintData | QuestionSetData], int, str]] = [
        ("topics", bundle.topics, caps.topics, "TOPICS"),
        ("exams", bundle.blueprints, caps.exams, "EXAMS"),
        ("question sets", bundle.question_sets, caps.sets, "SETS"),
    ]
    for noun, items, cap, setting in kinds:
        if len(items) > cap:
            raise ImportRefused(
                file,
                items[cap].line or 1,
                f"one document may declare at most {cap:,} {noun} and this one declares "
                f"{len(items):,}; split it (or raise STUDYHALL_IMPORT_MAX_{setting})",
            )


def import_document(
    session: Session,
    data: bytes,
    file: str,
    link_threshold: float,
    format: str | None = None,
    author_id: int | None = None,
    skip_bad: bool = False,
) -> Report:
    """Parse one document and load it into the session; the caller commits (all or nothing).

    The questions it changes keep a revision saved by author_id (None: the command line)."""
    bundle, report = parse_document(data, file, format, skip_bad=skip_bad)
    try:
        load_bundle(session, bundle, report, link_threshold, author_id)
    except InvalidContent as exc:
        raise ImportRefused(file, exc.line, exc.message) from None
    return report


def import_in_steps(
    db: Database,
    data: bytes,
    file: str,
    link_threshold: float,
    format: str | None = None,
    progress: LoadProgress | None = None,
    skip_bad: bool = False,
) -> Report:
    """Parse one document and load it in short transactions, one import at a time.

    Everything is checked before the first write, so a refused document saves nothing. A
    failure part-way (the process killed, the disk full) keeps the steps already committed;
    importing the document again completes it, as every step is an upsert.
    """
    bundle, report = parse_document(data, file, format, skip_bad=skip_bad)
    with exclusive_import(db):
        try:
            load_in_steps(
                _transactions(db),
                bundle,
                report,
                link_threshold,
                progress,
            )
        except InvalidContent as exc:
            raise ImportRefused(file, exc.line, exc.message) from None
    return report


def _transactions(db: Database) -> Transactions:
    """Open each step's transaction; on SQLite, let other writers in between two steps.

    Were the next step to take the lock the moment the last one let it go, it would win time
    after time until the other writers' wait ran out (the workers' saves). So a write step
    starts at least PAUSE_S after the last one ended: a writer of another process waiting in
    SQLite's busy handler looks for the lock again at least every 100 ms.
    """
    pause = PAUSE_S if make_url(db.url).get_backend_name() == "sqlite" else 0.0
    ended = [0.0]

    @contextmanager
    def transaction(write: bool) -> Iterator[Session]:
        if write and pause:
            time.sleep(max(0.0, ended[0] + pause - time.monotonic()))
        with db.session_scope(write=write) as session:
            yield session
        if write:
            ended[0] = time.monotonic()

    return transaction


def seed_files(seed_dir: Path) -> list[Path]:
    """List the seed documents in load order: content, then the catalog, then the errata.

    Errata name questions and note sections, which must exist by then.
    """
    files = sorted(p for p in seed_dir.iterdir() if p.is_file() and not p.name.startswith("."))
    return sorted(files, key=lambda p: (p.suffix == ".toml", p.stem.startswith("errata")))


def seed_digest(files: list[Path]) -> str:
    """A digest of the seed documents' names and bytes: it changes when any file does."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def import_upload(
    session: Session,
    actor: Viewer,
    data: bytes,
    file: str,
    limit: int,
    link_threshold: float,
    format: str | None = None,
    skip_bad: bool = False,
) -> Report:
    """Import a document sent by a person in the session's transaction (all or nothing), once
    no stepwise import runs; only authors and admins may. The caller commits."""
    if not actor.may("author"):
        raise PermissionDenied("Only authors can import content.")
    if len(data) > limit:
        raise ImportRefused(file, 1, f"the file is larger than the limit of {limit:,} bytes")
    import_lock_until_commit(session)
    return import_document(session, data, file, link_threshold, format, actor.id, skip_bad)
