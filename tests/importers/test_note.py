import re
from html.parser import HTMLParser

import pytest

from app.content.markdown import render, split_sections
from app.importers import note
from app.importers.errors import ImportRefused
from tests.factories import SEED_DIR

SEED = SEED_DIR / "004_7ac6168e0636c6eb.txt"
SEED_URL = (
    "https://docs.nvidia.com/deeplearning/tensorrt/developer-guide/index.html#reformat-free-support"
)
NUMBERED = re.compile(r"^(?P<indent> *)\d+\.\s+(?P<text>.*)$")
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(1)>"


def seed_text() -> str:
    return SEED.read_text(encoding="utf-8")


def blog(*outline: str, header: tuple[str, ...] | None = None) -> str:
    """Build a blog note: boilerplate, the outline lines, then the footer."""
    if header is None:
        header = (
            "someone",
            "",
            "A tagline.",
            "",
            "Sample Note",
            "",
            "Written in",
            "by",
            "someone",
            ", ,",
        )
    return "\n".join([*header, *outline, "", "Tags", "", "Leave a comment"])


def parse(text: str, file: str = "note.txt"):
    bundle, report = note.parse(text, file)
    (data,) = bundle.notes
    return data, report


def refusal(text: str, file: str = "note.txt") -> ImportRefused:
    with pytest.raises(ImportRefused) as caught:
        note.parse(text, file)
    return caught.value


class _Outline(HTMLParser):
    """Collect (depth, text) for every <h2> (depth 0) and <li> (depth of its list)."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[list] = []
        self.depth = 0
        self.open: list[list] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "ol":
            self.depth += 1
        elif tag in ("h2", "li"):
            item = [self.depth if tag == "li" else 0, ""]
            self.items.append(item)
            self.open.append(item)

    def handle_endtag(self, tag: str) -> None:
        if tag == "ol":
            self.depth -= 1
        elif tag in ("h2", "li"):
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if self.open and (self.open[-1][0] == 0 or self.depth == self.open[-1][0]):
            self.open[-1][1] += data


def rendered_outline(markdown: str) -> list[tuple[int, str]]:
    parser = _Outline()
    parser.feed(render(markdown))
    return [(depth, " ".join(text.split())) for depth, text in parser.items]


def seed_outline() -> list[tuple[int, str]]:
    """Return (depth, text) for every numbered line of the seed: depth 0 is the top level."""
    items = []
    for line in seed_text().replace("\xa0", " ").split("\n"):
        if match := NUMBERED.match(line):
            depth = (len(match.group("indent")) - 2) // 2
            text = " ".join(match.group("text").split())
            items.append((depth, text.rstrip(":") if depth == 0 else text))
    return items


def test_seed_note_keeps_title_author_and_source():
    data, report = parse(seed_text(), "seed/004.txt")
    assert (data.title, data.author, data.slug) == (
        "TensorRT Note (2)",
        "levendlee",
        "tensorrt-note-2",
    )
    assert data.source == "seed/004.txt"
    assert data.topic is None
    assert report.format == "note"
    assert report.warnings == []


def test_seed_note_has_two_top_level_sections():
    data, report = parse(seed_text())
    sections = split_sections(data.markdown).sections
    assert [(s.heading, s.level) for s in sections] == [
        ("Working with Mixed Precision", 2),
        ("Working with Reformat-Free Network I/O Tensors", 2),
    ]
    assert [s.anchor for s in sections] == [
        "working-with-mixed-precision",
        "working-with-reformat-free-network-i-o-tensors",
    ]
    assert split_sections(data.markdown).intro == ""
    assert report.counts["sections"] == 2


def test_seed_note_keeps_every_numbered_line_at_its_depth():
    data, report = parse(seed_text())
    expected = seed_outline()
    assert len(expected) == 50
    assert report.counts["items"] == 50
    assert rendered_outline(data.markdown) == expected


def test_seed_note_markdown_nests_lists_by_indentation():
    markdown = parse(seed_text())[0].markdown
    assert "\n1. Support: FP32, FP16, and INT8.\n   1. TensorRT is flexible" in markdown
    assert "\n         1. Symmetric quantization.\n" in markdown
    assert len(re.findall(r"^ *\d+\. ", markdown, re.MULTILINE)) == 48


def test_seed_note_turns_the_bare_url_into_a_link():
    markdown = parse(seed_text())[0].markdown
    assert f"<{SEED_URL}>" in markdown
    assert f'<a href="{SEED_URL}" rel="noopener noreferrer nofollow">{SEED_URL}</a>' in render(
        markdown
    )


def test_seed_note_has_no_non_breaking_spaces():
    data, _ = parse(seed_text())
    assert "\xa0" in seed_text()
    for value in (data.markdown, data.title, data.author):
        assert "\xa0" not in value
    assert "\n   3. TF32 Inference.\n" in data.markdown
    assert "\n         2. Calibration:\n" in data.markdown


@pytest.mark.parametrize(
    "boilerplate", ["levendlee", "Stay humble", "Written in", "Leave a comment", "Tags", ", ,"]
)
def test_seed_note_body_has_no_boilerplate(boilerplate):
    assert boilerplate not in parse(seed_text())[0].markdown


def test_seed_note_footer_is_counted_as_dropped():
    assert parse(seed_text())[1].counts["footer_lines_dropped"] == 2


def test_outline_becomes_sections_and_nested_lists():
    data, report = parse(blog("  1. First:", "    1. Child", "      1. Grandchild", "  2. Second"))
    assert data.markdown == "## First\n\n1. Child\n   1. Grandchild\n\n## Second\n"
    assert report.counts == {"sections": 2, "items": 4, "footer_lines_dropped": 2}


def test_nested_items_follow_two_digit_numbers():
    outline = [f"    {n}. Item {n}" for n in range(1, 11)]
    data, _ = parse(blog("  1. Top", *outline, "      1. Under ten"))
    assert data.markdown.endswith("\n10. Item 10\n    1. Under ten\n")
    assert rendered_outline(data.markdown)[-2:] == [(1, "Item 10"), (2, "Under ten")]


def test_outline_without_indentation_works():
    data, _ = parse(blog("1. Top", "  1. Child"))
    assert data.markdown == "## Top\n\n1. Child\n"


def test_loose_line_is_joined_to_the_item_above_with_a_warning():
    data, report = parse(blog("  1. Top", "    1. Child that", "goes on"))
    assert "1. Child that goes on\n" in data.markdown
    assert [(w.line, w.message) for w in report.warnings] == [
        (13, "joined a line that is not a numbered item to the item above")
    ]


def test_odd_and_excess_indentation_are_warned_and_repaired():
    data, report = parse(blog("  1. Top", "       1. Too deep", "     2. Odd"))
    assert data.markdown == "## Top\n\n1. Too deep\n   2. Odd\n"
    assert [(w.line, w.message) for w in report.warnings] == [
        (12, "indentation is not a multiple of two spaces; rounded to the nearest level"),
        (12, "item is indented more than one level below the item above; lifted"),
        (13, "indentation is not a multiple of two spaces; rounded to the nearest level"),
    ]


def test_author_is_the_first_header_line_when_there_is_no_by_line():
    data, _ = parse(blog("  1. Top", "    1. Child", header=("someone", "My Title")))
    assert (data.title, data.author) == ("My Title", "someone")


def test_title_alone_gives_no_author():
    data, _ = parse(blog("  1. Top", "    1. Child", header=("My Title",)))
    assert (data.title, data.author) == ("My Title", "")


def test_hostile_html_in_a_note_is_escaped():
    text = blog(f"  1. Top {HOSTILE}", f"    1. Child {HOSTILE}", f"      1. Deeper {HOSTILE}")
    data, _ = parse(text)
    html = render(data.markdown)
    assert "<script" not in html
    assert "<img" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 3
    assert html.count("&lt;img src=x onerror=alert(1)&gt;") == 3


def test_markdown_in_items_stays_literal():
    data, _ = parse(
        blog("  1. Use `__init__` and *stars*", "    1. # not a heading", "    2. 3. not a list")
    )
    assert rendered_outline(data.markdown) == [
        (0, "Use `__init__` and *stars*"),
        (1, "# not a heading"),
        (1, "3. not a list"),
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "Just a title\n\nSome prose without an outline.\n",
            1,
            "no numbered outline ('  1. ...') was found",
        ),
        ("\n\n  1. First\n    1. Second\n", 3, "no title was found above the outline"),
        (
            "Written in\nby\nsomeone\n, ,\n  1. First\n    1. Second\n",
            5,
            "no title was found above the outline",
        ),
    ],
    ids=["no-outline", "nothing-above", "only-boilerplate-above"],
)
def test_bad_notes_are_refused_naming_file_and_line(text, line, message):
    error = refusal(text, "bad-note.txt")
    assert (error.file, error.line, error.message) == ("bad-note.txt", line, message)
    assert str(error).startswith(f"bad-note.txt:{line}: ")


def test_looks_like_wants_two_numbered_items():
    assert note.looks_like(seed_text())
    assert note.looks_like("Title\n  1. a\n\xa0\xa01. b\n")
    assert not note.looks_like("Title\n  1. only one\n")
    assert not note.looks_like("Title\nsome prose\n")
