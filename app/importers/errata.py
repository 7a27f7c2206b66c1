"""The errata format (TOML): known slips in the content, shown on it until an author resolves them.

format = "studyhall.errata/1"
[[errata]]
target = "<set>/<key>"           a question, or "<note>#<anchor>" for a note section
kind = "typo"                    wrong-answer, typo, outdated or other
text = "What is wrong, and what is right."

`studyhall seed` loads it after the content and the catalog. Each erratum is filed once:
loading the file again adds only new entries, and never reopens one an author resolved.
"""

import re
import tomllib
from typing import Any

from app.content.bundle import Bundle, ErratumData, Report
from app.content.errata import KINDS, TEXT_MAX
from app.importers.catalog import refuse_hostile_shapes
from app.importers.errors import ImportRefused
from app.importers.text import first_line_with, line_at, numbered, refuse_control_characters

FORMAT = "studyhall.errata/1"
_ENTRY = re.compile(r"^[ \t]*\[\[[ \t]*errata[ \t]*\]\]", re.MULTILINE)
_TARGET = re.compile(r"[a-z0-9-]+/[^\s/#]+|[a-z0-9-]+#[a-z0-9-]+")
_KEYS = {"target", "kind", "text"}


def looks_like(text: str) -> bool:
    """Tell whether text declares the errata format."""
    return bool(re.search(r'^\s*format\s*=\s*"studyhall\.errata/', text, re.MULTILINE))


def parse(text: str, file: str) -> tuple[Bundle, Report]:
    """Parse an errata file into the errata it lists, each with the line it starts on."""
    refuse_control_characters(text, file)
    refuse_hostile_shapes(text, file)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        line = int(match.group(1)) if match else 1
        raise ImportRefused(file, line, f"invalid TOML: {exc}") from None
    if data.get("format") != FORMAT:
        raise ImportRefused(file, first_line_with(text, "format"), f'format must be "{FORMAT}"')
    unknown = sorted(set(data) - {"format", "errata"})
    if unknown:
        raise ImportRefused(file, first_line_with(text, unknown[0]), f"unknown key {unknown[0]!r}")
    entries = data.get("errata", [])
    if not isinstance(entries, list):
        found = re.search(r"^[ \t]*errata\b", text, re.MULTILINE)
        line = line_at(text, found.start()) if found else 1
        raise ImportRefused(file, line, "errata must be [[errata]] tables")
    lines = [line for line, _ in numbered(_ENTRY, text)]
    bundle = Bundle(
        errata=[
            _erratum(entry, lines[n] if n < len(lines) else 1, file)
            for n, entry in enumerate(entries)
        ]
    )
    report = Report(file=file, format="errata")
    report.count("errata", len(bundle.errata))
    return bundle, report


def _erratum(entry: Any, line: int, file: str) -> ErratumData:
    if not isinstance(entry, dict):
        raise ImportRefused(file, line, "each [[errata]] entry must be a table")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise ImportRefused(file, line, f"unknown key {unknown[0]!r} (expected target, kind, text)")
    missing = sorted(key for key in _KEYS if not isinstance(entry.get(key), str))
    if missing:
        raise ImportRefused(file, line, f"{missing[0]} is required and must be a string")
    if not _TARGET.fullmatch(entry["target"]):
        raise ImportRefused(
            file, line, "target must be a question ('set/key') or a note section ('note#anchor')"
        )
    if entry["kind"] not in KINDS:
        raise ImportRefused(file, line, f"kind must be one of {', '.join(KINDS)}")
    text = " ".join(entry["text"].split())
    if not text or len(text) > TEXT_MAX:
        raise ImportRefused(file, line, f"text must be 1 to {TEXT_MAX} characters")
    return ErratumData(target=entry["target"], kind=entry["kind"], text=text, line=line)
