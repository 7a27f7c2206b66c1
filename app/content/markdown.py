"""Markdown rendering (never trusting HTML in content) and splitting notes into sections."""

import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

_HEADING = re.compile(r"^(#{1,2})\s+(.+?)(?:\s+#+)?\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
# Raw HTML is off in the parser; nh3 then guards against anything the renderer lets through.
_md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
_ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}
_EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|//|\\)", re.IGNORECASE)


def _image(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Render an image from another site as a link to it: the CSP allows only our own images."""
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    if not _EXTERNAL.match(src.strip()):
        return renderer.image(tokens, idx, options, env)
    label = renderer.renderInlineAsText(token.children or [], options, env) or src
    return f'<a href="{escapeHtml(src)}">{escapeHtml(label)}</a>'


_md.add_render_rule("image", _image)


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


@lru_cache(maxsize=4096)
def render(markdown: str) -> str:
    """Render Markdown to safe HTML."""
    html = _md.render(markdown)
    return nh3.clean(
        html,
        url_schemes=_ALLOWED_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )


def render_inline(markdown: str) -> str:
    """Render one line of Markdown without the surrounding paragraph."""
    html = render(markdown).strip()
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        return html[3:-4]
    return html


_TAG = re.compile(r"<[^>]*>")


def excerpt(markdown: str, limit: int = 160) -> str:
    """Return the start of some Markdown as plain text (to be escaped), cut after a word."""
    text = html.unescape(" ".join(_TAG.sub(" ", render(markdown)).split()))
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:.") + "…"


def heading_text(markdown: str) -> str:
    """Return a heading's text with Markdown escapes removed."""
    return re.sub(r"\\(.)", r"\1", markdown)


@dataclass
class Section:
    anchor: str
    heading: str
    level: int
    body: str


@dataclass
class SplitNote:
    intro: str
    sections: list[Section] = field(default_factory=list)


def split_sections(markdown: str) -> SplitNote:
    """Split a note at its level-1 and level-2 headings, giving each a stable anchor."""
    parts: list[tuple[Section | None, list[str]]] = [(None, [])]
    taken: set[str] = set()
    in_fence = False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            heading = heading_text(match.group(2))
            anchor = unique_slug(slugify(heading), taken)
            parts.append((Section(anchor, heading, len(match.group(1)), ""), []))
        else:
            parts[-1][1].append(line)
    result = SplitNote(intro="\n".join(parts[0][1]).strip())
    for section, lines in parts[1:]:
        assert section is not None
        section.body = "\n".join(lines).strip()
        result.sections.append(section)
    return result
