"""Search over the seed content and over content made for the test, on either database."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.accounts.service import Viewer
from app.content.editor import retire_question
from app.search import terms
from app.search.queries import TOTAL_CAP
from app.search.service import search
from app.search.terms import Term, marked_html, parse_query
from tests.factories import (
    SHIPPED_SEED_DIR,
    a_note,
    a_question,
    a_set,
    load,
    load_seed,
    question_id,
)

CALIBRATION_STEM = "algorithm is most suitable"


def find(db, query: str, **filters):  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        return search(session, query, **filters)


def test_calibration_finds_the_question_and_the_note_section_highlighted(seeded):
    results = find(seeded, "calibration")
    question = next(q for q in results.questions if CALIBRATION_STEM in q.stem_html)
    assert "<mark>calibration</mark>" in question.stem_html
    section = next(n for n in results.notes if n.anchor == "working-with-mixed-precision")
    assert "<mark>calibration</mark>" in section.snippet_html.lower()
    assert section.note_slug == "tensorrt-note-2"


@pytest.mark.parametrize(
    ("query", "question_text", "note_text"),
    [
        ("IInt8EntropyCalibrator2", "IInt8EntropyCalibrator2", None),
        ("kSTRICT_TYPES", None, "kSTRICT_TYPES"),
        ("2:4", "2:4", None),
        ("kINT8", None, "kINT8"),
    ],
)
def test_code_like_terms_find_what_contains_them(seeded, query, question_text, note_text):
    results = find(seeded, query)
    if question_text:
        assert results.questions
        hit = results.questions[0]
        assert f"<mark>{question_text}</mark>" in hit.stem_html + hit.snippet_html
    else:
        assert not results.questions
    if note_text:
        assert results.notes
        assert f"<mark>{note_text}</mark>" in results.notes[0].snippet_html
    else:
        assert not results.notes


HOSTILE_QUERIES = [
    '"',
    '"calibration',
    'calibration"',
    "'",
    "*",
    "calib*",
    "**",
    "* calibration",
    "-calibration",
    "NOT calibration",
    "calibration OR sparsity",
    "calibration AND",
    "NEAR(calibration sparsity)",
    "NEAR(calibration sparsity, 2)",
    "calibration NEAR/2 sparsity",
    "((calibration",
    "calibration))",
    "title:calibration",
    "^calibration",
    "{title body}: calibration",
    "a & b | !c <-> d:*",
    "calibration\x00sparsity",
    "\x00",
    "\ue000calibration\ue001",
    "'; DROP TABLE question; --",
    "%_%",
    "\\",
    "🙂 calibration ünïcödé",
    "x" * 10_000,
    "calibration " * 1_000,
    " ",
    "",
]


@pytest.mark.parametrize("query", HOSTILE_QUERIES, ids=range(len(HOSTILE_QUERIES)))
def test_no_query_makes_the_search_fail(seeded, query):
    results = find(seeded, query)
    assert results.total >= 0
    for hit in (*results.questions, *results.notes):
        assert "<" not in hit.snippet_html.replace("<mark>", "").replace("</mark>", "")


def test_operators_and_quotes_are_words_not_syntax(seeded):
    assert find(seeded, "calibration AND table").notes == find(seeded, "calibration table").notes
    assert find(seeded, "NOT calibration").total == find(seeded, "calibration").total
    assert find(seeded, '"calibration table"').notes
    assert not find(seeded, '"table calibration"').total
    assert find(seeded, "calib*").questions
    assert find(seeded, "(calibration)").questions


def test_filters_by_type_and_topic_including_subtopics(seeded):
    only_notes = find(seeded, "calibration", kind="notes")
    assert only_notes.notes and not only_notes.questions and only_notes.question_total == 0
    only_questions = find(seeded, "calibration", kind="questions")
    assert only_questions.questions and not only_questions.notes
    parent = find(seeded, "calibration", topic="inference-optimization-tensorrt")
    assert parent.questions and parent.notes
    sparsity = find(seeded, "calibration", topic="sparsity")
    assert sparsity.total == 0
    assert find(seeded, "2:4", topic="sparsity").questions
    assert find(seeded, "calibration", topic="no-such-topic").total == 0


def test_totals_count_every_match_beyond_the_page(db):
    load(db, a_set(*(a_question(str(n), f"Calibration question {n}?") for n in range(1, 8))))
    results = find(db, "calibration", limit=3)
    assert len(results.questions) == 3 and results.question_total == 7


def test_the_index_follows_imports_edits_and_removals(db):
    load(db, a_set(a_question("1", "What does a calibrator do?")))
    load(db, a_note("## Engines\n\nThe builder makes an engine."))
    assert find(db, "calibrator").questions and find(db, "builder").notes
    load(db, a_set(a_question("1", "What does a refitter do?")))
    load(db, a_note("## Engines\n\nThe optimizer makes an engine.\n\n## Extra\n\nsparsity"))
    assert not find(db, "calibrator").total and find(db, "refitter").questions
    assert not find(db, "builder").total and find(db, "optimizer").notes
    assert find(db, "sparsity").notes[0].anchor == "extra"
    load(db, a_note("## Engines\n\nThe optimizer makes an engine."))
    assert not find(db, "sparsity").total


def test_a_retired_question_leaves_the_index_until_it_is_brought_back(db):
    load(db, a_set(a_question("1", "What does a calibrator do?"), a_question("2", "Calibrator?")))
    qid = question_id(db, "1", "basics")
    author = Viewer(id=1, username="ann", role="author")
    with db.session_scope(write=True) as session:
        assert retire_question(session, author, qid, retire=True)
    assert [hit.id for hit in find(db, "calibrator").questions] != []
    assert qid not in [hit.id for hit in find(db, "calibrator").questions]
    assert find(db, "calibrator").total == 1
    with db.session_scope(write=True) as session:
        assert retire_question(session, author, qid, retire=False)
    assert qid in [hit.id for hit in find(db, "calibrator").questions]
    assert find(db, "calibrator").total == 2


def test_choices_and_explanations_are_searched(db):
    question = a_question("1", "Pick one.")
    question.choices[1].text = "The zeppelin answer"
    question.explanation = "Because of the quokka."
    load(db, a_set(question))
    assert "<mark>zeppelin</mark>" in find(db, "zeppelin").questions[0].snippet_html
    assert "<mark>quokka</mark>" in find(db, "quokka").questions[0].snippet_html


def test_hostile_content_comes_back_escaped(db):
    evil = "<script>alert(1)</script> <img src=x onerror=alert(2)> calibration"
    question = a_question("1", f"Evil {evil}?")
    question.explanation = evil
    load(db, a_set(question))
    load(db, a_note(f"## Heading {evil}\n\nBody {evil}"))
    results = find(db, "calibration")
    for html in (
        results.questions[0].stem_html,
        results.questions[0].snippet_html,
        results.notes[0].heading_html,
        results.notes[0].snippet_html,
    ):
        assert "<script" not in html and "<img" not in html
        assert "&lt;script&gt;" in html or "&lt;img" in html


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ('kSTRICT_TYPES "2:4" calib*', (Term("kSTRICT_TYPES"), Term("2:4"), Term("calib", True))),
        ("NEAR(a b) OR c", (Term("NEAR(a"), Term("b"), Term("c"))),
        ('"unclosed phrase', (Term("unclosed phrase"),)),
        ("* ** () --", ()),
        ("a a a", (Term("a"),)),
    ],
)
def test_parse_query(query, terms):
    assert parse_query(query) == terms


def test_parse_query_keeps_a_bounded_number_of_terms():
    assert len(parse_query(" ".join(f"w{n}" for n in range(100)))) == 12


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("a \ue000b\ue001 c", "a <mark>b</mark> c"),
        ("\ue001a\ue000b", "a<mark>b</mark>"),
        ("<b>\ue000&\ue001", "&lt;b&gt;<mark>&amp;</mark>"),
        ("\ue000kSTRICT\ue001\\_\ue000TYPES\ue001", "<mark>kSTRICT_TYPES</mark>"),
        ("x\n\n   y", "x y"),
        ("\ue000a\ue000b\ue001c\ue001", "<mark>ab</mark>c"),
        ("\ue000a \ue001b \ue000c\ue001", "<mark>a </mark>b <mark>c</mark>"),
    ],
)
def test_marked_html_is_escaped_and_balanced(text, html):
    assert marked_html(text) == html


S, E = terms.START, terms.STOP


@pytest.mark.parametrize(
    ("text", "html"),
    [
        (f"The **{S}calibration{E}** _table_", "The <mark>calibration</mark> table"),
        (f"Call `{S}enqueueV3{E}()` once", "Call <mark>enqueueV3</mark>() once"),
        (f"## {S}Engines{E}\n\nBuilt once", "<mark>Engines</mark> Built once"),
        (
            f"See [the {S}guide{E}](https://x.test/{S}guide{E}) ![a plot](p.png)",
            "See the <mark>guide</mark> a plot",
        ),
        (
            f"| Flag | Use |\n|---|---|\n| `--{S}fp16{E}` | **half** |",
            "Flag Use --<mark>fp16</mark> half",
        ),
        (
            f"…| `--{S}fp16{E}` | half |\n| `--int8` | quarter |",
            "… --<mark>fp16</mark> half --int8 quarter",
        ),
        (f"…| a | b |\n|---|:-:|\n| {S}c{E} | d |", "… a b <mark>c</mark> d"),
        (
            f"Run:\n\n```bash\ntrtexec --{S}fp16{E} # **not bold**\n```\nDone",
            "Run: trtexec --<mark>fp16</mark> # **not bold** Done",
        ),
        (f"- {S}one{E}\n- two\n\n1. three", "<mark>one</mark> two three"),
        (f"…fields come from `{S}getFields{E}…", "…fields come from <mark>getFields</mark>…"),
        (f"zebra16`\nChoice **`--{S}z{E}`**", "zebra16 Choice --<mark>z</mark>"),
        (
            f"…x.like()\n```\n\nSee `trt.{S}IPluginV3{E}`",
            "…x.like() See trt.<mark>IPluginV3</mark>",
        ),
        (
            f"…{S}zebra{E}** engine, 2 * 3 *{S}more{E}",
            "…<mark>zebra</mark> engine, 2 * 3 <mark>more</mark>",
        ),
        ("Escaped \\*stars\\* and 2 &lt; 3 &amp; a|b", "Escaped *stars* and 2 &lt; 3 &amp; a|b"),
        (
            f"**<script>alert(1)</script>** `<img src=x onerror=alert(2)>` {S}x{E}",
            "&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt; <mark>x</mark>",
        ),
    ],
)
def test_marked_html_shows_markdown_as_plain_text(text, html):
    assert marked_html(text) == html


def test_marked_html_leaves_plain_text_as_it_is():
    """A note's heading is shown as the note shows it, and so is plain text in any case."""
    assert marked_html(f"1. **{S}Set{E}** up", markdown=False) == "1. **<mark>Set</mark>** up"
    assert (
        marked_html(f"Plain {S}words{E}, nothing else.")
        == "Plain <mark>words</mark>, nothing else."
    )


PIECES = st.sampled_from(["\ue000", "\ue001", "a", " ", "&lt;", "_"])


@settings(max_examples=500, derandomize=True, database=None)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_marks_in_pairs_take_the_short_way_to_the_same_html(html):
    """Replacing paired marks in place gives what mending them gives, whatever the marks."""
    assert terms._marks(html) == terms._mended_marks(html)


def test_totals_past_the_cap_say_more_than(db, monkeypatch):
    from app.search import queries

    monkeypatch.setattr(queries, "TOTAL_CAP", 5)
    load(db, a_set(*(a_question(str(n), f"Calibration question {n}?") for n in range(1, 9))))
    capped = find(db, "calibration", limit=3)
    assert (capped.question_total, capped.question_total_exact) == (5, False)
    exact = find(db, "calibration question 7")
    assert (exact.question_total, exact.question_total_exact) == (1, True)


@pytest.mark.parametrize("topic", [None, "sparsity"])
def test_a_kind_too_broad_to_rank_lists_title_matches_first(seeded, monkeypatch, topic):
    """Past TOTAL_CAP matches SQLite ranks nothing (bm25 costs): words in the title first."""
    from dataclasses import replace

    from app.search import queries

    monkeypatch.setattr(queries, "TOTAL_CAP", 4)
    body_only = [
        replace(a_question(str(n), topic="sparsity"), explanation=f"A quokka fact {n}.")
        for n in range(1, 7)
    ]
    in_title = [a_question(str(n), f"Quokka question {n}?", topic="sparsity") for n in (7, 8)]
    load(seeded, a_set(*body_only, *in_title, slug="quokkas"))
    results = find(seeded, "quokka", limit=3, topic=topic)
    assert (results.question_total, results.question_total_exact) == (4, False)
    stems = [hit.stem_html for hit in results.questions]
    assert stems[:2] == ["<mark>Quokka</mark> question 7?", "<mark>Quokka</mark> question 8?"]
    assert "<mark>quokka</mark>" in results.questions[2].snippet_html
    assert results.ranked is (seeded.engine.dialect.name != "sqlite")  # PostgreSQL ranks all
    whole = [hit.stem_html for hit in find(seeded, "quokka", limit=10, topic=topic).questions]
    assert len(whole) == len(set(whole)) == 8  # the title's matches are not listed again
    narrow = find(seeded, "quokka 7", topic=topic)
    assert narrow.ranked and narrow.question_total == 1


def test_the_driver_path_finds_what_sqlalchemy_finds(seeded, monkeypatch):
    """Unwatched, a search without a topic runs on the driver's cursor; watched, through
    SQLAlchemy (as the statement-count tests watch it): both give the same results."""
    from dataclasses import replace

    from sqlalchemy import event

    from app.search import queries

    monkeypatch.setattr(queries, "TOTAL_CAP", 4)
    body_only = [replace(a_question(str(n)), explanation=f"A quokka fact {n}.") for n in range(6)]
    in_title = [a_question(str(n), f"Quokka question {n}?") for n in (7, 8)]
    load(seeded, a_set(*body_only, *in_title, slug="quokkas"))
    queries_to_run = ["quokka", "quokka 7", "calibration", "int8 calibration", "nosuchword"]
    plain = [find(seeded, query, limit=5) for query in queries_to_run]

    def watch(*_args) -> None:  # type: ignore[no-untyped-def]
        watched.append(1)

    watched: list[int] = []
    event.listen(seeded.engine, "before_cursor_execute", watch)
    try:
        through_sqlalchemy = [find(seeded, query, limit=5) for query in queries_to_run]
    finally:
        event.remove(seeded.engine, "before_cursor_execute", watch)
    assert watched  # the second round did go through SQLAlchemy
    assert plain == through_sqlalchemy
    sqlite = seeded.engine.dialect.name == "sqlite"
    assert plain[0].questions and plain[0].ranked is not sqlite  # SQLite's broad path was taken


@pytest.mark.parametrize(
    ("query", "term"),
    [
        ("t*", Term("t")),
        ("te*", Term("te", True)),
        ("a_b*", Term("a_b")),
        ("x-yz*", Term("x-yz", True)),
    ],
)
def test_a_prefix_needs_two_characters_or_it_is_a_word(query, term):
    assert parse_query(query) == (term,)


def _words_starting_with(db, prefix: str) -> tuple[set[int], set[str]]:
    """The questions and note sections with a word beginning with prefix, found in Python:
    words are runs of letters and digits, as both indexes split them."""
    from sqlalchemy import select

    from app.content.models import Choice, Note, NoteSection, Question

    def has(text: str) -> bool:
        return any(word.startswith(prefix) for word in re.findall(r"[^\W_]+", text.lower()))

    with db.session_scope() as session:
        choices: dict[int, list[str]] = {}
        for question_id, text in session.execute(select(Choice.question_id, Choice.text_md)):
            choices.setdefault(question_id, []).append(text)
        questions = {
            q.id
            for q in session.scalars(select(Question))
            if has(" ".join([q.stem_md, *choices[q.id], q.explanation_md]))
        }
        sections = {
            f"{slug}#{s.anchor}"
            for s, slug in session.execute(select(NoteSection, Note.slug).join(Note))
            if has(f"{s.heading} {s.body_md}")
        }
    return questions, sections


def _hits(db, query: str) -> tuple[set[int], set[str]]:
    results = find(db, query, limit=TOTAL_CAP)
    assert results.question_total < TOTAL_CAP and results.note_total < TOTAL_CAP
    return {q.id for q in results.questions}, {f"{n.note_slug}#{n.anchor}" for n in results.notes}


def test_a_prefix_finds_every_word_it_begins_stop_words_too(db):
    """`in*` finds "in", "into" and "inference" alike, on SQLite and on PostgreSQL: both find
    what a plain reading of the words finds, so both find the same."""
    load_seed(db, seed_dir=SHIPPED_SEED_DIR)
    for prefix in ("in", "on", "at", "be", "do", "int8", "fp", "co"):
        questions, sections = _words_starting_with(db, prefix)
        assert questions and sections, prefix
        assert _hits(db, f"{prefix}*") == (questions, sections), prefix


def test_words_and_prefixes_together_find_what_each_finds(db):
    load_seed(db, seed_dir=SHIPPED_SEED_DIR)
    calibration, stop_words = _hits(db, "calibration"), _hits(db, "on*")
    assert _hits(db, "calibrated") == calibration  # words are still stemmed
    both = _hits(db, "calibration on*")
    assert both == (calibration[0] & stop_words[0], calibration[1] & stop_words[1])
    assert both[0] and both[1]


def test_a_prefix_alone_is_highlighted_where_it_matches(db):
    load(db, a_set(a_question("1", "Is it run in INT8 or into FP16?"), slug="marks"))
    (hit,) = find(db, "in*").questions
    assert "<mark>in</mark>" in hit.stem_html and "<mark>INT8</mark>" in hit.stem_html
    assert "<mark>into</mark>" in hit.stem_html
