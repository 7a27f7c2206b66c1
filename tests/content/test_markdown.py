"""Notes rendered well: anchors that match the sections, highlighted code, tables, footnotes."""

from app.content.markdown import render, render_note, split_sections
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
    assert pre[0]["class"] == "highlight"
    classes = {span["class"] for span in tags(html, "span")}
    assert {"k", "nf", "s2", "c1"} <= classes


def test_code_in_an_unknown_language_stays_plain_and_escaped():
    html = render_note(NOTE).sections["usage-2"]
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html
    assert tags(html, "pre") == [{}] and tags(html, "code") == [{}]  # no class left over


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
