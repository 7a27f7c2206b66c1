"""Notes rendered well: anchors that match the sections, highlighted code, tables, footnotes."""

import itertools

from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.content.markdown import _md, _plain_paragraphs, clean, render, render_note, split_sections
from tests.factories import a_note, load, tags

NOTE = """Intro, with a footnote[^why].

## Usage

### Details

See [the guide].

```python
def build(flags):  # the builder
    return "kFP16"
```

| flag | meaning |
|:-----|--------:|
| kFP16 | half precision |

## Usage

### Details

```nosuchlanguage
<b>not bold</b>
```

[the guide]: https://example.com/guide
[^why]: Because <i>reasons</i>.
"""


def test_section_headings_carry_the_anchors_split_sections_gives():
    rendered = render_note(NOTE)
    anchors = [s.anchor for s in split_sections(NOTE).sections]
    assert list(rendered.sections) == anchors == ["usage", "usage-2"]


def test_other_headings_get_anchors_unique_in_the_whole_note():
    rendered = render_note(NOTE)
    ids = [h["id"] for part in rendered.sections.values() for h in tags(part, "h3")]
    assert len(ids) == 2 and len(set(ids) | {"usage", "usage-2"}) == 4
    assert render_note(NOTE).sections == render_note(NOTE + "\n").sections  # stable


def test_anchors_survive_an_edit_elsewhere_in_the_note():
    edited = NOTE.replace("See [the guide].", "See [the guide] first.")
    assert list(render_note(edited).sections) == list(render_note(NOTE).sections)


def test_fenced_code_is_highlighted_with_only_its_token_classes():
    html = render_note(NOTE).sections["usage"]
    pre = tags(html, "pre")
    assert pre[0] == {"class": "highlight", "tabindex": "0"}  # a tab stop to scroll it
    classes = {span["class"] for span in tags(html, "span")}
    assert {"k", "nf", "s2", "c1"} <= classes


def test_code_in_an_unknown_language_stays_plain_and_escaped():
    html = render_note(NOTE).sections["usage-2"]
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html
    assert tags(html, "pre") == [{"tabindex": "0"}] and tags(html, "code") == [{}]  # no class


def test_tables_render_without_inline_styles():
    html = render_note(NOTE).sections["usage"]
    assert tags(html, "table") and "style=" not in html
    assert len(tags(html, "td")) == 2


def test_footnotes_and_link_references_reach_across_sections():
    rendered = render_note(NOTE)
    assert 'href="#fn1"' in rendered.intro
    assert tags(rendered.sections["usage"], "a")[0]["href"] == "https://example.com/guide"
    assert tags(rendered.footnotes, "li")[0]["id"] == "fn1"
    assert "&lt;i&gt;reasons&lt;/i&gt;" in rendered.footnotes


def test_sanitising_keeps_no_class_or_attribute_it_does_not_need():
    html = render("```python\nx = 1\n```\n\n# Title\n")
    assert tags(html, "h1") == [{}]  # headings outside notes carry no id
    html = render('<span class="evil" style="x">raw</span>')
    assert "<span" not in html


def test_the_note_page_shows_the_rendered_note(client, db):
    load(db, a_note(NOTE, slug="guide"))
    html = client.get("/notes/guide").text
    assert 'class="highlight"' in html and 'id="fn1"' in html
    assert tags(html, "section")[0]["id"] == "usage"
    assert "/static/highlight." in html


# Plain text skips the parser and the sanitiser; it must come out exactly as they would
# have made it. The examples are words with Markdown's and HTML's characters mixed in, so
# they try to make the short path take text it should not.
_WORDS = st.sampled_from(["Which", "kFP16", "é", "a", "Z9", " ", "\n", "\n\n"])
_MARKS = st.sampled_from([*"_*`#>-+=.)(!:[]<>&\"'\\~|{}%/@^$;,?1\t", "  \n", "1. ", "- "])


@st.composite
def _plain_shapes(draw: st.DrawFn) -> str:
    """Words and spaces, with up to three marks put in among them."""
    tokens = draw(st.lists(_WORDS, min_size=1, max_size=8))
    for place, mark in draw(st.lists(st.tuples(st.integers(0, 8), _MARKS), max_size=3)):
        tokens.insert(place, mark)
    return "".join(tokens)


_TRAPS = [
    "a*b*",
    "a _b_ c",
    "1. x",
    "1) x",
    "a\n- b",
    "a\n+ b",
    "a\n===",
    "a\n---",
    "a  \nb",
    "x`y`",
    "a<b>",
    "a &amp; b",
    "see [b](c)",
    "a ~~b~~",
    "a\\\nb",
    "é\n    b",
    "a\n> b",
]


def _examples(values: list[str]):
    def add(test):
        for value in values:
            test = example(value)(test)
        return test

    return add


@settings(max_examples=1000, derandomize=True, deadline=None, database=None)
@given(_plain_shapes())
@_examples(_TRAPS)
def test_plain_text_renders_as_markdown_and_the_sanitiser_would(text):
    shortcut = _plain_paragraphs(text)
    if shortcut is not None:
        assert shortcut == clean(_md.render(text))


def test_every_short_mix_of_words_and_marks_renders_as_the_parser_would():
    pieces = ["a", "Z9", " ", "\n", "\n\n", *"_*`#>-+=.)(!:[]<>&\"'\\~|%/@^$;,?1\t", "1. "]
    for text in map("".join, itertools.product(pieces, repeat=3)):
        shortcut = _plain_paragraphs(text)
        assert shortcut is None or shortcut == clean(_md.render(text)), text


def test_plain_prose_takes_the_short_path_and_markup_does_not():
    prose = "Which precision does TensorRT use (FP16, INT8 or 2:4 sparsity)?\nOne line.\n\nTwo."
    assert _plain_paragraphs(prose) == clean(_md.render(prose))
    assert _plain_paragraphs("Naïve café: 50% off") is not None
    for markup in [
        "Use *this*",
        "Use `kINT8`",
        "a_b_ c _d_",
        "- item",
        "1. first",
        "# Title",
        "Tom & Jerry",
        "a <b>",
        'say "hi"',
        "line  \nbreak",
        "> quote",
        "x\\_y",
    ]:
        assert _plain_paragraphs(markup) is None, markup


def test_a_heading_may_name_its_anchor_which_is_taken_first():
    note = "## Usage {#setup}\n\nA.\n\n## Setup\n\nB.\n\n## Notes {#Not valid}\n"
    sections = split_sections(note).sections
    assert [(s.anchor, s.heading) for s in sections] == [
        ("setup", "Usage"),
        ("setup-2", "Setup"),
        ("notes-not-valid", "Notes {#Not valid}"),
    ]
    assert list(render_note(note).sections) == ["setup", "setup-2", "notes-not-valid"]
