"""Property-based fuzzing of every importer with mutated seed documents and a mutated export.

Whatever the bytes, an import either succeeds or is refused naming the file and a line
within it; a refused import leaves the database exactly as it was. STUDYHALL_FUZZ=deep runs
many more (and random) examples than `make test` does.
"""

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.importers.errors import ImportRefused
from tests.factories import SEED_DIR, cite, exported, import_file, table_rows

settings.register_profile(
    "ci",
    max_examples=20,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.register_profile(
    "deep",
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
PROFILE = "deep" if os.environ.get("STUDYHALL_FUZZ") == "deep" else "ci"

CONTROLS = [chr(c) for c in [*range(0, 9), 11, 12, *range(14, 32), 127]]
INVALID_UTF8 = [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf0\x28\x8c\x28", b"\x80"]
ODD_IDS = ["", "/", "a/b/c", "x" * 300, " ", "\\u0000", "..", "1e9999", "\u202e", "set/\u00e9"]


@st.composite
def mutation(draw: st.DrawFn, size: int) -> tuple[str, int, object]:
    kind = draw(
        st.sampled_from(
            [
                "control",
                "bom",
                "crlf",
                "cr",
                "invalid-utf8",
                "nesting",
                "long-line",
                "odd-id",
                "delete",
                "duplicate",
                "text",
            ]
        )
    )
    at = draw(st.integers(0, max(size, 0)))
    if kind == "control":
        return kind, at, draw(st.sampled_from(CONTROLS))
    if kind == "invalid-utf8":
        return kind, at, draw(st.sampled_from(INVALID_UTF8))
    if kind == "nesting":
        return (
            kind,
            at,
            draw(st.sampled_from(["[", "{", '{"a": [', "a = [", "1. "]))
            * draw(st.integers(50, 5_000)),
        )
    if kind == "long-line":
        return (
            kind,
            at,
            draw(st.sampled_from(["x", "1. ", "a.", "- ", "# "]))
            * draw(st.integers(1_000, 40_000)),
        )
    if kind == "odd-id":
        return kind, at, draw(st.sampled_from(ODD_IDS))
    if kind in ("delete", "duplicate"):
        return kind, at, draw(st.integers(1, 400))
    if kind == "text":
        return kind, at, draw(st.text(max_size=40))
    return kind, at, None


def mutate(data: bytes, kind: str, at: int, arg: object) -> bytes:
    """Apply one mutation to the document's bytes."""
    at = min(at, len(data))
    if kind == "bom":
        return b"\xef\xbb\xbf" + data if at % 2 else data[:at] + b"\xef\xbb\xbf" + data[at:]
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    if kind == "cr":
        return data.replace(b"\n", b"\r")
    if kind == "delete":
        return data[:at] + data[at + int(str(arg)) :]
    if kind == "duplicate":
        return data[:at] + data[at : at + int(str(arg))] + data[at:]
    if kind == "odd-id":
        return _odd_id(data, at, str(arg))
    insert = arg if isinstance(arg, bytes) else str(arg).encode("utf-8", "surrogatepass")
    return data[:at] + insert + data[at:]


def _odd_id(data: bytes, at: int, odd: str) -> bytes:
    """Replace an identifier (a JSON id or slug, a question number, a catalog key) with odd."""
    for needle in (b'"id": "', b'"slug": "', b"Question ", b'[questions."', b'slug = "'):
        start = data.find(needle, at)
        if start < 0:
            start = data.find(needle)
        if start >= 0:
            start += len(needle)
            end = start
            while end < len(data) and data[end : end + 1] not in (b'"', b":", b"\n"):
                end += 1
            return data[:start] + odd.encode("utf-8", "surrogatepass") + data[end:]
    return data


@pytest.fixture
def documents(seeded) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """The seed documents, and the export of the seeded database (some questions cited)."""
    guide = {"title": "Guide", "url": "https://docs.nvidia.com/a?b=1#c", "version": "10.x"}
    cite(seeded, "1", guide, {"url": "https://docs.nvidia.com/deeplearning/"})
    cite(seeded, "3", guide)
    files = {path.name: path.read_bytes() for path in sorted(SEED_DIR.iterdir())}
    files["export.json"] = json.dumps(exported(seeded), ensure_ascii=False, indent=2).encode()
    return files


@pytest.mark.parametrize(
    "name", ["000_21c8a85df645b7bb.txt", "004_7ac6168e0636c6eb.txt", "catalog.toml", "export.json"]
)
def test_a_mutated_document_imports_or_is_refused_cleanly(seeded, documents, name):
    base = documents[name]

    @settings(settings.get_profile(PROFILE))
    @given(st.lists(mutation(len(base)), min_size=1, max_size=3))
    def check(mutations: list[tuple[str, int, object]]) -> None:
        data = base
        for kind, at, arg in mutations:
            data = mutate(data, kind, at, arg)
        before = table_rows(seeded)
        try:
            import_file(seeded, data, name)
        except ImportRefused as refused:
            lines = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") + 1
            assert refused.file == name
            assert 1 <= refused.line <= lines, (refused.line, lines, str(refused))
            assert table_rows(seeded) == before

    check()
