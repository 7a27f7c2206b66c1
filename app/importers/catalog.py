"""The catalog format (TOML): the topic tree, where content belongs, and explicit note links.

format = "studyhall.catalog/1"
[[topics]]                      slug, title, optional parent and description
[question_sets."<set>"]         topic
[questions."<set>/<key>"]       topic, notes = ["<note>#<anchor>", ...]
[notes."<note>"]                topic
"""

import re
import tomllib
from typing import Any

from app.content.bundle import Bundle, Placement, Report, TopicData
from app.importers.errors import ImportRefused
from app.importers.text import first_line_with, line_at, refuse_control_characters

FORMAT = "studyhall.catalog/1"
_KINDS = {"question_sets": "question_set", "questions": "question", "notes": "note"}


def looks_like(text: str) -> bool:
    """Tell whether text declares the catalog format."""
    return bool(re.search(r'^\s*format\s*=\s*"studyhall\.catalog/', text, re.MULTILINE))


def parse(text: str, file: str) -> tuple[Bundle, Report]:
    """Parse a catalog into topics and placements."""
    refuse_control_characters(text, file)
    report = Report(file=file, format="catalog")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        raise ImportRefused(
            file, int(match.group(1)) if match else 1, f"invalid TOML: {exc}"
        ) from None
    except RecursionError:
        raise ImportRefused(file, 1, "the TOML is nested too deeply to read") from None
    if data.get("format") != FORMAT:
        raise ImportRefused(file, first_line_with(text, "format"), f'format must be "{FORMAT}"')
    unknown = set(data) - {"format", "topics", *_KINDS}
    if unknown:
        raise ImportRefused(
            file, first_line_with(text, sorted(unknown)[0]), f"unknown table {sorted(unknown)[0]!r}"
        )
    bundle = Bundle(
        topics=[_topic(entry, text, file) for entry in _list(data, "topics", text, file)]
    )
    for table, kind in _KINDS.items():
        for ref, entry in _table(data, table, text, file).items():
            header = rf"^[ \t]*\[[ \t]*{table}[ \t]*\.[ \t]*([\"']?){re.escape(ref)}\1[ \t]*\]"
            line = _key_line(text, header, ref)
            bundle.placements.append(_placement(kind, ref, entry, line, file))
    report.count("topics", len(bundle.topics))
    report.count("placements", len(bundle.placements))
    return bundle, report


def _topic(entry: Any, text: str, file: str) -> TopicData:
    if not isinstance(entry, dict) or not isinstance(entry.get("slug"), str):
        raise ImportRefused(
            file, first_line_with(text, "[[topics]]"), "every [[topics]] entry needs a slug"
        )
    slug = re.escape(entry["slug"])
    line = _key_line(text, rf"^[ \t]*slug[ \t]*=[ \t]*([\"']){slug}\1", f'"{entry["slug"]}"')
    if not isinstance(entry.get("title"), str) or not entry["title"].strip():
        raise ImportRefused(file, line, f"topic {entry['slug']!r} needs a title")
    if not isinstance(entry.get("parent", ""), str):
        raise ImportRefused(file, line, f"topic {entry['slug']!r}: parent must be a topic slug")
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", entry["slug"]):
        raise ImportRefused(
            file, line, f"topic slug {entry['slug']!r} must be lower-case words joined by '-'"
        )
    return TopicData(
        slug=entry["slug"],
        title=entry["title"].strip(),
        parent=entry.get("parent"),
        description=str(entry.get("description", "")),
        line=line,
    )


def _placement(kind: str, ref: str, entry: Any, line: int, file: str) -> Placement:
    if not isinstance(entry, dict):
        raise ImportRefused(file, line, f"{ref!r} must be a table")
    notes = entry.get("notes")
    if notes is not None and (
        kind != "question"
        or not isinstance(notes, list)
        or not all(isinstance(n, str) for n in notes)
    ):
        raise ImportRefused(
            file, line, f"{ref!r}: notes must be a list of 'note#anchor' strings on a question"
        )
    topic = entry.get("topic")
    if topic is not None and not isinstance(topic, str):
        raise ImportRefused(file, line, f"{ref!r}: topic must be a topic slug")
    return Placement(kind=kind, ref=ref, topic=topic, line=line, notes=notes)


def _list(data: dict[str, Any], key: str, text: str, file: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise ImportRefused(
            file, first_line_with(text, key), f"{key} must be an array of tables ([[{key}]])"
        )
    return value


def _table(data: dict[str, Any], key: str, text: str, file: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ImportRefused(file, first_line_with(text, key), f"{key} must be a table")
    return value


def _key_line(text: str, pattern: str, needle: str) -> int:
    """Return the line where pattern defines a key; else the first line that mentions needle."""
    match = re.search(pattern, text, re.MULTILINE)
    return line_at(text, match.start()) if match else first_line_with(text, needle)
