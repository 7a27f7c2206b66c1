from html.parser import HTMLParser

import pytest

from app.content.markdown import render, slugify, unique_slug
from app.importers.errors import ImportRefused
from app.importers.text import decode, plain_to_markdown
from tests.factories import tags


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text += data


def parse_html(html: str) -> _Html:
    parser = _Html()
    parser.feed(html)
    return parser


def refusal(data: bytes, file: str = "upload.txt") -> ImportRefused:
    with pytest.raises(ImportRefused) as caught:
        decode(data, file)
    return caught.value


@pytest.mark.parametrize(
    "data",
    [
        b"one\ntwo\n",
        b"one\r\ntwo\r\n",
        b"one\rtwo\r",
        b"\xef\xbb\xbfone\ntwo\n",
        b"\xef\xbb\xbfone\r\ntwo\r\n",
    ],
    ids=["lf", "crlf", "cr", "bom", "bom-crlf"],
)
def test_decode_gives_lf_text_without_bom(data):
    assert decode(data, "f.txt") == "one\ntwo\n"


def test_decode_keeps_non_ascii_text():
    assert decode("Café — 2×\xa0speed".encode(), "f.txt") == "Café — 2×\xa0speed"


@pytest.mark.parametrize(
    "data",
    [b"", b"   ", b"\n\n\r\n\t \n", b"\xef\xbb\xbf", b"\xef\xbb\xbf \n"],
    ids=["empty", "spaces", "blank-lines", "bom-only", "bom-and-blanks"],
)
def test_decode_refuses_empty_files(data):
    error = refusal(data)
    assert (error.file, error.line) == ("upload.txt", 1)
    assert str(error) == "upload.txt:1: the file is empty"


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (b"\x00\x01\x02", 1),
        (b"text\nmore text\nthen \x00 a NUL\n", 3),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 3),
    ],
    ids=["leading-nul", "nul-on-line-3", "png-header"],
)
def test_decode_refuses_binary_files_naming_the_line_of_the_first_nul(data, line):
    error = refusal(data, "picture.png")
    assert error.line == line
    assert str(error).startswith(f"picture.png:{line}: ")
    assert "binary file" in error.message


def test_decode_refuses_invalid_utf8_naming_its_line_and_offset():
    head = "Title — Questions and Answers\nQuestion 1: caf".encode()
    error = refusal(head + b"\xe9?\n", "latin1.txt")
    assert error.line == 2
    assert error.message == f"the file is not UTF-8 text (invalid byte at offset {len(head)})"


def test_decode_refuses_latin1_text():
    assert "not UTF-8" in refusal("naïve café".encode("latin-1")).message


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("NCA Inference Optimization & TensorRT 5", "nca-inference-optimization-tensorrt-5"),
        ("TensorRT Note (2)", "tensorrt-note-2"),
        (
            "Working with Reformat-Free Network I/O Tensors",
            "working-with-reformat-free-network-i-o-tensors",
        ),
        ("  Café Crème  ", "cafe-creme"),
        ("INT8 -- calibration!!", "int8-calibration"),
        ("!!!", "untitled"),
        ("日本語", "untitled"),
    ],
)
def test_slugify(title, slug):
    assert slugify(title) == slug


def test_unique_slug_numbers_repeats_and_takes_the_slug():
    taken: set[str] = set()
    assert [unique_slug("intro", taken) for _ in range(3)] == ["intro", "intro-2", "intro-3"]
    assert taken == {"intro", "intro-2", "intro-3"}


@pytest.mark.parametrize(
    "text",
    [
        "*not bold* and **not strong**",
        "_not emphasis_ and __init__ but snake_case_name",
        "`not code` and ```not a fence```",
        "[not](a-link) nor ![an](image.png)",
        "<b>not bold</b> <script>alert(1)</script> <img src=x onerror=alert(1)>",
        "# not a heading",
        "## not a heading either",
        "- not a list",
        "+ not a list",
        "* not a list",
        "1. not a list",
        "2) not a list",
        "> not a quote",
        "---",
        "~~~ not a fence",
        "A &amp; B &#60; C & D",
        "a back\\slash \\* stays",
        "12.5 percent and 2:4 sparsity",
        "-5 degrees",
    ],
)
def test_plain_to_markdown_renders_as_the_same_plain_text(text):
    html = parse_html(render(plain_to_markdown(text)))
    assert html.tags == ["p"]
    assert html.text.strip() == text


def test_plain_to_markdown_turns_bare_urls_into_links():
    url = "https://docs.nvidia.com/deeplearning/tensorrt/index.html#reformat-free_support"
    markdown = plain_to_markdown(f"See {url}.")
    assert markdown == f"See <{url}>."
    html = render(markdown)
    assert f'<a href="{url}"' in html
    assert parse_html(html).text.strip() == f"See {url}."


def test_plain_to_markdown_leaves_words_untouched():
    text = "IInt8EntropyCalibrator2 uses KL-divergence (libnvinfer.so), mark_output() too."
    assert plain_to_markdown(text) == text


def test_images_from_other_sites_become_links_the_policy_does_not_block():
    media = "/media/" + "0" * 64 + "/f.png"
    html = render(
        "![a chart](https://example.com/c.png) ![](//example.com/d.png) ![ours](/e.png) "
        f"![stored]({media})"
    )
    assert [img["src"] for img in tags(html, "img")] == [media]  # only the media store's
    assert [(a["href"]) for a in tags(html, "a")] == [
        "https://example.com/c.png",
        "//example.com/d.png",
        "/e.png",
    ]
    assert "a chart</a>" in html and "//example.com/d.png</a>" in html
