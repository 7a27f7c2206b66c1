"""Moodle's text formats written as Markdown: HTML sanitised first, its text escaped."""

import pytest

from app.content.markdown import render
from app.importers.markup import to_markdown


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("Q<b> bold </b>and", "Q **bold** and"),
        ("<p><b></b></p>x", "x"),
        ("<b>x<i>y</i></b>", "**x*y***"),
        ("<ol><li>a</li><li>b</li></ol>", "1. a\n1. b"),
        ("x<br>y", "x\\\ny"),
        ("<pre>code `a`\n  b</pre>", "```\ncode `a`\n  b\n```"),
        ("use <code>a`b</code>", "use `` a`b ``"),
        ("1. not a list", "1\\. not a list"),
        ("&lt;script&gt; &#169;", "\\<script\\> ©"),
        ('<a href="https://example.org/a(b)">docs</a>', "[docs](<https://example.org/a(b)>)"),
        ('<a href="javascript:alert(1)">x</a><style>p{}</style>', "x"),
    ],
)
def test_html_becomes_markdown(html, markdown):
    assert to_markdown(html, "html") == markdown


def test_no_html_survives_to_the_page():
    hostile = '<img src=x onerror=alert(1)><svg onload=alert(1)><iframe src="//evil"></iframe>ok'
    rendered = render(to_markdown(hostile, "html"))
    assert rendered == "<p>ok</p>\n"


def test_plain_text_is_escaped_and_markdown_is_kept():
    assert to_markdown("*a* <b>\nnext", "plain") == "\\*a\\* \\<b\\>\n\nnext"
    assert to_markdown("*a* <b>", "markdown") == "*a* <b>"
