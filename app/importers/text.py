"""Text helpers shared by the importers: decoding, line numbers and Markdown escaping."""

import re
from collections.abc import Iterator

from app.importers.errors import ImportRefused

_URL = re.compile(r"https?://[^\s<>\"']+[^\s<>\"'.,;:!?)\]]")
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>])")
_LONE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
_BLOCK_START = re.compile(r"[-+#>~]")  # list, heading, quote, break or fence openers
_NUMBERED = re.compile(r"(\d+)([.)])(?=\s|$)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ESCAPED_CONTROL = re.compile(r"(?<!\\)\\u00(?:0[0-8bcef]|1[0-9a-fA-F]|7[fF])")


def line_at(text: str, index: int) -> int:
    """Return the line number (from 1) that the character at index is on."""
    return text.count("\n", 0, index) + 1


def numbered(pattern: re.Pattern[str], text: str) -> Iterator[tuple[int, re.Match[str]]]:
    """Yield each match of pattern in text with the line it starts on, counting lines once.

    line_at() counts from the start of the text, so calling it for every entry of a file
    reads the file once an entry: find many lines with this instead.
    """
    line, position = 1, 0
    for match in pattern.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        yield line, match


def first_line_with(text: str, needle: str) -> int:
    """Return the first line that mentions needle (1 when none does)."""
    index = text.find(needle)
    return line_at(text, index) if index >= 0 else 1


def deepest_line(text: str, depth: int = 100) -> int:
    """Return the first line where brackets and braces nest deeper than depth (else 1)."""
    level = 0
    for match in re.finditer(r"[\[{\]}]", text):
        level += 1 if match.group() in "[{" else -1
        if level > depth:
            return line_at(text, match.start())
    return 1


def decode(data: bytes, file: str) -> str:
    """Decode an uploaded file as UTF-8 text with LF line ends, or refuse it."""
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise ImportRefused(file, line, "this is a binary file, not text (it contains NUL bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ImportRefused(
            file, line, f"the file is not UTF-8 text (invalid byte at offset {exc.start})"
        ) from None
    if not text.strip():
        raise ImportRefused(file, 1, "the file is empty")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    refuse_control_characters(text, file, _CONTROL)
    return text


def refuse_control_characters(text: str, file: str, pattern: re.Pattern[str] | None = None) -> None:
    """Refuse control characters (other than tab and line ends) with the line they are on.

    Without a pattern, escapes that would make one (JSON's and TOML's \\u0000) are looked for.
    """
    match = (pattern or _ESCAPED_CONTROL).search(text)
    if match:
        raise ImportRefused(
            file,
            line_at(text, match.start()),
            "a control character (such as NUL) is not allowed in content",
        )


def plain_to_markdown(text: str) -> str:
    """Escape plain text so Markdown renders it literally; bare URLs become links."""
    parts, last = [], 0
    for match in _URL.finditer(text):
        parts.append(_escape(text[last : match.start()]))
        parts.append(f"<{match.group(0)}>")
        last = match.end()
    parts.append(_escape(text[last:]))
    out = "".join(parts)
    if _BLOCK_START.match(out):
        out = "\\" + out
    elif numbered := _NUMBERED.match(out):
        # "\2." would show its backslash: digits are not escapable, the delimiter is
        out = f"{numbered.group(1)}\\{out[numbered.end(1) :]}"
    return out


def _escape(text: str) -> str:
    escaped = _ENTITY.sub(r"\\&", _MD_SPECIAL.sub(r"\\\1", text))
    return _LONE_UNDERSCORE.sub(r"\\_", escaped)
