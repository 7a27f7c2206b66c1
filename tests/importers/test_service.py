import json
import random
from dataclasses import asdict
from pathlib import Path

import pytest

from app.content.markdown import render
from app.importers.errors import ImportRefused
from app.importers.service import detect_format, parse_document, seed_files
from tests.factories import SEED_DIR, exported, import_file, row_counts, snapshot

QA_SEED = SEED_DIR / "000_21c8a85df645b7bb.txt"
NOTE_SEED = SEED_DIR / "004_7ac6168e0636c6eb.txt"
CATALOG_SEED = SEED_DIR / "catalog.toml"
SET = "nca-inference-optimization-tensorrt-5"
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(1)>"


def edited_seed(old: str, new: str) -> bytes:
    text = QA_SEED.read_text(encoding="utf-8")
    assert text.count(old) == 1
    return text.replace(old, new).encode()


def catalog(body: str) -> bytes:
    return ('format = "studyhall.catalog/1"\n' + body).encode()


def export_with(*missing: str, **question_fields) -> bytes:
    """A JSON export adding a set with one question; fields may be replaced or left out."""
    question = {
        "id": "extra/1",
        "set": "extra",
        "stem": "Extra?",
        "choices": [{"text": "Yes", "correct": True}, {"text": "No", "correct": False}],
        **question_fields,
    }
    for field in missing:
        del question[field]
    document = {
        "format": "studyhall.content/1",
        "question_sets": [{"slug": "extra", "title": "Extra"}],
        "questions": [question],
    }
    return json.dumps(document, indent=2).encode()


def random_binary() -> bytes:
    """Four hundred random bytes with a NUL at offset 150."""
    data = bytearray(random.Random(20261202).randbytes(400))
    data[150] = 0
    return bytes(data)


RANDOM_BYTES = random_binary()


BAD_INPUTS = [
    pytest.param(
        "set.txt",
        edited_seed(
            "- CUDA Lite runtime packaged specifically for Jetson",
            "- CUDA Lite runtime packaged specifically for Jetson (Correct answer)",
        ),
        None,
        11,
        "Question 2 has more than one option marked '(Correct answer)' (lines 10, 11)",
        id="two-correct-markers",
    ),
    pytest.param(
        "set.txt",
        edited_seed(
            "Correct answer: IInt8EntropyCalibrator2", "Correct answer: IInt8EntropyCalibrator3"
        ),
        None,
        21,
        "Question 3: 'Correct answer: IInt8EntropyCalibrator3' matches none of its options",
        id="declared-matches-no-option",
    ),
    pytest.param(
        "set.txt",
        edited_seed(
            "without rebuilding it from scratch (Correct answer)",
            "without rebuilding it from scratch",
        ),
        None,
        23,
        "Question 4 has no option marked '(Correct answer)'",
        id="no-marked-option",
    ),
    pytest.param(
        "set.txt",
        edited_seed(
            "Correct answer: It designates a specific tensor as a network output so TensorRT "
            "includes it in the engine's binding list",
            "Correct answer: It signals the end of the network graph and triggers optimization",
        ),
        None,
        35,
        "Question 5: 'Correct answer:' names a different option than the one marked '(Correct answer)'",
        id="declared-disagrees-with-marker",
    ),
    pytest.param("empty.txt", b"", None, 1, "the file is empty", id="empty"),
    pytest.param("blank.txt", b" \n\t\r\n\n", None, 1, "the file is empty", id="whitespace-only"),
    pytest.param(
        "random.bin",
        RANDOM_BYTES,
        None,
        RANDOM_BYTES[:150].count(b"\n") + 1,
        "this is a binary file, not text (it contains NUL bytes)",
        id="random-bytes-with-nul",
    ),
    pytest.param(
        "image.png",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        None,
        3,
        "this is a binary file, not text (it contains NUL bytes)",
        id="png",
    ),
    pytest.param(
        "latin1.txt",
        "Quiz - Questions and Answers\nQuestion 1: Où?\n".encode("latin-1"),
        None,
        2,
        "the file is not UTF-8 text (invalid byte at offset ",
        id="invalid-utf8",
    ),
    pytest.param(
        "diary.txt",
        b"Dear diary,\nToday I studied TensorRT.\n",
        None,
        1,
        "unrecognised format: expected a Q&A page (title ending in '— Questions and Answers')",
        id="unknown-format",
    ),
    pytest.param(
        "note.txt",
        b"My Note\n\nSome prose, no outline.\n",
        "note",
        1,
        "no numbered outline ('  1. ...') was found",
        id="note-without-outline",
    ),
    pytest.param(
        "note.txt",
        b"\n\n  1. First\n    1. Second\n",
        None,
        3,
        "no title was found above the outline",
        id="note-without-title",
    ),
    pytest.param(
        "note.txt",
        NOTE_SEED.read_bytes(),
        "qa",
        1,
        "the title line must end with ' — Questions and Answers'",
        id="note-read-as-qa",
    ),
    pytest.param(
        "catalog.toml",
        catalog("\n[[topics]\nslug = 'x'\n"),
        None,
        3,
        "invalid TOML: ",
        id="catalog-invalid-toml",
    ),
    pytest.param(
        "catalog.toml",
        catalog(
            f'\n[[topics]]\nslug = "new-topic"\ntitle = "New"\n\n[questions."{SET}/1"]\ntopic = "no-such-topic"\n'
        ),
        None,
        7,
        "unknown topic 'no-such-topic'",
        id="catalog-unknown-topic",
    ),
    pytest.param(
        "catalog.toml",
        catalog(
            f'\n[questions."{SET}/1"]\ntopic = "sparsity"\n\n[questions."{SET}/99"]\ntopic = "sparsity"\n'
        ),
        None,
        6,
        f"no question '{SET}/99'",
        id="catalog-missing-question",
    ),
    pytest.param(
        "catalog.toml",
        catalog(f'\n[questions."{SET}/2"]\nnotes = ["tensorrt-note-2#no-such-section"]\n'),
        None,
        3,
        "no note section 'tensorrt-note-2#no-such-section' (expected 'note#anchor')",
        id="catalog-missing-section",
    ),
    pytest.param(
        "catalog.toml",
        catalog(
            '\n[[topics]]\nslug = "inference-optimization-tensorrt"\ntitle = "Root"\nparent = "sparsity"\n'
        ),
        None,
        4,
        "topic 'inference-optimization-tensorrt' is its own ancestor",
        id="catalog-topic-cycle",
    ),
    pytest.param(
        "export.json",
        b'{\n  "format": "studyhall.content/1",\n  "topics": [\n}\n',
        None,
        4,
        "invalid JSON: ",
        id="json-invalid",
    ),
    pytest.param(
        "export.json",
        b'{"format": "studyhall.catalog/1"}',
        None,
        1,
        'not a Studyhall export: "format" must be "studyhall.content/1"',
        id="json-wrong-format",
    ),
    pytest.param(
        "export.json",
        export_with("choices"),
        None,
        11,
        "questions.0.choices: Field required",
        id="json-question-without-choices",
    ),
    pytest.param(
        "export.json",
        export_with(topic="no-such-topic"),
        None,
        11,
        "unknown topic 'no-such-topic'",
        id="json-unknown-topic",
    ),
]


@pytest.mark.parametrize(("file", "data", "format", "line", "message"), BAD_INPUTS)
def test_bad_input_is_refused_and_the_database_is_untouched(
    seeded, file, data, format, line, message
):
    before = snapshot(seeded)
    with pytest.raises(ImportRefused) as caught:
        import_file(seeded, data, file, 0.12, format)
    error = caught.value
    assert (error.file, error.line) == (file, line), str(error)
    assert error.message.startswith(message)
    assert str(error).startswith(f"{file}:{line}: {message}")
    assert snapshot(seeded) == before


def test_import_returns_the_report(db):
    report = import_file(db, QA_SEED.read_bytes(), "seed/000.txt", 0.12)
    assert (report.file, report.format) == ("seed/000.txt", "qa")
    assert report.counts == {
        "dropped_lines": 2,
        "questions": 7,
        "question_sets_created": 1,
        "questions_created": 7,
        "suggested_links": 0,
    }
    assert [w.line for w in report.warnings] == [51]


def test_import_of_the_seed_in_order_links_content(db):
    reports = [import_file(db, p.read_bytes(), p.name, 0.12) for p in seed_files(SEED_DIR)]
    assert [r.format for r in reports] == ["qa", "note", "catalog", "errata"]
    assert reports[2].counts["explicit_links"] == 2
    assert reports[2].counts["placed"] == 9
    assert reports[3].counts["errata_created"] == 4


@pytest.mark.parametrize(
    ("path", "format"), [(QA_SEED, "qa"), (NOTE_SEED, "note"), (CATALOG_SEED, "catalog")]
)
def test_detect_format_of_the_seed(path, format):
    assert detect_format(path.read_text(encoding="utf-8"), path.name) == format


def test_detect_format_of_an_export(seeded):
    assert detect_format(json.dumps(exported(seeded), indent=2), "export.json") == "json"


def test_detect_format_refuses_unknown_text():
    with pytest.raises(ImportRefused) as caught:
        detect_format("hello\n", "hello.txt")
    assert caught.value.line == 1
    assert caught.value.message == (
        "unrecognised format: expected a Q&A page (title ending in '— Questions and Answers'), "
        "a note with a numbered outline, a catalog or errata (TOML), a Studyhall JSON export, "
        "a GIFT file (Moodle: '::title::', answers in '{...}'), an Aiken file (Moodle: "
        "lettered choices and 'ANSWER: X'), a Moodle XML file ('<quiz>') or a CSV file with "
        "a header naming the columns 'question', 'choice_a', 'choice_b' and 'right'"
    )


SAMPLES = Path(__file__).parent / "samples"
GIFT = (SAMPLES / "moodle.gift").read_text(encoding="utf-8")
AIKEN = (SAMPLES / "quiz.aiken.txt").read_text(encoding="utf-8")
MOODLE_XML = (SAMPLES / "moodle.xml").read_text(encoding="utf-8")
CSV = "question,choice_a,choice_b,right\nWhich one?,This,That,A\n"


@pytest.mark.parametrize(
    ("name", "text", "format"),
    [
        ("bank.gift", GIFT, "gift"),
        ("BANK.GIFT.TXT", GIFT, "gift"),
        ("quiz.aiken.txt", AIKEN, "aiken"),
        ("export.xml", MOODLE_XML, "moodle-xml"),
        ("rows.csv", CSV, "csv"),
        # content no detector recognises: the name decides, and its parser names the line
        ("odd.gift", "Which one? {\n", "gift"),
        ("odd.aiken.txt", "Which one?\nA. This\n", "aiken"),
    ],
)
def test_a_file_name_names_the_format(name, text, format):
    assert detect_format(text, name) == format


@pytest.mark.parametrize(
    ("name", "text", "said", "found"),
    [
        ("quiz.gift", AIKEN, "gift", "aiken"),
        ("quiz.aiken.txt", GIFT, "aiken", "gift"),
        ("quiz.xml", CSV, "moodle-xml", "csv"),
        ("quiz.csv", MOODLE_XML, "csv", "moodle-xml"),
    ],
)
def test_a_name_and_content_that_disagree_are_refused_on_line_1(name, text, said, found):
    with pytest.raises(ImportRefused) as caught:
        parse_document(text.encode(), name)
    assert str(caught.value) == (
        f"{name}:1: the file's name says {said} but its content is {found}: rename the file "
        "or choose the format"
    )


def test_a_chosen_format_wins_over_the_name():
    bundle, report = parse_document(AIKEN.encode(), "quiz.gift", "aiken")
    assert report.format == "aiken" and len(bundle.question_sets[0].questions) == 2


def test_a_name_that_says_nothing_leaves_the_content_to_decide():
    assert detect_format(GIFT, "bank.txt") == "gift"
    assert detect_format(AIKEN, "quiz.txt") == "aiken"


def test_parse_document_takes_a_format_and_refuses_an_unknown_one():
    bundle, report = parse_document(NOTE_SEED.read_bytes(), "n.txt", "note")
    assert (report.format, bundle.notes[0].title) == ("note", "TensorRT Note (2)")
    with pytest.raises(ImportRefused) as caught:
        parse_document(NOTE_SEED.read_bytes(), "n.txt", "xml")
    assert (
        str(caught.value)
        == "n.txt:1: unknown format 'xml'; choose one of moodle-xml, json, catalog, qa, note, "
        "errata, csv, gift, aiken"
    )


def crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def bom(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


@pytest.mark.parametrize("path", [QA_SEED, NOTE_SEED, CATALOG_SEED], ids=["qa", "note", "catalog"])
@pytest.mark.parametrize(
    "variant", [crlf, bom, lambda data: bom(crlf(data))], ids=["crlf", "bom", "bom-crlf"]
)
def test_crlf_and_bom_parse_the_same_as_lf(path, variant):
    data = path.read_bytes()
    assert b"\r" not in data
    expected_bundle, expected_report = parse_document(data, path.name)
    bundle, report = parse_document(variant(data), path.name)
    assert asdict(bundle) == asdict(expected_bundle)
    assert asdict(report) == asdict(expected_report)


def test_crlf_seed_imports_over_the_lf_seed_without_change(seeded):
    before = exported(seeded), row_counts(seeded)
    for path in seed_files(SEED_DIR):
        report = import_file(seeded, bom(crlf(path.read_bytes())), f"seed/{path.name}", 0.12)
        assert not {"questions_updated", "notes_updated", "topics_created"} & set(report.counts)
    assert (exported(seeded), row_counts(seeded)) == before


def test_hostile_content_is_stored_and_rendered_as_text(db):
    page = (
        f"Hostile — Questions and Answers\nQuestion 1: Is {HOSTILE} safe?\n"
        f"- No {HOSTILE} (Correct answer)\n- Yes\nCorrect answer: No {HOSTILE}\n"
        f"Because {HOSTILE}.\n"
    )
    note = f"someone\nHostile Note\n  1. Top {HOSTILE}\n    1. Item {HOSTILE}\n"
    import_file(db, page.encode(), "page.txt", 0.12)
    import_file(db, note.encode(), "note.txt", 0.12)
    document = exported(db)
    (question,) = document["questions"]
    texts = [
        question["stem"],
        question["explanation"],
        *(choice["text"] for choice in question["choices"]),
        document["notes"][0]["markdown"],
    ]
    html = "".join(render(markdown) for markdown in texts)
    assert "<script" not in html
    assert "<img" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 5
    assert html.count("&lt;img src=x onerror=alert(1)&gt;") == 5


def test_seed_files_put_the_catalog_last_and_skip_hidden_files(tmp_path):
    for name in ("errata.toml", "b.toml", "c.txt", "a.txt", ".hidden.txt"):
        (tmp_path / name).write_text("x")
    (tmp_path / "folder").mkdir()
    assert [p.name for p in seed_files(tmp_path)] == ["a.txt", "c.txt", "b.toml", "errata.toml"]
    assert [p.name for p in seed_files(SEED_DIR)] == [
        "000_21c8a85df645b7bb.txt",
        "004_7ac6168e0636c6eb.txt",
        "catalog.toml",
        "errata.toml",
    ]
