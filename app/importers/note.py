"""The blog-note format: boilerplate around a title and an indented numbered outline.

    <author handle>
    <tagline>
    <title>
    Written in / by / <author> / , ,
      1. Top-level item          (two spaces a level)
        1. Nested item
    Tags / Leave a comment

Top-level items become Markdown sections, deeper items nested ordered lists.
"""

import re
from dataclasses import dataclass

from app.content.bundle import Bundle, NoteData, Report
from app.content.markdown import slugify
from app.importers.errors import ImportRefused
from app.importers.text import plain_to_markdown

_ITEM = re.compile(r"^(?P<indent> *)(?P<number>\d+)\.\s+(?P<text>\S.*)$")
_FOOTER = {"tags", "leave a comment"}
_FILLER = re.compile(r"^[\s,;|·•-]*$")


def looks_like(text: str) -> bool:
    """Tell whether text holds an indented numbered outline."""
    lines = text.replace("\xa0", " ").split("\n")
    return sum(bool(_ITEM.match(line)) for line in lines) >= 2


def parse(text: str, file: str) -> tuple[Bundle, Report]:
    """Parse a blog note into a bundle holding one note."""
    report = Report(file=file, format="note")
    lines = [line.replace("\xa0", " ").rstrip() for line in text.split("\n")]
    first = next((i for i, line in enumerate(lines) if _ITEM.match(line)), None)
    if first is None:
        raise ImportRefused(file, 1, "no numbered outline ('  1. ...') was found")
    title, author, title_line = _header(lines[:first], file)
    items, end = _outline(lines, first, file, report)
    _footer(lines, end, report)
    markdown = _to_markdown(items)
    sections = [item.line for item in items if item.level == 1]
    report.count("sections", len(sections))
    report.count("items", len(items))
    note = NoteData(
        slug=slugify(title),
        title=title,
        author=author,
        markdown=markdown,
        source=file,
        line=title_line,
        section_lines=sections,
    )
    return Bundle(notes=[note]), report


def _header(lines: list[str], file: str) -> tuple[str, str, int]:
    """Find title, author and the title's line among the blog boilerplate above the outline."""
    text = [(i, line.strip()) for i, line in enumerate(lines) if line.strip()]
    words = [value.casefold() for _, value in text]
    author = ""
    if "by" in words:
        after = words.index("by") + 1
        if after < len(text) and not _FILLER.match(text[after][1]):
            author = text[after][1]
    stop = words.index("written in") if "written in" in words else len(text)
    content = [
        (index, value)
        for i, (index, value) in enumerate(text[:stop])
        if words[i] not in {"by", "written in"} and not _FILLER.match(value)
    ]
    if not content:
        raise ImportRefused(file, len(lines) + 1, "no title was found above the outline")
    if not author and len(content) > 1:
        author = content[0][1]
    return content[-1][1], author, content[-1][0] + 1


@dataclass
class _Item:
    level: int
    number: str
    text: str
    line: int


def _outline(lines: list[str], first: int, file: str, report: Report) -> tuple[list[_Item], int]:
    """Read outline items until the footer; return them and the index where they end."""
    base = len(_indent(lines[first]))
    items: list[_Item] = []
    for index in range(first, len(lines)):
        line = lines[index]
        if line.strip().casefold() in _FOOTER:
            return items, index
        if not line.strip():
            continue
        match = _ITEM.match(line)
        if match is None:
            items[-1].text += " " + line.strip()
            report.warn(index + 1, "joined a line that is not a numbered item to the item above")
            continue
        level = _level(len(match.group("indent")) - base, items, index + 1, report)
        items.append(_Item(level, match.group("number"), match.group("text").strip(), index + 1))
    return items, len(lines)


def _indent(line: str) -> str:
    match = _ITEM.match(line)
    return match.group("indent") if match else ""


def _level(depth: int, items: list[_Item], line: int, report: Report) -> int:
    if depth < 0 or depth % 2:
        report.warn(
            line, "indentation is not a multiple of two spaces; rounded to the nearest level"
        )
    level = max(1, round(depth / 2) + 1)
    deepest = items[-1].level + 1 if items else 1
    if level > deepest:
        report.warn(line, "item is indented more than one level below the item above; lifted")
        level = deepest
    return level


def _footer(lines: list[str], end: int, report: Report) -> None:
    dropped = [line for line in lines[end:] if line.strip()]
    if dropped:
        report.count("footer_lines_dropped", len(dropped))


def _to_markdown(items: list[_Item]) -> str:
    """Render items as Markdown: level 1 as '##' sections, deeper levels as nested lists."""
    out: list[str] = []
    indents: dict[int, str] = {1: ""}
    for item in items:
        if item.level == 1:
            out.extend(["", f"## {plain_to_markdown(item.text.rstrip(':').strip())}", ""])
            continue
        indent = indents[item.level - 1] if item.level > 2 else ""
        marker = f"{item.number}. "
        indents[item.level] = indent + " " * len(marker)
        out.append(f"{indent}{marker}{plain_to_markdown(item.text)}")
    return "\n".join(out).strip() + "\n"
