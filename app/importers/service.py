"""Detect a document's format and parse it into a content bundle."""

from collections.abc import Callable
from pathlib import Path

from sqlalchemy.orm import Session

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content.bundle import Bundle, Report
from app.content.errors import InvalidContent
from app.content.service import load_bundle
from app.importers import catalog, export_json, note, qa
from app.importers.errors import ImportRefused
from app.importers.text import decode

Parser = Callable[[str, str], tuple[Bundle, Report]]
FORMATS: dict[str, tuple[Callable[[str], bool], Parser]] = {
    "json": (export_json.looks_like, export_json.parse),
    "catalog": (catalog.looks_like, catalog.parse),
    "qa": (qa.looks_like, qa.parse),
    "note": (note.looks_like, note.parse),
}


def detect_format(text: str, file: str) -> str:
    """Name the format text is written in, or refuse it."""
    for name, (looks_like, _) in FORMATS.items():
        if looks_like(text):
            return name
    raise ImportRefused(
        file,
        1,
        "unrecognised format: expected a Q&A page (title ending in '— Questions and Answers'), "
        "a note with a numbered outline, a catalog (TOML) or a Studyhall JSON export",
    )


def parse_document(data: bytes, file: str, format: str | None = None) -> tuple[Bundle, Report]:
    """Decode and parse one document; the format is detected unless given."""
    text = decode(data, file)
    if format is not None and format not in FORMATS:
        raise ImportRefused(
            file, 1, f"unknown format {format!r}; choose one of {', '.join(FORMATS)}"
        )
    name = format or detect_format(text, file)
    return FORMATS[name][1](text, file)


def import_document(
    session: Session, data: bytes, file: str, link_threshold: float, format: str | None = None
) -> Report:
    """Parse one document and load it into the session; the caller commits (all or nothing)."""
    bundle, report = parse_document(data, file, format)
    try:
        load_bundle(session, bundle, report, link_threshold)
    except InvalidContent as exc:
        raise ImportRefused(file, exc.line, exc.message) from None
    return report


def seed_files(seed_dir: Path) -> list[Path]:
    """List the seed documents in load order: content first, the catalog last."""
    files = sorted(p for p in seed_dir.iterdir() if p.is_file() and not p.name.startswith("."))
    return sorted(files, key=lambda p: p.suffix == ".toml")


def import_upload(
    session: Session,
    actor: Viewer,
    data: bytes,
    file: str,
    limit: int,
    link_threshold: float,
    format: str | None = None,
) -> Report:
    """Import a document sent by a person; only authors and admins may."""
    if not actor.may("author"):
        raise PermissionDenied("Only authors can import content.")
    if len(data) > limit:
        raise ImportRefused(file, 1, f"the file is larger than the limit of {limit:,} bytes")
    return import_document(session, data, file, link_threshold, format)
