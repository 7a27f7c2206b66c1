"""bench/RESULTS.md is written by more than one benchmark: each keeps the others' sections.

bench/run.py writes the head of the file; every other benchmark writes a section between
`<!-- section: NAME -->` and `<!-- /section: NAME -->`, which bench/run.py carries over.
"""

import re
from pathlib import Path

_SECTION = re.compile(r"<!-- section: ([\w-]+) -->\n.*?<!-- /section: \1 -->\n", re.DOTALL)


def sections(text: str) -> list[str]:
    """Return the marked sections in text, each with its markers."""
    return [match.group(0) for match in _SECTION.finditer(text)]


def write_head(path: Path, head: str) -> None:
    """Write head as the file's beginning, keeping the marked sections already there."""
    kept = sections(path.read_text()) if path.exists() else []
    path.write_text("\n".join([head, *kept]))


def replace_section(path: Path, name: str, body: str) -> None:
    """Put body into the section called name (replacing it, or adding it at the end)."""
    block = f"<!-- section: {name} -->\n{body}<!-- /section: {name} -->\n"
    text = path.read_text() if path.exists() else ""
    pattern = re.compile(
        rf"<!-- section: {re.escape(name)} -->\n.*?<!-- /section: {re.escape(name)} -->\n",
        re.DOTALL,
    )
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = f"{text.rstrip()}\n\n{block}" if text else block
    path.write_text(text)
