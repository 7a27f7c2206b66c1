"""Text in Moodle's formats (plain, Moodle auto-format, HTML, Markdown) turned into Markdown.

HTML is first cleaned by the sanitiser down to a few harmless tags (scripts and styles go
with their content), then written as Markdown whose text is escaped: nothing of the HTML
is stored as HTML, and the Markdown renderer (raw HTML off, then the sanitiser) shows it.
"""

import re
from html.parser import HTMLParser

import nh3

from app.content.markdown import MEDIA_SRC
from app.importers.text import plain_to_markdown

FORMATS = ("html", "markdown", "plain", "moodle")
_KEPT_TAGS = {"p", "div", "br", "strong", "b", "em", "i", "code", "pre", "a", "ul", "ol", "li"}
_KEPT_TAGS |= {"img"}  # only one of the media store is written out (the others are dropped)
_EMPHASIS = {"strong": "**", "b": "**", "em": "*", "i": "*"}
_URL_SCHEMES = {"http", "https", "mailto"}


def to_markdown(text: str, format: str) -> str:
    """Turn text written in one of FORMATS into Markdown (line ends as "\\n")."""
    if format == "markdown":
        return text.strip()
    if format == "plain":
        paragraphs = (" ".join(part.split()) for part in text.split("\n"))
        return "\n\n".join(plain_to_markdown(part) for part in paragraphs if part)
    if format == "moodle":  # HTML where a line end is a line break
        text = "<br>".join(text.split("\n"))
    return html_to_markdown(text)


def html_to_markdown(html: str) -> str:
    """Sanitise HTML to a few tags, then write it as Markdown with its text escaped."""
    cleaned = nh3.clean(
        html,
        tags=_KEPT_TAGS,
        attributes={"a": {"href"}, "img": {"src", "alt"}},
        url_schemes=_URL_SCHEMES,
        link_rel=None,
    )
    writer = _Writer()
    writer.feed(cleaned)
    writer.close()
    return writer.markdown()


class _Writer(HTMLParser):
    """Write the sanitised tags as Markdown: paragraphs, breaks, emphasis, code, links, lists."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.raw: list[str] | None = None  # the text of <code> or <pre>, kept as it is
        self.links: list[str | None] = []
        self.lists: list[str] = []
        self.opened = -1  # where the text of the emphasis opened last begins

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("p", "div"):
            self.out.append("\n\n")
        elif tag == "br":
            self.out.append("\\\n" if self.raw is None else "\n")
        elif tag in _EMPHASIS and self.raw is None:
            self.out.append(_EMPHASIS[tag])
            self.opened = len(self.out)
        elif tag in ("code", "pre") and self.raw is None:
            self.raw = []
        elif tag == "a":
            href = dict(attrs).get("href") or ""
            usable = href and not any(c in href for c in "<>\n ")
            self.links.append(href if usable else None)
            if usable:
                self.out.append("[")
        elif tag == "img" and self.raw is None:
            found = dict(attrs)
            src = found.get("src") or ""
            if MEDIA_SRC.fullmatch(src):
                self.out.append(f"![{plain_to_markdown(found.get('alt') or '')}]({src})")
        elif tag in ("ul", "ol"):
            self.lists.append(tag)
            self.out.append("\n\n")
        elif tag == "li":
            marker = "1." if self.lists and self.lists[-1] == "ol" else "-"
            self.out.append("\n" + "   " * max(len(self.lists) - 1, 0) + marker + " ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("p", "div"):
            self.out.append("\n\n")
        elif tag in _EMPHASIS and self.raw is None:
            self._close_emphasis(_EMPHASIS[tag])
        elif tag in ("code", "pre") and self.raw is not None:
            self.out.append(_code("".join(self.raw), block=tag == "pre"))
            self.raw = None
        elif tag == "a" and self.links:
            href = self.links.pop()
            if href:
                self.out.append(f"](<{href}>)")
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            self.out.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self.raw is not None:
            self.raw.append(data)
            return
        words = " ".join(data.split())
        if words:
            space = " " if data[:1].isspace() else ""
            if space and self.opened == len(self.out):  # "<b> word": the space goes first
                self.out.insert(len(self.out) - 1, space)
                space = ""
            end = " " if data[-1:].isspace() else ""
            self.out.append(space + plain_to_markdown(words) + end)
        elif data:
            self.out.append(" ")

    def _close_emphasis(self, marker: str) -> None:
        """Close emphasis against its last word ("word **" never renders), or drop it empty."""
        if self.opened == len(self.out) and self.out[-1] == marker:
            self.out.pop()
            return
        last = self.out[-1] if self.out else ""
        if last.endswith(" "):
            self.out[-1] = last.rstrip(" ")
            self.out.append(marker + " ")
        else:
            self.out.append(marker)

    def markdown(self) -> str:
        if self.raw is not None:  # an unclosed <code>
            self.out.append(_code("".join(self.raw), block=False))
        lines = "".join(self.out).split("\n")
        text = "\n".join(line.strip() if not line.startswith(" ") else line for line in lines)
        return re.sub(r"\n{3,}", "\n\n", text).strip()


def _code(code: str, *, block: bool) -> str:
    """Write code as a span or a fenced block longer than any run of backticks in it."""
    fence = "`" * (max(_runs(code), 2 if block else 0) + 1)
    if block:
        return f"\n\n{fence}\n{code.strip(chr(10))}\n{fence}\n\n"
    code = " ".join(code.split("\n"))
    return f"{fence} {code} {fence}" if code.strip() else ""


def _runs(code: str) -> int:
    """The longest run of backticks in code."""
    longest = run = 0
    for char in code:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest
