"""The catalog format (TOML): the topic tree, where content belongs, and explicit note links.

format = "studyhall.catalog/1"
[[topics]]                      slug, title, optional parent and description
[question_sets."<set>"]         topic
[questions."<set>/<key>"]       topic, notes = ["<note>#<anchor>", ...]
[notes."<note>"]                topic
[exams."<exam>"]                title, questions, time_limit_minutes (none: untimed), pass_mark,
                                mode ("exam" or "practice"), sets = [...], topics = {slug = weight},
                                description, shuffle_questions, shuffle_choices, partial_credit
"""

import re
import tomllib
from typing import Any

from app.content.bundle import BlueprintData, Bundle, Placement, Report, TopicData
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
    unknown = set(data) - {"format", "topics", "exams", *_KINDS}
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
    for slug, entry in _table(data, "exams", text, file).items():
        header = rf"^[ \t]*\[[ \t]*exams[ \t]*\.[ \t]*([\"']?){re.escape(slug)}\1[ \t]*\]"
        bundle.blueprints.append(_blueprint(slug, entry, _key_line(text, header, slug), file))
    report.count("topics", len(bundle.topics))
    report.count("placements", len(bundle.placements))
    if bundle.blueprints:
        report.count("exams", len(bundle.blueprints))
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


_EXAM_KEYS = {
    "title": str,
    "description": str,
    "questions": int,
    "time_limit_minutes": int,
    "pass_mark": int,
    "mode": str,
    "sets": list,
    "topics": dict,
    "shuffle_questions": bool,
    "shuffle_choices": bool,
    "partial_credit": bool,
}


def _blueprint(slug: str, entry: Any, line: int, file: str) -> BlueprintData:
    """Read one [exams."<slug>"] table; the content service checks what it refers to."""
    if not isinstance(entry, dict):
        raise ImportRefused(file, line, f"exam {slug!r} must be a table")
    for key, value in entry.items():
        kind = _EXAM_KEYS.get(key)
        if kind is None:
            raise ImportRefused(file, line, f"exam {slug!r}: unknown key {key!r}")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ImportRefused(file, line, f"exam {slug!r}: {key} must be a {kind.__name__}")
    if "title" not in entry or "questions" not in entry:
        raise ImportRefused(file, line, f"exam {slug!r} needs a title and a number of questions")
    sets, topics = entry.get("sets", []), entry.get("topics", {})
    if not all(isinstance(s, str) for s in sets) or not all(
        isinstance(w, int | float) and not isinstance(w, bool) for w in topics.values()
    ):
        raise ImportRefused(
            file, line, f"exam {slug!r}: sets are set slugs, topics map slugs to weights"
        )
    minutes = entry.get("time_limit_minutes")
    return BlueprintData(
        slug=slug,
        title=entry["title"].strip(),
        description=entry.get("description", ""),
        question_count=entry["questions"],
        time_limit_s=minutes * 60 if minutes is not None else None,
        pass_mark=entry.get("pass_mark", 70),
        mode=entry.get("mode", "exam"),
        shuffle_questions=entry.get("shuffle_questions", True),
        shuffle_choices=entry.get("shuffle_choices", True),
        partial_credit=entry.get("partial_credit", False),
        sets=list(sets),
        topics={key: float(weight) for key, weight in topics.items()},
        line=line,
    )


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
