"""An author previews a CSV file on a phone: the figures, each question's line, the topics and
an Import button, accessible and without sideways scrolling; a bad file shows its refusal.

The preview writes nothing, so the server shared by the whole run keeps its content. An
author then imports a GIFT file from its preview, with JavaScript and without, each under a
category of its own.
"""

import base64
import re
import struct
import zlib
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import Account, assert_accessible, assert_no_horizontal_scroll, log_in

PHONE = {"width": 390, "height": 844}
BANK = (
    "id;question;choice_a;choice_b;choice_c;right;topic\n"
    "preview-one;Which step turns a network into an optimized engine?;The builder;"
    "The runtime;;A;Preview checks/Building engines with a long topic name\n"
    'preview-two;"Which precisions\ncan an engine use?";FP16;INT8;FP64;A,B;Preview checks\n'
)


def _preview(page: Page, name: str, content: str) -> None:
    page.goto("/author/import")
    page.get_by_label("Document").set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": content.encode()}
    )
    page.get_by_role("button", name="Preview", exact=True).click()


@pytest.mark.browser_context_args(viewport=PHONE)
def test_an_author_previews_a_csv_file_on_a_phone(
    page: Page, create_account: Callable[..., Account], console_errors: list[str]
) -> None:
    log_in(page, create_account("preview", role="author"))
    page.goto("/author/import")
    expect(page.get_by_role("link", name="CSV template")).to_have_attribute(
        "href", "/author/import/template.csv"
    )
    _preview(page, "questions.csv", BANK)
    expect(page.get_by_role("heading", name="Preview of questions.csv (csv)")).to_be_visible()
    expect(page.get_by_text("create 2 questions")).to_be_visible()
    rows = page.get_by_role("row")
    expect(rows.nth(1)).to_contain_text(re.compile(r"2\s*created\s*Which step turns a network"))
    expect(rows.nth(2)).to_contain_text(
        re.compile(
            r"3\s*created\s*Which precisions can an engine use\? \(preview-checks/preview-two\)"
        )
    )
    expect(page.get_by_role("button", name="Import questions.csv")).to_be_visible()
    assert_no_horizontal_scroll(page, "import preview")
    assert_accessible(page, "import preview on a phone")

    _preview(page, "bad.csv", BANK.replace(";A,B;", ";A,D;"))
    expect(page.get_by_role("alert")).to_contain_text("bad.csv, line 3: column right")
    expect(page.get_by_role("button", name=re.compile("^Import bad"))).to_have_count(0)
    assert_no_horizontal_scroll(page, "refused preview")
    assert_accessible(page, "refused preview on a phone")

    _preview(page, "questions.csv", BANK)  # the first preview wrote nothing
    expect(page.get_by_text("create 2 questions")).to_be_visible()
    # the refused preview answers 422, which the console notes; nothing else (no CSP report)
    assert [error for error in console_errors if "status of 422" not in error] == []


def _gift(suffix: str) -> str:
    """A GIFT bank under a category of its own: two questions and an essay, which is skipped."""
    return (
        f"$CATEGORY: $course$/top/Imported journey {suffix}\n"
        "\n"
        "::builder:: Which step turns a network into an engine? {=The builder ~The runtime}\n"
        "\n"
        "::essay:: Explain kernel fusion. {}\n"
        "\n"
        "::precisions:: Which precisions can an engine use? {~%50%FP16 ~%50%INT8 ~%-100%FP64}\n"
    )


def _import_gift(page: Page, suffix: str) -> None:
    """Upload a GIFT file, check its preview, import it and find its questions on the set page."""
    name = f"journey-{suffix}.gift"
    page.goto("/author/import")
    page.get_by_label("Document").set_input_files(
        {"name": name, "mimeType": "text/plain", "buffer": _gift(suffix).encode()}
    )
    page.get_by_role("button", name="Preview", exact=True).click()
    expect(page.get_by_role("heading", name=f"Preview of {name} (gift)")).to_be_visible()
    expect(page.get_by_text("create 2 questions")).to_be_visible()
    expect(page.get_by_text("skip 1 question", exact=True)).to_be_visible()
    expect(page.get_by_text("line 5: skipped: an empty answer block {}: an essay")).to_be_visible()
    rows = page.get_by_role("row")
    expect(rows.nth(1)).to_contain_text(re.compile(r"3\s*created\s*Which step turns a network"))
    expect(rows.nth(2)).to_contain_text(re.compile(r"7\s*created\s*Which precisions can"))
    page.get_by_role("button", name=f"Import {name}").click()
    expect(page.get_by_role("status")).to_contain_text(f"Imported {name} (gift)")
    expect(page.get_by_role("status")).to_contain_text("questions created: 2")
    page.goto(f"/sets/imported-journey-{suffix}")
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Imported journey {suffix}")
    expect(page.get_by_text("Which step turns a network into an engine?")).to_be_visible()
    expect(page.get_by_text("Which precisions can an engine use?")).to_be_visible()
    expect(page.get_by_text("Explain kernel fusion.")).to_have_count(0)


def test_an_author_imports_a_gift_file_after_previewing_it(
    page: Page, create_account: Callable[..., Account], console_errors: list[str]
) -> None:
    log_in(page, create_account("giftjs", role="author"))
    _import_gift(page, "js")
    assert console_errors == []


def test_an_author_imports_a_gift_file_without_javascript(
    no_js_page: Page, create_account: Callable[..., Account]
) -> None:
    log_in(no_js_page, create_account("giftnojs", role="author"))
    _import_gift(no_js_page, "nojs")


def _png() -> bytes:
    """A 2x2 red PNG, made here: the page must decode it, not just receive bytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def test_an_image_from_a_moodle_xml_file_shows_on_its_question(
    page: Page, create_account: Callable[..., Account], console_errors: list[str]
) -> None:
    encoded = base64.b64encode(_png()).decode()
    quiz = (
        "<quiz>\n"
        '<question type="category"><category><text>$course$/top/Imported images</text>'
        "</category></question>\n"
        '<question type="multichoice"><name><text>Chart</text></name>\n'
        '<questiontext format="html"><text><![CDATA[<p>What does '
        '<img src="@@PLUGINFILE@@/red%20square.png" alt="the red square"> show?</p>]]></text>\n'
        f'<file name="red square.png" path="/" encoding="base64">{encoded}</file>'
        "</questiontext>\n"
        '<answer fraction="100"><text>A square</text></answer>'
        '<answer fraction="0"><text>A circle</text></answer>\n'
        "</question>\n</quiz>\n"
    )
    log_in(page, create_account("images", role="author"))
    page.goto("/author/import")
    page.get_by_label("Document").set_input_files(
        {"name": "images.xml", "mimeType": "text/xml", "buffer": quiz.encode()}
    )
    page.get_by_role("button", name="Import without preview").click()
    expect(page.get_by_role("status")).to_contain_text("images stored: 1")
    page.goto("/sets/imported-images")
    page.get_by_role("link", name=re.compile("What does")).click()
    image = page.get_by_role("img", name="the red square")
    expect(image).to_have_attribute("src", re.compile(r"^/media/[0-9a-f]{64}/red%20square\.png$"))
    expect(image).to_have_js_property("naturalWidth", 2)
    assert console_errors == []  # no CSP report: the image comes from the site itself
