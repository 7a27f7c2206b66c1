"""The Moodle XML importer: categories, question types, formats, feedback, images, skips,
refusals (entities and DTDs among them), detection and the round trip from the exporter."""

import base64
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from typer.testing import CliRunner

from app.cli import cli
from app.config import PROJECT_ROOT, get_settings
from app.content.markdown import render
from app.content.models import Choice, Question, QuestionSet, Topic
from app.db import Database
from app.exporters.moodle_xml import write_moodle_xml
from app.exporters.selection import ExportedQuestion, read_questions
from app.importers import moodle_xml
from app.importers.errors import ImportRefused
from app.importers.service import FORMATS, detect_format, parse_document
from tests.exporters.conftest import other_db  # noqa: F401 (a fixture)
from tests.factories import (
    SEED_DIR,
    SHIPPED_SEED_DIR,
    exported,
    import_file,
    load_seed,
    row_counts,
    table_rows,
)
from tests.importers.test_fuzz import PROFILE, mutate, mutation

SAMPLES = Path(__file__).parent / "samples"
SAMPLE = (SAMPLES / "moodle.xml").read_bytes()
SET = "networking-routing"
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n'


def parse(text: str, file: str = "quiz.xml"):  # type: ignore[no-untyped-def]
    return moodle_xml.parse(text, file)


def questions(text: str) -> dict[str, object]:
    bundle, _ = parse(text)
    return {q.key: q for s in bundle.question_sets for q in s.questions}


def refused(text: str) -> ImportRefused:
    with pytest.raises(ImportRefused) as caught:
        parse(text)
    return caught.value


def multichoice(body: str, answers: str = "", name: str = "Q", single: str = "true") -> str:
    """A quiz of one multichoice question (line 3), its answers two by default."""
    answers = answers or '<answer fraction="100"><text>a</text></answer>\n' + (
        '<answer fraction="0"><text>b</text></answer>\n'
    )
    return (
        f'{HEAD}<question type="multichoice">\n<name><text>{name}</text></name>\n'
        f"{body}\n<single>{single}</single>\n{answers}</question>\n</quiz>\n"
    )


def stem(text: str, format: str = "html") -> str:
    return f'<questiontext format="{format}"><text><![CDATA[{text}]]></text></questiontext>'


def test_categories_become_topics_and_a_set_each():
    bundle, report = parse_document(SAMPLE, "moodle.xml")
    assert report.format == "moodle-xml"
    assert [(t.slug, t.title, t.parent, t.line) for t in bundle.topics] == [
        ("networking", "Networking", None, 4),
        ("networking-routing", "Routing", "networking", 4),
        ("security", "Security", None, 50),
    ]
    assert [(s.slug, s.title, s.topic, len(s.questions)) for s in bundle.question_sets] == [
        (SET, "Networking / Routing", SET, 3),
        ("security", "Security", "security", 1),
    ]
    assert report.counts == {"skipped": 3, "topics": 3, "questions": 4}


def test_questions_before_any_category_go_to_a_set_named_after_the_file():
    bundle, _ = moodle_xml.parse(multichoice(stem("Pick one.")), "exams/My Quiz.xml")
    (qset,) = bundle.question_sets
    assert (qset.slug, qset.title, qset.topic, bundle.topics) == ("my-quiz", "My Quiz", None, [])


def test_a_single_answer_question_with_general_and_choice_feedback():
    ospf = questions(SAMPLE.decode())["net-ospf"]
    assert ospf.kind == "single" and ospf.line == 8 and ospf.source == "quiz.xml:8"
    assert ospf.stem == "Which protocol is a **link-state** protocol?"
    assert [(c.text, c.correct, c.feedback) for c in ospf.choices] == [
        ("OSPF", True, "Right: areas and LSAs."),
        ("RIP", False, ""),
        ("BGP", False, ""),
    ]
    assert ospf.explanation == "OSPF floods *link states*."


def test_a_multiple_response_question_and_fractions_that_do_not_sum_to_100():
    bundle, report = parse(SAMPLE.decode())
    ranges = bundle.question_sets[0].questions[1]
    assert ranges.kind == "multi" and ranges.key == "private-ranges"
    assert [c.correct for c in ranges.choices] == [True, True, False]
    assert ranges.stem == "Which two ranges\\\nare private?"  # moodle_auto_format: a line break
    warnings = [(w.line, w.message) for w in report.warnings]
    assert (
        24,
        "the right answers' fractions add up to 90%, not 100%; each is imported as right",
    ) in warnings


def test_true_false_gives_two_choices_with_their_feedback():
    ports = questions(SAMPLE.decode())["ports"]
    assert ports.kind == "single" and ports.stem == "Well-known ports are below 1024 & fixed."
    assert [(c.text, c.correct, c.feedback) for c in ports.choices] == [
        ("True", True, "Yes, 0 to 1023."),
        ("False", False, "No."),
    ]
    assert ports.explanation == ""


def test_choice_feedback_is_converted_from_its_format_and_kept_off_the_explanation():
    answers = (
        '<answer fraction="100"><text>a</text><feedback><text><![CDATA['
        "<p>Yes <b>this</b><script>alert(1)</script></p>]]></text></feedback></answer>\n"
        '<answer fraction="0"><text>b</text><feedback format="markdown"><text>'
        "**No**: `x &lt; y`</text></feedback></answer>\n"
        '<answer fraction="0"><text>c</text><feedback format="plain_text"><text>'
        "&lt;i&gt;not html&lt;/i&gt;</text></feedback></answer>\n"
    )
    (question,) = questions(multichoice(stem("Which?"), answers)).values()
    assert [c.feedback for c in question.choices] == [
        "Yes **this**",
        "**No**: `x < y`",
        "\\<i\\>not html\\</i\\>",
    ]
    assert question.explanation == ""


def test_shuffle_off_and_tags_are_reported_with_their_line():
    _, report = parse(SAMPLE.decode())
    warnings = {w.line: w.message for w in report.warnings}
    assert warnings[29].startswith("the answers' order is not kept: Studyhall shuffles")
    assert warnings[33] == "tags are not imported (topics come from categories): ipv4, basics"


def test_other_types_are_skipped_with_their_line():
    _, report = parse(SAMPLE.decode())
    skipped = [(w.line, w.message) for w in report.warnings if w.message.startswith("skipped")]
    assert skipped == [
        (41, "skipped: a question of type 'essay', which Studyhall does not have"),
        (45, "skipped: a question of type 'shortanswer', which Studyhall does not have"),
        (63, "skipped: a question of type 'numerical', which Studyhall does not have"),
    ]


@pytest.mark.parametrize(
    "kind", ["matching", "multianswer", "description", "calculated", "ddwtos", "gapselect"]
)
def test_every_other_type_is_skipped(kind):
    text = f'{HEAD}<question type="{kind}">\n{stem("x")}\n</question>\n</quiz>\n'
    bundle, report = parse(text)
    assert bundle.question_sets == [] and report.counts["skipped"] == 1
    assert report.warnings[0].line == 3 and f"'{kind}'" in report.warnings[0].message


def test_a_one_answer_question_with_several_best_answers_is_skipped():
    answers = "".join(f'<answer fraction="100"><text>{t}</text></answer>\n' for t in "ab")
    bundle, report = parse(
        multichoice(stem("Either?"), answers + "<answer><text>c</text></answer>")
    )
    assert bundle.question_sets == [] and "several best answers" in report.warnings[0].message


def test_a_partly_right_answer_in_a_one_answer_question_is_imported_as_wrong():
    answers = (
        '<answer fraction="100"><text>best</text></answer>\n'
        '<answer fraction="50"><text>fair</text></answer>\n'
        '<answer fraction="0"><text>bad</text></answer>\n'
    )
    bundle, report = parse(multichoice(stem("Best?"), answers))
    (question,) = bundle.question_sets[0].questions
    assert [c.correct for c in question.choices] == [True, False, False]
    assert [(w.line, w.message) for w in report.warnings] == [
        (8, "a partly right answer (50%) in a one-answer question is imported as wrong")
    ]


@pytest.mark.parametrize(
    ("format", "text", "expected"),
    [
        ("html", "<p>One</p><p>Two <script>x()</script><i>it</i></p>", "One\n\nTwo *it*"),
        ("moodle_auto_format", "a\nb", "a\\\nb"),
        ("markdown", "  **bold** <b>raw</b>  ", "**bold** <b>raw</b>"),
        ("plain_text", "<b>not html</b> *x*", "\\<b\\>not html\\</b\\> \\*x\\*"),
    ],
)
def test_each_text_format_becomes_markdown(format, text, expected):
    (question,) = questions(multichoice(stem(text, format))).values()
    assert question.stem == expected


def test_an_unknown_format_is_read_as_html_with_a_warning():
    bundle, report = parse(multichoice(stem("<b>x</b>", "wiki_like")))
    assert bundle.question_sets[0].questions[0].stem == "**x**"
    assert [(w.line, w.message) for w in report.warnings] == [
        (5, "unknown text format 'wiki_like', read as html")
    ]


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
PNG_SHA = hashlib.sha256(PNG).hexdigest()


def with_file(text: str, name: str, data: bytes | str, format: str = "html") -> str:
    """A question text that carries one file, base64 (or the raw text given)."""
    encoded = base64.b64encode(data).decode() if isinstance(data, bytes) else data
    return (
        f'<questiontext format="{format}"><text><![CDATA[{text}]]></text>\n'
        f'<file name="{name}" path="/" encoding="base64">{encoded}</file></questiontext>'
    )


def test_an_embedded_image_goes_to_the_media_store_and_is_shown_from_there():
    bundle, report = parse(SAMPLE.decode())
    sha = hashlib.sha256(b"\x89PNG\r\n\x1a\n").hexdigest()
    assert bundle.question_sets[1].questions[0].stem == (
        f"What does ![the TLS handshake](/media/{sha}/tls%20handshake.png) show?"
    )
    assert [(m.sha256, m.name, m.content_type, m.line) for m in bundle.media] == [
        (sha, "tls handshake.png", "image/png", 57)
    ]
    assert not [w for w in report.warnings if "image" in w.message]
    html = render(bundle.question_sets[1].questions[0].stem)
    assert f'<img src="/media/{sha}/tls%20handshake.png" alt="the TLS handshake">' in html


def test_an_image_in_markdown_text_and_the_same_bytes_twice_are_stored_once():
    text = "![the chart](@@PLUGINFILE@@/c.png) and ![again](@@PLUGINFILE@@/c.png)"
    bundle, _ = parse(multichoice(with_file(text, "c.png", PNG, "markdown")))
    (question,) = bundle.question_sets[0].questions
    url = f"/media/{PNG_SHA}/c.png"
    assert question.stem == f"![the chart]({url}) and ![again]({url})"
    assert len(bundle.media) == 1


def test_images_without_their_bytes_become_their_alt_text_or_file_name():
    named = stem('See <img src="@@PLUGINFILE@@/a%20b.png"> and <img src="https://x/y.png">')
    bundle, report = parse(multichoice(named))
    assert bundle.question_sets[0].questions[0].stem == "See a b.png and"
    assert [(w.line, w.message) for w in report.warnings] == [
        (
            5,
            '<questiontext>: images whose bytes (<file encoding="base64">) are not there are '
            "replaced by their alt text or file name (a b.png)",
        )
    ]
    (markdown,) = questions(
        multichoice(stem("![the chart](@@PLUGINFILE@@/c.png) here", "markdown"))
    ).values()
    assert markdown.stem == "the chart here"
    assert bundle.media == []


def test_a_file_the_text_does_not_show_is_not_imported():
    bundle, report = parse(multichoice(with_file("No picture.", "notes.pdf", b"%PDF-1.4")))
    assert bundle.media == [] and bundle.question_sets[0].questions[0].stem == "No picture."
    assert [w.message for w in report.warnings] == [
        "<questiontext>: files not shown as images are not imported (notes.pdf)"
    ]


SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("not base64!", "the image 'x.png' is not valid base64"),
        (SVG, "the image 'x.png' is not a PNG, JPEG, GIF or WebP image (other types, SVG"),
        (b"GIF8" + b"\x00" * 8, "the image 'x.png' is not a PNG, JPEG, GIF or WebP image"),
        (PNG + b"\x00" * 100, "the image 'x.png' is larger than the limit of 100 bytes"),
        (PNG * 1000, "the image 'x.png' is larger than the limit of 100 bytes"),
    ],
)
def test_a_bad_image_is_refused_with_its_name_and_line(data, message):
    text = multichoice(with_file('<img src="@@PLUGINFILE@@/x.png">', "x.png", data))
    with pytest.raises(ImportRefused) as caught:
        moodle_xml.parse(text, "quiz.xml", max_image=100)
    assert caught.value.line == 6 and caught.value.message.startswith(message)
    bundle, report = moodle_xml.parse(text, "quiz.xml", skip_bad=True, max_image=100)
    assert bundle.media == [] and report.counts["refused"] == 1


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        (b"\xff\xd8\xff\xe0" + b"\x00" * 8, "image/jpeg"),
        (b"GIF87a" + b"\x00" * 8, "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
    ],
)
def test_each_image_type_is_known_by_its_first_bytes(data, content_type):
    text = multichoice(with_file('<img src="@@PLUGINFILE@@/x.png">', "x.png", data))
    bundle, _ = moodle_xml.parse(text, "quiz.xml")
    assert [m.content_type for m in bundle.media] == [content_type]


def test_the_image_limit_is_a_setting(monkeypatch):
    monkeypatch.setenv("STUDYHALL_MAX_IMAGE_BYTES", "10")
    get_settings.cache_clear()
    try:
        text = multichoice(with_file('<img src="@@PLUGINFILE@@/x.png">', "x.png", PNG))
        with pytest.raises(ImportRefused) as caught:
            parse_document(text.encode(), "quiz.xml")
        assert "larger than the limit of 10 bytes (STUDYHALL_MAX_IMAGE_BYTES)" in str(caught.value)
    finally:
        get_settings.cache_clear()


def test_keys_are_the_idnumber_else_the_name_else_the_text():
    keys = list(questions(SAMPLE.decode()))
    assert keys == ["net-ospf", "private-ranges", "ports", "diagram"]
    (untitled,) = questions(multichoice(stem("Which one?"), name="")).keys()
    assert untitled.startswith("which-one-")


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (HEAD + '<question type="multichoice">\n<name>\n</question>\n', 5, "not well-formed XML"),
        ("<quiz>\n<question>&nbsp;</question></quiz>", 2, "not well-formed XML: undefined entity"),
        (HEAD + "</quiz>\n<quiz>\n", 4, "not well-formed XML: junk after document element"),
        ('<?xml version="1.0"?>\n<items/>\n', 2, "the document is a <items>, not a <quiz>"),
        (HEAD + "</quiz>\n", 1, "the file holds no Moodle XML question"),
        (multichoice(stem(" <p> </p> ")), 3, "the question has no text (<questiontext>)"),
        (multichoice(""), 3, "the question has no text (<questiontext>)"),
        (
            multichoice(stem("None?"), '<answer fraction="0"><text>a</text></answer>' * 2),
            3,
            "none of the answers is right: give one a positive fraction",
        ),
        (
            multichoice(stem("Odd?"), '<answer fraction="x"><text>a</text></answer>'),
            7,
            "the answer's fraction 'x' is not a number",
        ),
        (
            multichoice(stem("Big?"), '<answer fraction="150"><text>a</text></answer>'),
            7,
            "the answer's fraction '150' is not within -100 and 100",
        ),
        (
            multichoice(stem("One?"), '<answer fraction="100"><text>a</text></answer>'),
            3,
            "a multiple-choice question needs two answers",
        ),
        (
            multichoice(
                stem("Empty?"),
                '<answer fraction="100"><text>a</text></answer>\n<answer><text> </text></answer>',
            ),
            8,
            "answer 2 has no text",
        ),
        (
            HEAD + '<question type="truefalse">\n' + stem("T?") + "\n"
            '<answer fraction="100"><text>true</text></answer>\n</question>\n</quiz>\n',
            3,
            "a true/false question has 2 answers, not 1",
        ),
        (
            multichoice(stem("A?")).replace("</quiz>\n", "")
            + multichoice(stem("B?")).removeprefix(HEAD),
            10,
            "a question with the title 'Q' is already on line 3",
        ),
    ],
)
def test_malformed_input_is_refused_with_its_line(text, line, message):
    caught = refused(text)
    assert caught.line == line and message in caught.message, str(caught)


def test_more_choices_than_the_app_allows_are_refused():
    answers = '<answer fraction="100"><text>right</text></answer>\n' + "".join(
        f'<answer fraction="0"><text>wrong {n}</text></answer>\n' for n in range(26)
    )
    caught = refused(multichoice(stem("Which?"), answers))
    assert (caught.line, caught.message) == (
        33,
        "the question has 27 answers; Studyhall takes at most 26",
    )
    (ok,) = questions(multichoice(stem("Which?"), answers.rsplit("<answer", 1)[0])).values()
    assert len(ok.choices) == 26


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE quiz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<quiz><question type="multichoice"><questiontext><text>&lol9;</text></questiontext>
<answer fraction="100"><text>a</text></answer><answer><text>b</text></answer></question></quiz>
"""
EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz><question type="multichoice"><questiontext><text>&secret;</text></questiontext>
<answer fraction="100"><text>a</text></answer><answer><text>b</text></answer></question></quiz>
"""
DTD_ONLY = (
    '<?xml version="1.0"?>\n\n<!DOCTYPE quiz SYSTEM "http://127.0.0.1:9/quiz.dtd">\n<quiz/>\n'
)


@pytest.mark.parametrize(("text", "line"), [(BILLION_LAUGHS, 2), (EXTERNAL, 2), (DTD_ONLY, 3)])
def test_a_dtd_or_entity_is_refused_without_expanding_or_fetching_it(text, line, monkeypatch):
    expanded: list[str] = []
    real = moodle_xml._Tree.data
    monkeypatch.setattr(
        moodle_xml._Tree, "data", lambda self, d: (expanded.append(d), real(self, d))
    )
    with pytest.raises(ImportRefused) as caught:
        parse_document(text.encode(), "evil.xml")
    assert caught.value.line == line
    assert caught.value.message.startswith("a DOCTYPE or entity declaration is not allowed")
    assert "lol" not in "".join(expanded) and "root:" not in "".join(expanded)


def test_crlf_and_a_bom_read_as_plain_line_ends():
    plain = parse_document(SAMPLE, "moodle.xml")
    for data in (SAMPLE.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + SAMPLE):
        assert parse_document(data, "moodle.xml") == plain
    crlf, _ = parse(SAMPLE.decode().replace("\n", "\r\n"))  # the parser's own line count
    assert [q.line for q in crlf.question_sets[0].questions] == [8, 24, 35]


def test_detected_and_not_claiming_other_formats(seeded):
    assert detect_format(SAMPLE.decode(), "moodle.xml") == "moodle-xml"
    assert detect_format("\ufeff<!-- a -->\n<!-- b -->\n<quiz>\n</quiz>", "x") == "moodle-xml"
    assert not moodle_xml.looks_like("<quizzes/>") and not moodle_xml.looks_like("x <quiz>")
    paths = [*SEED_DIR.iterdir(), *SHIPPED_SEED_DIR.iterdir(), *SAMPLES.iterdir()]
    documents = [path.read_text(encoding="utf-8") for path in sorted(paths) if path.is_file()]
    documents.append(json.dumps(exported(seeded), ensure_ascii=False, indent=2))
    for text in documents:
        if text != SAMPLE.decode():
            assert not moodle_xml.looks_like(text)
    assert "moodle-xml" in FORMATS and PROJECT_ROOT.is_dir()


def _stored(db) -> dict[str, tuple[int, int, str, list[tuple[str, bool]]]]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        rows = session.execute(
            select(Question.key, Question.id, Question.revision, Topic.slug)
            .join(QuestionSet, Question.set_id == QuestionSet.id)
            .outerjoin(Topic, Question.topic_id == Topic.id)
        ).all()
        choices = session.execute(
            select(Question.key, Choice.text_md, Choice.is_correct)
            .join(Choice)
            .order_by(Choice.position)
        ).all()
    return {
        key: (qid, revision, topic, [(t, c) for k, t, c in choices if k == key])
        for key, qid, revision, topic in rows
    }


def test_import_again_changes_nothing_and_an_edit_updates_in_place(db):
    report = import_file(db, SAMPLE, "moodle.xml")
    assert report.counts["questions_created"] == 4 and report.counts["topics_created"] == 3
    before, content = _stored(db), exported(db)
    again = import_file(db, SAMPLE, "moodle.xml")
    assert again.counts.get("questions_unchanged") == 4 and "questions_created" not in again.counts
    assert _stored(db) == before and exported(db) == content
    # a renamed question keeps its idnumber, so it is the same question
    edited = SAMPLE.replace(b"<text>BGP</text>", b"<text>EIGRP</text>").replace(
        b"<text>OSPF</text></name>", b"<text>Link state</text></name>"
    )
    report = import_file(db, edited, "moodle.xml")
    assert report.counts["questions_updated"] == 1 and "questions_created" not in report.counts
    after = _stored(db)
    assert after["net-ospf"][:2] == (before["net-ospf"][0], before["net-ospf"][1] + 1)
    assert after["net-ospf"][3][2] == ("EIGRP", False)


def test_a_refused_file_saves_nothing(seeded):
    rows = table_rows(seeded)
    with pytest.raises(ImportRefused):
        import_file(seeded, SAMPLE.replace(b"</quiz>", b"</quiz"), "moodle.xml")
    assert table_rows(seeded) == rows


def _read(db: Database) -> list[ExportedQuestion]:
    with db.session_scope() as session:
        return read_questions(session)


def _comparable(questions: list[ExportedQuestion]) -> list[tuple[object, ...]]:
    """What a Moodle XML round trip keeps: text, choices with their feedback, right answers,
    explanation, topic path, and one answer or several."""
    return sorted(
        (q.stem, q.choices, q.explanation, q.topic_path, q.kind == "multi") for q in questions
    )


def test_the_shipped_bank_round_trips_through_the_moodle_xml_importer(db, other_db):  # noqa: F811
    load_seed(db, seed_dir=SHIPPED_SEED_DIR)
    original = _read(db)
    assert len(original) == 383
    text = write_moodle_xml(original).encode()
    report = import_file(other_db, text, "bank.xml", 0.99)
    assert report.format == "moodle-xml"
    assert report.warnings == [] and report.counts["questions_created"] == 383
    assert _comparable(_read(other_db)) == _comparable(original)
    with db.session_scope() as session, other_db.session_scope() as copy:
        titles = set(session.scalars(select(Topic.title)))
        assert set(copy.scalars(select(Topic.title))) == titles
    again = import_file(other_db, text, "bank.xml", 0.99)
    assert again.counts.get("questions_unchanged") == 383


def test_studyhall_import_loads_it_into_the_database(cli_env, tmp_path, monkeypatch, db):
    monkeypatch.chdir(tmp_path)
    Path("moodle.xml").write_bytes(SAMPLE)
    runner = CliRunner()
    result = runner.invoke(cli, ["import", "moodle.xml"])
    assert result.exit_code == 0, result.output
    assert "moodle.xml (moodle-xml)" in result.output and "skipped" in result.output
    assert row_counts(db)["question"] == 4 and row_counts(db)["topic"] == 3
    assert runner.invoke(cli, ["import", "--format", "moodle-xml", "moodle.xml"]).exit_code == 0
    assert row_counts(db)["question"] == 4
    Path("evil.xml").write_text(EXTERNAL)
    result = runner.invoke(cli, ["import", "evil.xml"])
    assert result.exit_code != 0 and "evil.xml:2" in result.output
    assert row_counts(db)["question"] == 4


def test_the_web_form_imports_it_and_lists_the_skipped(user_client, db):
    client = user_client("writer", role="author")
    assert '<option value="moodle-xml">' in client.get("/author/import").text
    response = client.post(
        "/author/import",
        files={"document": ("moodle.xml", SAMPLE, "application/xml")},
        data={"format": ""},
    )
    assert response.status_code == 200, response.text
    assert "Imported moodle.xml" in response.text and "(moodle-xml)" in response.text
    assert "line 41: skipped: a question of type &#39;essay&#39;" in response.text
    assert row_counts(db)["question"] == 4
    assert "link-state" in client.get(f"/sets/{SET}").text


def test_the_web_form_refuses_an_entity_and_names_the_line(user_client, db):
    client = user_client("writer", role="author")
    response = client.post(
        "/author/import",
        files={"document": ("laughs.xml", BILLION_LAUGHS.encode(), "application/xml")},
        data={"format": "moodle-xml"},
    )
    assert response.status_code == 422
    assert "laughs.xml, line 2: a DOCTYPE or entity declaration is not allowed" in response.text
    assert row_counts(db)["question"] == 0


XML_TEXT = st.text(
    alphabet=st.sampled_from('<>/="&;![]?-quiz question type text ab\n'), max_size=200
)


@settings(settings.get_profile(PROFILE))
@given(st.sampled_from([HEAD, "<quiz>", ""]), XML_TEXT | st.text())
def test_any_text_gives_a_bundle_or_a_refusal(head, body):
    text = head + body
    try:
        moodle_xml.parse(text, "any.xml")
    except ImportRefused as caught:
        assert 1 <= caught.line <= text.count("\n") + text.count("\r") + 1


def test_a_mutated_file_imports_or_is_refused_cleanly(db):
    @settings(settings.get_profile(PROFILE))
    @given(st.lists(mutation(len(SAMPLE)), min_size=1, max_size=3))
    def check(mutations: list[tuple[str, int, object]]) -> None:
        data = SAMPLE
        for kind, at, arg in mutations:
            data = mutate(data, kind, at, arg)
        before = table_rows(db)
        try:
            import_file(db, data, "moodle.xml", format="moodle-xml")
        except ImportRefused as caught:
            lines = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") + 1
            assert 1 <= caught.line <= lines, str(caught)
            assert table_rows(db) == before

    check()
