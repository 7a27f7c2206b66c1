"""The catalog format (TOML): the topic tree, where content belongs, and explicit note links.

format = "studyhall.catalog/1"
[[topics]]                      slug, title, optional parent and description
[question_sets."<set>"]         topic
[questions."<set>/<key>"]       topic, notes = ["<note>#<anchor>", ...],
                                references = [{title = "...", url = "https://...", version = "..."}],
                                versions = ["TensorRT 10.x"], difficulty, level,
                                accepted = ["<check-content finding kind>", ...]
[notes."<note>"]                topic
[exams."<exam>"]                title, questions, time_limit_minutes (none: untimed), pass_mark,
                                mode ("exam" or "practice"), sets = [...], topics = {slug = weight},
                                description, shuffle_questions, shuffle_choices, partial_credit,
                                reasoning (the percent, at least, of questions that apply or analyse)

The standard library's TOML parser takes time quadratic in the length of a dotted key
(`a.a.a...`, or `1. 1. 1. ...`), so the size of the file, the length of its lines and the
depth of its keys are bounded before it runs: every refusal comes in well under a second.
"""

import re
import tomllib
from typing import Any

from app.content.bundle import (
    BlueprintData,
    Bundle,
    Placement,
    ReferenceData,
    Report,
    Scope,
    TopicData,
)
from app.importers.errors import ImportRefused
from app.importers.text import (
    deepest_line,
    first_line_with,
    line_at,
    numbered,
    refuse_control_characters,
)

FORMAT = "studyhall.catalog/1"
MAX_CHARS = 1_000_000
MAX_LINE = 10_000
MAX_KEY_PARTS = 16  # the format needs two (`questions."set/1"`)
_KINDS = {"question_sets": "question_set", "questions": "question", "notes": "note"}
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')
_DOTTED = re.compile(rf"(?<![A-Za-z0-9_-])(?:[A-Za-z0-9_-]++[ \t]*+\.[ \t]*+){{{MAX_KEY_PARTS},}}")
_KEY = r"""(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'|([A-Za-z0-9_-]+))"""
_PATH = rf"{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*"
# A table header (`[questions."set/1"]`, `[[topics]]`) or a key being set (`"set/1" = {...}`,
# `questions."set/1".topic = ...`), at the start of a line.
_KEY_LINE = re.compile(
    rf"^[ \t]*(?:\[\[?[ \t]*(?P<table>{_PATH})[ \t]*\]|(?P<key>{_PATH})[ \t]*=)", re.MULTILINE
)
_KEY_PART = re.compile(_KEY)
_SLUG = re.compile(
    r"""^[ \t]*slug[ \t]*=[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)')""", re.MULTILINE
)


def looks_like(text: str) -> bool:
    """Tell whether text declares the catalog format."""
    return bool(re.search(r'^\s*format\s*=\s*"studyhall\.catalog/', text, re.MULTILINE))


def parse(text: str, file: str) -> tuple[Bundle, Report]:
    """Parse a catalog into topics and placements."""
    refuse_control_characters(text, file)
    refuse_hostile_shapes(text, file)
    report = Report(file=file, format="catalog")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        raise ImportRefused(
            file, int(match.group(1)) if match else 1, f"invalid TOML: {exc}"
        ) from None
    except RecursionError:
        line = deepest_line(text)
        raise ImportRefused(file, line, "the TOML is nested too deeply to read") from None
    if data.get("format") != FORMAT:
        raise ImportRefused(file, first_line_with(text, "format"), f'format must be "{FORMAT}"')
    unknown = set(data) - {"format", "topics", "exams", *_KINDS}
    if unknown:
        raise ImportRefused(
            file, first_line_with(text, sorted(unknown)[0]), f"unknown table {sorted(unknown)[0]!r}"
        )
    lines = _Lines(text)
    bundle = Bundle(
        topics=[_topic(entry, lines, file) for entry in _list(data, "topics", text, file)]
    )
    for table, kind in _KINDS.items():
        for ref, entry in _table(data, table, text, file).items():
            line = lines.header(table, ref)
            bundle.placements.append(_placement(kind, ref, entry, line, file))
    for slug, entry in _table(data, "exams", text, file).items():
        bundle.blueprints.append(_blueprint(slug, entry, lines.header("exams", slug), file))
    report.count("topics", len(bundle.topics))
    report.count("placements", len(bundle.placements))
    if bundle.blueprints:
        report.count("exams", len(bundle.blueprints))
    return bundle, report


def refuse_hostile_shapes(text: str, file: str) -> None:
    """Refuse a catalog too large, with a line too long or a key too deep to parse quickly."""
    if len(text) > MAX_CHARS:
        raise ImportRefused(
            file,
            line_at(text, MAX_CHARS),
            f"a catalog may hold at most {MAX_CHARS:,} characters; this one goes on past here",
        )
    for number, line in enumerate(text.split("\n"), start=1):
        if len(line) > MAX_LINE:
            raise ImportRefused(
                file, number, f"the line is {len(line):,} characters long; at most {MAX_LINE:,}"
            )
        if "." in line and _DOTTED.search(_STRING.sub("s", line).partition("#")[0]):
            raise ImportRefused(
                file, number, f"a key may have at most {MAX_KEY_PARTS - 1} dotted parts"
            )


class _Lines:
    """Where each table and topic slug is defined, found in one pass over the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.keys: dict[tuple[str, ...], int] = {}  # (table,) and (table, name): first line
        self.slugs: dict[str, int] = {}
        table: tuple[str, ...] = ()
        for line, match in numbered(_KEY_LINE, text):
            if match.group("table") is not None:
                table = path = _path(match.group("table"))
            else:
                path = table + _path(match.group("key"))
            self.keys.setdefault(path[:1], line)
            self.keys.setdefault(path[:2], line)
        for line, match in numbered(_SLUG, text):
            self.slugs.setdefault(_unquote(match.group(1, 2)), line)

    def header(self, table: str, ref: str) -> int:
        return self.keys.get((table, ref)) or self.keys.get((table,), 1)

    def slug(self, slug: str) -> int:
        return self.slugs.get(slug) or self.keys.get(("topics",), 1)


def _path(keys: str) -> tuple[str, ...]:
    """The names of a dotted key: `questions."set/1"` is ("questions", "set/1")."""
    return tuple(_unquote(part.groups()) for part in _KEY_PART.finditer(keys))


def _unquote(groups: tuple[str | None, ...]) -> str:
    basic, *others = groups
    if basic is not None:
        return basic if "\\" not in basic else _decode_basic(basic)
    return next(value for value in others if value is not None)


def _decode_basic(value: str) -> str:
    try:
        return str(tomllib.loads(f'v = "{value}"')["v"])
    except tomllib.TOMLDecodeError:
        return value


def _topic(entry: Any, lines: _Lines, file: str) -> TopicData:
    if not isinstance(entry, dict) or not isinstance(entry.get("slug"), str):
        raise ImportRefused(
            file, first_line_with(lines.text, "[[topics]]"), "every [[topics]] entry needs a slug"
        )
    line = lines.slug(entry["slug"])
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
    references = entry.get("references")
    if references is not None:
        references = _references(kind, ref, references, line, file)
    return Placement(
        kind=kind,
        ref=ref,
        topic=topic,
        line=line,
        notes=notes,
        references=references,
        scope=_scope(kind, ref, entry, line, file),
    )


def _scope(kind: str, ref: str, entry: dict[str, Any], line: int, file: str) -> Scope | None:
    """Read a question's versions, difficulty and level; the content checks judge the values."""
    if not entry.keys() & {"versions", "difficulty", "level", "accepted"}:
        return None
    versions, accepted = entry.get("versions"), entry.get("accepted")
    difficulty, level = entry.get("difficulty"), entry.get("level")
    if (
        kind != "question"
        or not all(isinstance(v, list | None) for v in (versions, accepted))
        or not all(isinstance(v, str) for v in (*(versions or ()), *(accepted or ())))
        or not all(isinstance(v, str | None) for v in (difficulty, level))
    ):
        raise ImportRefused(
            file,
            line,
            f"{ref!r}: versions and accepted must be lists of strings, difficulty and level "
            "strings, on a question",
        )
    return Scope(tuple(versions or ()), difficulty, level, tuple(accepted or ()))


_REFERENCE_KEYS = {"title", "url", "version"}


def _references(kind: str, ref: str, value: Any, line: int, file: str) -> list[ReferenceData]:
    """Read a question's references; the content checks then judge their addresses."""
    shape = (
        f"{ref!r}: references must be a list of tables with a url, and a title and a version "
        "if known, on a question"
    )
    if kind != "question" or not isinstance(value, list):
        raise ImportRefused(file, line, shape)
    references = []
    for item in value:
        if (
            not isinstance(item, dict)
            or not set(item) <= _REFERENCE_KEYS
            or not isinstance(item.get("url"), str)
            or not all(isinstance(v, str) for v in item.values())
        ):
            raise ImportRefused(file, line, shape)
        references.append(ReferenceData(item["url"], item.get("title"), item.get("version")))
    return references


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
    "reasoning": int,
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
        reasoning=entry.get("reasoning", 0),
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
