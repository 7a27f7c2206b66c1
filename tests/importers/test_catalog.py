import pytest

from app.content.bundle import Placement
from app.importers import catalog
from app.importers.errors import ImportRefused
from tests.factories import SEED_DIR

SEED = SEED_DIR / "catalog.toml"
SET = "nca-inference-optimization-tensorrt-5"
HEADER = 'format = "studyhall.catalog/1"\n'


def seed_text() -> str:
    return SEED.read_text(encoding="utf-8")


def refusal(text: str, file: str = "catalog.toml") -> ImportRefused:
    with pytest.raises(ImportRefused) as caught:
        catalog.parse(text, file)
    return caught.value


def test_seed_catalog_topics_form_a_tree():
    bundle, report = catalog.parse(seed_text(), "seed/catalog.toml")
    assert [(t.slug, t.parent) for t in bundle.topics] == [
        ("inference-optimization-tensorrt", None),
        ("precision-int8-calibration", "inference-optimization-tensorrt"),
        ("sparsity", "inference-optimization-tensorrt"),
        ("engine-building-refit", "inference-optimization-tensorrt"),
        ("deployment-jetson-dla", "inference-optimization-tensorrt"),
        ("throughput-latency", "inference-optimization-tensorrt"),
    ]
    assert bundle.topics[1].title == "Precision & INT8 calibration"
    assert bundle.topics[1].description.startswith("FP32, TF32, FP16 and INT8 inference")
    assert [t.line for t in bundle.topics] == [6, 11, 17, 23, 29, 35]
    assert report.format == "catalog"
    assert report.counts == {"topics": 6, "placements": 9, "exams": 1}


def test_seed_catalog_places_content_and_links_two_questions():
    bundle, _ = catalog.parse(seed_text(), "seed/catalog.toml")
    assert bundle.placements[0] == Placement(
        "question_set", SET, "inference-optimization-tensorrt", 40
    )
    assert bundle.placements[-1] == Placement(
        "note", "tensorrt-note-2", "precision-int8-calibration", 43
    )
    questions = {p.ref: p for p in bundle.placements if p.kind == "question"}
    assert list(questions) == [f"{SET}/{n}" for n in range(1, 8)]
    assert questions[f"{SET}/3"] == Placement(
        "question",
        f"{SET}/3",
        "precision-int8-calibration",
        52,
        ["tensorrt-note-2#working-with-mixed-precision"],
    )
    assert questions[f"{SET}/6"].notes == [
        "tensorrt-note-2#working-with-reformat-free-network-i-o-tensors"
    ]
    assert [p.ref for p in questions.values() if p.notes is not None] == [f"{SET}/3", f"{SET}/6"]
    assert (bundle.question_sets, bundle.notes) == ([], [])


def test_placement_lines_point_at_their_own_table():
    text = HEADER + '\n[questions."s/10"]\ntopic = "a"\n\n[questions."s/1"]\ntopic = "b"\n'
    bundle, _ = catalog.parse(text, "c.toml")
    assert [(p.ref, p.line) for p in bundle.placements] == [("s/10", 3), ("s/1", 6)]


def test_topic_lines_point_at_their_slug_not_at_a_parent_naming_them():
    text = (
        HEADER
        + '[[topics]]\nslug = "a"\ntitle = "A"\nparent = "b"\n\n[[topics]]\nslug = "b"\ntitle = "B"\n'
    )
    bundle, _ = catalog.parse(text, "c.toml")
    assert [(t.slug, t.line) for t in bundle.topics] == [("a", 3), ("b", 8)]


def test_bare_keys_are_accepted():
    bundle, _ = catalog.parse(HEADER + "[notes.my-note]\ntopic = 'a'\n", "c.toml")
    assert bundle.placements == [Placement("note", "my-note", "a", 2)]


def test_empty_catalog_is_fine():
    bundle, report = catalog.parse(HEADER, "c.toml")
    assert (bundle.topics, bundle.placements) == ([], [])
    assert report.counts == {"topics": 0, "placements": 0}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('title = "no format"\n', 1, 'format must be "studyhall.catalog/1"'),
        ('\n\nformat = "studyhall.catalog/2"\n', 3, 'format must be "studyhall.catalog/1"'),
        (HEADER + "\n[extras]\nx = 1\n", 3, "unknown table 'extras'"),
        (HEADER + "\n[[topics]]\ntitle = 'A'\n", 3, "every [[topics]] entry needs a slug"),
        (HEADER + "\n[[topics]]\nslug = 'a'\n", 4, "topic 'a' needs a title"),
        (HEADER + "[[topics]]\nslug = 'a'\ntitle = '  '\n", 3, "topic 'a' needs a title"),
        (
            HEADER + "[[topics]]\nslug = 'Not A Slug'\ntitle = 'A'\n",
            3,
            "topic slug 'Not A Slug' must be lower-case words joined by '-'",
        ),
        (HEADER + "topics = 'a'\n", 2, "topics must be an array of tables ([[topics]])"),
        (HEADER + "questions = 'a'\n", 2, "questions must be a table"),
        (HEADER + "[questions]\n'set/1' = 'a'\n", 3, "'set/1' must be a table"),
        (
            HEADER + "\n[notes.n]\nnotes = ['n#a']\n",
            3,
            "'n': notes must be a list of 'note#anchor' strings on a question",
        ),
        (
            HEADER + "\n[questions.'set/1']\nnotes = 'n#a'\n",
            3,
            "'set/1': notes must be a list of 'note#anchor' strings on a question",
        ),
        (HEADER + "\n[question_sets.s]\ntopic = 3\n", 3, "'s': topic must be a topic slug"),
    ],
    ids=[
        "no-format",
        "wrong-format",
        "unknown-table",
        "topic-without-slug",
        "topic-without-title",
        "topic-blank-title",
        "topic-bad-slug",
        "topics-not-array",
        "questions-not-table",
        "placement-not-table",
        "notes-on-a-note",
        "notes-not-a-list",
        "topic-not-a-string",
    ],
)
def test_bad_catalogs_are_refused_naming_file_and_line(text, line, message):
    error = refusal(text, "cat.toml")
    assert (error.file, error.line, error.message) == ("cat.toml", line, message)
    assert str(error) == f"cat.toml:{line}: {message}"


@pytest.mark.parametrize(
    ("text", "line"),
    [(HEADER + "[[topics]\nslug = 'a'\n", 2), (HEADER + '\n\ntitle = "x\n', 4)],
    ids=["unclosed-table-header", "unterminated-string"],
)
def test_invalid_toml_is_refused_at_the_line_the_parser_names(text, line):
    error = refusal(text, "cat.toml")
    assert error.line == line
    assert error.message.startswith("invalid TOML: ")
    assert error.message.endswith(f"(at line {line}, column {error.message.split()[-1]}")


def test_looks_like_wants_the_format_line():
    assert catalog.looks_like(seed_text())
    assert catalog.looks_like('  format = "studyhall.catalog/1"')
    assert not catalog.looks_like('[[topics]]\nslug = "a"\n')
    assert not catalog.looks_like('{"format": "studyhall.catalog/1"}')


def _placements(count: int, last: str = "topic = 'a'") -> str:
    tables = "".join(f"[questions.'set/{n}']\ntopic = 'a'\n" for n in range(count))
    return HEADER + tables + f"[questions.'set/last']\n{last}\n"


SHAPES = {
    "dotted-key": (HEADER + "1. " * 3_000 + "\n", 2, "at most 15 dotted parts"),
    "quoted-dotted-key": (HEADER + '"a".' * 2_000 + "b = 1\n", 2, "at most 15 dotted parts"),
    "dotted-header": (HEADER + "[" + "a." * 4_000 + "a]\n", 2, "at most 15 dotted parts"),
    "long-line": (HEADER + "1. " * 300_000 + "\n", 2, "the line is 900,000 characters long"),
    "too-large": (HEADER + "# a comment\n" * 90_000, 83_332, "at most 1,000,000 characters"),
}


@pytest.mark.parametrize(("text", "line", "message"), SHAPES.values(), ids=SHAPES.keys())
def test_shapes_the_toml_parser_is_slow_on_are_refused_before_it_runs(
    text, line, message, monkeypatch
):
    def parser_must_not_run(_text):
        raise AssertionError("the TOML parser ran on a hostile shape")

    monkeypatch.setattr(catalog.tomllib, "loads", parser_must_not_run)
    error = refusal(text, "cat.toml")
    assert (error.line, message in error.message) == (line, True), error


def test_deep_nesting_is_refused_at_the_line_it_gets_too_deep():
    error = refusal(HEADER + "\n\na = " + "[" * 5_000 + "\n", "cat.toml")
    assert (error.line, "nested too deeply" in error.message) == (4, True), error


def test_a_bad_last_placement_is_located_without_searching_the_text(text_searches):
    searches = text_searches(catalog)
    error = refusal(_placements(25_000, "topic = 3"), "cat.toml")
    assert (error.line, "topic must be a topic slug" in error.message) == (50_002, True), error
    assert searches == []


def test_dotted_words_in_strings_and_comments_are_not_keys():
    dots = ".".join(["v"] * 40)
    text = HEADER + f"# {dots}\n[[topics]]\nslug = 'a'\ntitle = '{dots}'\n"
    bundle, _ = catalog.parse(text, "c.toml")
    assert bundle.topics[0].title == dots


def test_a_large_catalog_is_read_in_one_pass(text_searches):
    searches = text_searches(catalog)
    bundle, _ = catalog.parse(_placements(25_000), "c.toml")
    assert (len(bundle.placements), bundle.placements[-1].line) == (25_001, 50_002)
    assert searches == []


@pytest.mark.parametrize(
    ("table", "entry", "last_line"),
    [
        ("[questions]\n", "'set/{n}' = {{ topic = 'a' }}\n", 25_002),
        ("", "questions.'set/{n}'.topic = 'a'\n", 25_001),
        ("[questions]\n", "'set/{n}'.topic = 'a'\n", 25_002),
    ],
    ids=["inline-tables", "dotted-keys", "dotted-keys-in-a-table"],
)
def test_placements_not_in_tables_of_their_own_are_read_in_one_pass(
    text_searches, table, entry, last_line
):
    searches = text_searches(catalog)
    text = HEADER + table + "".join(entry.format(n=n) for n in range(25_000))
    bundle, _ = catalog.parse(text, "c.toml")
    lines = [(p.ref, p.line) for p in bundle.placements]
    assert (lines[0], lines[-1]) == (("set/0", last_line - 24_999), ("set/24999", last_line))
    assert searches == []


def test_topics_in_an_inline_array_are_read_in_one_pass(text_searches):
    searches = text_searches(catalog)
    topics = ",\n".join(f"{{ slug = 't{n}', title = 'T' }}" for n in range(5_000))
    bundle, _ = catalog.parse(HEADER + f"topics = [\n{topics}\n]\n", "c.toml")
    assert {t.line for t in bundle.topics} == {2}
    assert searches == []
