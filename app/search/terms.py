"""What a person typed, as terms the index can search for; matches marked up as safe HTML.

Nothing typed reaches an index's query language as syntax: each word or quoted phrase
becomes a phrase to find (a trailing `*` makes a prefix), so quotes, operators, NEAR,
parentheses or stray bytes can only be searched for, never make a query fail.
"""

import re
from dataclasses import dataclass

from markupsafe import escape

from app.content.markdown import plain_text

MAX_QUERY_CHARS = 500
MAX_TERMS = 12
MAX_TERM_CHARS = 80
MIN_PREFIX = 2  # characters a prefix's word needs: "t*" would join the postings of every t-word
# Marks the index puts around matched words (private-use characters: nothing to escape).
START, STOP = "\ue000", "\ue001"
_UNWANTED = re.compile(r"[\x00-\x1f\x7f\ue000\ue001]")
_CHUNK = re.compile(r'"([^"]*)"?|([^\s"]+)')
_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})
_PREFIX = re.compile(r"(.*[^\W_])\*+")
_WORD = re.compile(r"[^\W_]")
_LAST_WORD = re.compile(r"[^\W_]+$")
# A mark runs to its stop (or to the end); marks inside it or stops outside are dropped.
_MARKED = re.compile(f"{START}([^{STOP}]*)(?:{STOP}|$)")
# Marks in pairs, none inside another: a START, its STOP, and so on.
_PAIRED = re.compile(f"[^{START}{STOP}]*(?:{START}[^{START}{STOP}]*{STOP}[^{START}{STOP}]*)*")
# PostgreSQL marks each word of `kSTRICT_TYPES` or `2:4` apart: one mark reads better.
_JOINED_MARKS = re.compile(f"{STOP}((?:[^\\s\\w{START}{STOP}]|_){{1,3}}){START}")


@dataclass(frozen=True)
class Term:
    """A phrase to find (one word or several in a row); `prefix`: its last word may go on."""

    text: str
    prefix: bool = False


def parse_query(query: str) -> tuple[Term, ...]:
    """Turn what a person typed into at most MAX_TERMS terms, all of which must match."""
    text = _UNWANTED.sub(" ", query[:MAX_QUERY_CHARS])
    terms: dict[Term, None] = {}
    for phrase, word in _CHUNK.findall(text):
        if word in _OPERATORS:
            continue
        term = _term(phrase or word.strip("()[]{}'"), bool(phrase))
        if term is not None:
            terms.setdefault(term)
    return tuple(terms)[:MAX_TERMS]


def _term(text: str, quoted: bool) -> Term | None:
    text = text[:MAX_TERM_CHARS].strip()
    prefix = None if quoted else _PREFIX.fullmatch(text)
    if prefix:
        text = prefix.group(1)
        last = _LAST_WORD.search(text)
        if last is None or len(last.group()) < MIN_PREFIX:
            prefix = None  # searched as a whole word
    if not _WORD.search(text):
        return None
    return Term(text, prefix=prefix is not None)


def marked_html(text: str, *, markdown: bool = True) -> str:
    """Escape indexed text for HTML and turn the index's marks into balanced <mark> elements.

    Markdown (with `markdown`) is shown as its plain text: the marks, in its words, stay.
    Run for every title and snippet a fresh search shows, so each step is skipped when the
    text cannot need it.
    """
    if markdown:
        text = plain_text(text)
    text = " ".join(text.split())
    if STOP in text:
        text = _JOINED_MARKS.sub(r"\1", text)
    return _marks(str(escape(text)))  # the marks need no escaping


def _marks(html: str) -> str:
    """Marks that come in pairs, as FTS5 writes them, are replaced in place; others are mended."""
    if _PAIRED.fullmatch(html):
        return html.replace(START, "<mark>").replace(STOP, "</mark>")
    return _mended_marks(html)


def _mended_marks(html: str) -> str:
    # Every START opens a match, so those left after it are nested ones: dropped with the rest.
    return _MARKED.sub(r"<mark>\1</mark>", html).replace(START, "").replace(STOP, "")
