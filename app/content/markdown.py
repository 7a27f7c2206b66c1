"""Markdown rendering (never trusting HTML in content) and splitting notes into sections.

Notes are rendered whole, so footnotes and link references reach across sections, then cut
at the section headings `split_sections` finds: a section heading's anchor is the one stored
with the section, and every other heading gets a stable anchor from its text. Fenced code is
highlighted by Pygments on the server (static/highlight.css colours it).
"""

import html
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.footnote import footnote_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

_HEADING = re.compile(r"^(#{1,2})\s+(.+?)(?:\s+#+)?\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_NAMED_ANCHOR = re.compile(r"\s+\{#([a-z0-9]+(?:-[a-z0-9]+)*)\}$")
_ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}
# The only images shown: those in Studyhall's own media store, by digest and file name
MEDIA_SRC = re.compile(r"/media/[0-9a-f]{64}/[^/\s?#<>()\\]+")
HIGHLIGHT_LIMIT = 20_000  # characters of code worth colouring; longer blocks stay plain
_FORMATTER = HtmlFormatter(nowrap=True)
_TOKEN_CLASSES = frozenset(name for name in STANDARD_TYPES.values() if name)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# What the sanitiser keeps beyond its defaults: heading and footnote anchors, and the classes
# of highlighted code and footnotes (no other class, no style, no script).
_ATTRIBUTES = {
    **nh3.ALLOWED_ATTRIBUTES,
    **{tag: {"id"} for tag in _HEADINGS},
    "a": nh3.ALLOWED_ATTRIBUTES["a"] | {"id"},
    "li": {"id"},
}
_CLASSES = {
    "span": set(_TOKEN_CLASSES),
    "pre": {"highlight"},
    "sup": {"footnote-ref"},
    "a": {"footnote-backref"},
    "li": {"footnote-item"},
    "ol": {"footnotes-list"},
    "hr": {"footnotes-sep"},
}


def highlight_code(code: str, language: str, _attrs: str) -> str:
    """Colour fenced code whose language Pygments knows; "" leaves it to the plain renderer."""
    if not language or len(code) > HIGHLIGHT_LIMIT:
        return ""
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:
        return ""
    return f'<pre class="highlight"><code>{highlight(code, lexer, _FORMATTER)}</code></pre>'


def _section_anchors(state: StateCore) -> None:
    """Give the headings `split_sections` cuts at the anchors it gave them (found by line).

    The anchors plugin, running next, keeps these and names every other heading.
    """
    anchors: dict[int, str] = state.env.get("section_anchors", {})
    for token in state.tokens:
        if token.type == "heading_open" and token.level == 0 and token.map:
            anchor = anchors.get(token.map[0])
            if anchor is not None:
                token.attrSet("id", anchor)


def _parser(*, notes: bool) -> MarkdownIt:
    # Raw HTML is off in the parser; nh3 then guards against anything the renderer lets through.
    md = MarkdownIt(
        "commonmark", {"html": False, "typographer": False, "highlight": highlight_code}
    ).enable("table")
    if notes:  # anchors and footnotes only in notes: in a question they could clash with the page
        md.use(footnote_plugin)
        md.core.ruler.push("section_anchors", _section_anchors)
        md.use(anchors_plugin, min_level=1, max_level=6, slug_func=slugify)
    md.add_render_rule("image", _image)
    return md


def _image(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Show an image of the media store; any other becomes a link to it (the CSP allows only
    our own images, and an image elsewhere on this site could be any page)."""
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    if MEDIA_SRC.fullmatch(src.strip()):
        return renderer.image(tokens, idx, options, env)
    label = renderer.renderInlineAsText(token.children or [], options, env) or src
    return f'<a href="{escapeHtml(src)}">{escapeHtml(label)}</a>'


def slugify(text: str) -> str:
    """Turn a title into a URL slug: lower-case ASCII words joined by hyphens."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-") or "untitled"


def unique_slug(base: str, taken: set[str]) -> str:
    """Return base, or base-2, base-3 ... whichever is not taken yet, and take it."""
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    return slug


_md = _parser(notes=False)
_note_md = _parser(notes=True)
# Escaped characters and entities stay tokens of their own: text, never a mark.
_text_md = MarkdownIt("commonmark", {"html": False}).enable("table").disable("text_join")


def _media_only(tag: str, attribute: str, value: str) -> str | None:
    """Keep an image's source only when it is in the media store."""
    if tag == "img" and attribute == "src" and not MEDIA_SRC.fullmatch(value):
        return None
    return value


_cleaner = nh3.Cleaner(
    attributes=_ATTRIBUTES,
    allowed_classes=_CLASSES,
    url_schemes=_ALLOWED_URL_SCHEMES,
    link_rel="noopener noreferrer nofollow",
    # A code block scrolls sideways on a narrow screen; a tab stop lets keyboards scroll it too.
    set_tag_attribute_values={"pre": {"tabindex": "0"}},
    attribute_filter=_media_only,
)


def clean(rendered: str) -> str:
    """Sanitise rendered HTML: only known tags, attributes, classes and URL schemes."""
    return _cleaner.clean(rendered)


# A line Markdown gives no meaning to: it starts with a letter (so it opens no list, heading,
# quote or code block), holds no character with a meaning in Markdown or HTML, and does not
# end in a space (two would make a line break). Text made only of such lines and empty ones
# renders as paragraphs of itself, so it skips the parser and the sanitiser: most choices
# and many stems are such text. Other characters than these take the parser's path, and so
# does "_" (which `\w` holds), looked for first.
_PLAIN_LINE = re.compile(r"[^\W\d_][\w ,.;:?!'()/%+=@^$-]*")


def _plain_paragraphs(markdown: str) -> str | None:
    """Render text that is only paragraphs of plain lines, or return None for anything else."""
    if "_" in markdown:
        return None
    paragraphs: list[str] = []
    lines: list[str] = []
    for line in markdown.split("\n"):
        if not line:
            if lines:
                paragraphs.append("<p>" + "\n".join(lines) + "</p>\n")
                lines = []
        elif _PLAIN_LINE.fullmatch(line) and line[-1] != " ":
            lines.append(line)
        else:
            return None
    if lines:
        paragraphs.append("<p>" + "\n".join(lines) + "</p>\n")
    return "".join(paragraphs)


@lru_cache(maxsize=4096)
def render(markdown: str) -> str:
    """Render Markdown to safe HTML."""
    plain = _plain_paragraphs(markdown)
    return plain if plain is not None else clean(_md.render(markdown))


def render_inline(markdown: str) -> str:
    """Render one line of Markdown without the surrounding paragraph."""
    html = render(markdown).strip()
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        return html[3:-4]
    return html


_TAG = re.compile(r"<[^>]*>")


@lru_cache(maxsize=4096)  # one per note section pages link to: a large library has thousands
def excerpt(markdown: str, limit: int = 160) -> str:
    """Return the start of some Markdown as plain text (to be escaped), cut after a word."""
    text = html.unescape(" ".join(_TAG.sub(" ", render(markdown)).split()))
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:.") + "…"


# Characters and line starts with a meaning in Markdown: text holding none is plain already.
_MARKUP = re.compile(r"[`*_\[\]|#<>!&\\~]|^ *(?:[-+=>]|\d+[.)]| {4})", re.MULTILINE)
# What is left of a table whose rows were cut from their header (as in a search's snippet),
# which no parser takes for a table: a pipe standing apart (or after the cut's …), and the
# header's rule.
_CELL_PIPE = re.compile(r"(?:^|(?<=[\s…]))\|(?=\s|$)")
_TABLE_RULE = re.compile(r"[\s|:-]*\|[\s|:-]*-[\s|:-]*")
# A code span's backticks, and stars of emphasis at one edge of a word, that found no pair;
# and a backtick ending the first word after a cut (`…enqueue` runs`), which would pair
# with the next one.
_CUT_CODE = re.compile(r"((?:^|…)\s*[^\s`…]+)`")
# Fence lines, with their info (a closing one has none).
_FENCE_LINE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})(.*)$", re.MULTILINE)
_UNPAIRED = re.compile(r"`+|(?<![\s*])\*+(?=\s|$)|(?:^|(?<=\s))\*+(?![\s*])")


def plain_text(markdown: str) -> str:
    """Return the text of some Markdown without its marks (to be escaped), a line a block."""
    if not _MARKUP.search(markdown):
        return markdown
    lines: list[str] = []
    for token in _text_md.parse(_uncut(markdown)):
        if token.type == "inline":
            lines.append("".join(_inline_text(token.children or [])))
        elif token.type in ("fence", "code_block"):
            lines.append(token.content.rstrip("\n"))
    return "\n".join(lines)


def _uncut(markdown: str) -> str:
    """Drop the end of a fence or code span whose start a snippet cut off: it would open one."""
    fences = list(_FENCE_LINE.finditer(markdown))
    if len(fences) % 2 and not fences[0].group(1).strip():
        markdown = markdown[: fences[0].start()] + markdown[fences[0].end() :]
    return _CUT_CODE.sub(r"\1", markdown)


def _inline_text(tokens: Sequence[Token]) -> Iterator[str]:
    for token in tokens:
        if token.type == "text":
            yield _loose_text(token.content)
        elif token.type in ("text_special", "code_inline"):  # an escaped mark is text
            yield token.content
        elif token.type in ("softbreak", "hardbreak"):
            yield "\n"
        elif token.children:  # an image: its description
            yield from _inline_text(token.children)


def _loose_text(text: str) -> str:
    """Text without the marks left over where a snippet cut a table, code or emphasis."""
    if _TABLE_RULE.fullmatch(text):
        return ""
    return _UNPAIRED.sub("", _CELL_PIPE.sub("", text))


def heading_text(markdown: str) -> str:
    """Return a heading's text with Markdown escapes removed."""
    return re.sub(r"\\(.)", r"\1", markdown)


@dataclass
class Section:
    anchor: str
    heading: str
    level: int
    body: str
    line: int = 0  # the heading's line in the note, from 0


@dataclass
class SplitNote:
    intro: str
    sections: list[Section] = field(default_factory=list)


def split_sections(markdown: str) -> SplitNote:
    """Split a note at its level-1 and level-2 headings, giving each a stable anchor.

    A heading may name its anchor (`## Heading {#anchor}`), as the note editor writes one
    whose heading was renamed: named anchors are taken first, the others come from the text.
    """
    parts: list[tuple[Section | None, list[str]]] = [(None, [])]
    named: list[str | None] = []
    in_fence = False
    for number, line in enumerate(markdown.split("\n")):
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            text, anchor = _anchor_of(match.group(2))
            named.append(anchor)
            parts.append((Section("", heading_text(text), len(match.group(1)), "", number), []))
        else:
            parts[-1][1].append(line)
    taken: set[str] = set()
    given = [None if a is None else unique_slug(a, taken) for a in named]
    result = SplitNote(intro="\n".join(parts[0][1]).strip())
    for (section, lines), anchor in zip(parts[1:], given, strict=True):
        assert section is not None
        section.anchor = anchor or unique_slug(slugify(section.heading), taken)
        section.body = "\n".join(lines).strip()
        result.sections.append(section)
    return result


def _anchor_of(heading: str) -> tuple[str, str | None]:
    """Split a heading's Markdown from the anchor it names (None when it names none)."""
    match = _NAMED_ANCHOR.search(heading)
    if match is None:
        return heading, None
    return heading[: match.start()], match.group(1)


@dataclass(frozen=True)
class RenderedNote:
    """A note as safe HTML: its introduction, each section's body (by anchor), its footnotes."""

    intro: str
    sections: dict[str, str]
    footnotes: str


@lru_cache(maxsize=256)
def render_note(markdown: str) -> RenderedNote:
    """Render a whole note, then cut it at its section headings (which the page shows itself).

    One parse lets footnotes and link references work across sections and keeps every
    heading anchor unique in the note.
    """
    split = split_sections(markdown)
    env: EnvType = {"section_anchors": {s.line: s.anchor for s in split.sections}}
    tokens = _note_md.parse(markdown, env)
    starts = {s.line: s.anchor for s in split.sections}
    parts: dict[str, list[Token]] = {"": []}
    footnotes: list[Token] = []
    current, skip = parts[""], 0
    for token in tokens:
        if skip:
            skip -= 1
            continue
        if token.type == "footnote_block_open":
            current = footnotes
        elif token.level == 0 and token.map and token.map[0] in starts:
            current = parts.setdefault(starts[token.map[0]], [])
            if token.type == "heading_open":
                skip = 2  # the heading's text and its end: the page shows the heading
                continue
        current.append(token)
    html_of = {
        anchor: clean(_note_md.renderer.render(part, _note_md.options, env))
        for anchor, part in parts.items()
    }
    intro = html_of.pop("")
    sections = {s.anchor: html_of.get(s.anchor, "") for s in split.sections}
    rendered_footnotes = _note_md.renderer.render(footnotes, _note_md.options, env)
    return RenderedNote(intro, sections, clean(rendered_footnotes) if footnotes else "")
