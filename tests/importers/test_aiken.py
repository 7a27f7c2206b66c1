"""The Aiken importer (Moodle): lettered choices, an answer line, and skipping bad questions."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from app.cli import cli
from app.importers import aiken
from app.importers.errors import ImportRefused
from app.importers.service import detect_format, parse_document
from tests.factories import exported, import_file, row_counts, table_rows
from tests.importers.test_fuzz import PROFILE, mutate, mutation

SAMPLE = (Path(__file__).parent / "samples" / "quiz.aiken.txt").read_bytes()
GOOD = "Which one?\nA. Right\nB) Wrong\nANSWER: A\n"
BAD = "Missing answer?\nA. One\nB. Two\n\nNo choices?\nANSWER: A\n"


def test_questions_choices_and_answer():
    bundle, report = aiken.parse(SAMPLE.decode(), "quiz.aiken.txt")
    (qset,) = bundle.question_sets
    assert (qset.slug, qset.title, qset.topic) == ("quiz-aiken", "quiz.aiken", None)
    first, second = qset.questions
    assert (first.stem, first.line, first.kind) == (
        "Which layer of TensorRT fuses kernels?",
        1,
        "single",
    )
    assert [(c.text, c.correct) for c in first.choices] == [
        ("The builder", True),
        ("The runtime", False),
        ("The parser", False),
    ]
    assert second.line == 7 and [c.correct for c in second.choices] == [True, False]
    assert report.counts == {"questions": 2} and report.warnings == []


def test_the_set_is_named_after_the_file():
    bundle, _ = aiken.parse(GOOD, "banks/Week 3.txt")
    assert (bundle.question_sets[0].slug, bundle.question_sets[0].title) == ("week-3", "Week 3")


def test_questions_are_keyed_by_their_text():
    (one,) = aiken.parse(GOOD, "a.txt")[0].question_sets[0].questions
    (same,) = (
        aiken.parse("which  ONE?\nA. x\nB. y\nANSWER: B\n", "a.txt")[0].question_sets[0].questions
    )
    assert one.key == same.key and one.key.startswith("which-one-")


def test_text_is_escaped_as_markdown():
    (question,) = (
        aiken.parse("Is <b>*this*</b> bold?\nA. <i>no</i>\nB. yes\nANSWER: A\n", "a")[0]
        .question_sets[0]
        .questions
    )
    assert question.stem == "Is \\<b\\>\\*this\\*\\</b\\> bold?"
    assert question.choices[0].text == "\\<i\\>no\\</i\\>"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("Which?\nA. a\nB. b\n", 1, "the question has no 'ANSWER: X' line"),
        ("Which?\nA. a\nANSWER: A\n", 1, "needs at least two choices"),
        ("Which?\nA. a\nB. b\nANSWER: C\n", 4, "'ANSWER: C' must name one choice letter (A-B)"),
        ("Which?\nA. a\nB. b\nANSWER: A, B\n", 4, "must name one choice letter"),
        ("Which?\nA. a\nC. b\nANSWER: A\n", 3, "choice C where B was expected"),
        ("Which?\nA. a\nB.  \nANSWER: A\n", 3, "choice B has no text"),
        ("A. a\nB. b\nANSWER: A\n", 1, "a choice before any question text"),
        ("\n\nANSWER: A\n", 3, "an 'ANSWER:' line without a question before it"),
        ("Which?\nA. a\nB. b\nsome text\nANSWER: A\n", 4, "text after the choices"),
        (GOOD + "\n" + GOOD, 6, "the same question is already on line 1"),
    ],
)
def test_each_bad_question_is_refused_with_its_line(text, line, message):
    with pytest.raises(ImportRefused) as caught:
        aiken.parse(text, "bad.txt")
    assert caught.value.line == line and message in caught.value.message, str(caught.value)


def test_every_bad_question_is_named_and_nothing_is_imported():
    with pytest.raises(ImportRefused) as caught:
        aiken.parse(GOOD + "\n" + BAD, "bad.txt")
    assert caught.value.line == 6
    assert caught.value.message == (
        "2 questions cannot be read, so nothing was imported (skipping bad questions, "
        "--skip-bad, imports the others): line 6: the question has no 'ANSWER: X' line after its choices; "
        "line 10: the question needs at least two choices like 'A. ...'"
    )


def test_skipping_bad_questions_imports_the_good_ones_and_reports_the_others():
    bundle, report = aiken.parse(
        GOOD + "\n" + BAD + "\n" + GOOD.replace("one", "two"), "q.txt", skip_bad=True
    )
    assert [q.line for q in bundle.question_sets[0].questions] == [1, 13]
    assert [(w.line, w.message) for w in report.warnings] == [
        (6, "refused: the question has no 'ANSWER: X' line after its choices"),
        (10, "refused: the question needs at least two choices like 'A. ...'"),
    ]
    assert report.counts == {"refused": 2, "questions": 2}


def test_skipping_reaches_the_parser_through_the_flag_and_the_older_format_name():
    data = (GOOD + "\n" + BAD).encode()
    for format, skip_bad in ((None, True), ("aiken", True), ("aiken-skip-bad", False)):
        bundle, report = parse_document(data, "q.txt", format, skip_bad=skip_bad)
        assert report.counts == {"refused": 2, "questions": 1}, format
    with pytest.raises(ImportRefused):
        parse_document(data, "q.txt")


def test_a_file_with_no_good_question_is_refused_even_when_skipping():
    with pytest.raises(ImportRefused) as caught:
        aiken.parse(BAD, "bad.txt", skip_bad=True)
    assert caught.value.line == 1 and "holds no Aiken question" in caught.value.message


def test_crlf_and_a_bom_change_nothing():
    lf = parse_document(SAMPLE, "quiz.txt")
    assert parse_document(b"\xef\xbb\xbf" + SAMPLE.replace(b"\n", b"\r\n"), "quiz.txt") == lf
    assert lf[1].format == "aiken"


def test_detected_as_aiken_not_gift():
    assert detect_format(SAMPLE.decode(), "quiz.txt") == "aiken"
    assert detect_format(GOOD, "q.txt") == "aiken"


def test_import_again_changes_nothing_and_an_edit_updates_in_place(db):
    assert import_file(db, SAMPLE, "quiz.aiken.txt").counts["questions_created"] == 2
    content = exported(db)
    assert import_file(db, SAMPLE, "quiz.aiken.txt").counts["questions_unchanged"] == 2
    assert exported(db) == content
    edited = SAMPLE.replace(b"ANSWER: A\n\nWhat", b"ANSWER: B\n\nWhat")
    report = import_file(db, edited, "quiz.aiken.txt")
    assert report.counts == {**report.counts, "questions_updated": 1, "questions_unchanged": 1}
    assert row_counts(db)["question"] == 2


def test_a_refused_file_saves_nothing(seeded):
    rows = table_rows(seeded)
    with pytest.raises(ImportRefused):
        import_file(seeded, (GOOD + "\n" + BAD).encode(), "q.txt")
    assert table_rows(seeded) == rows


def test_studyhall_import_loads_it_and_skips_bad_questions_on_request(
    cli_env, tmp_path, monkeypatch, db
):
    monkeypatch.chdir(tmp_path)
    Path("quiz.txt").write_text(GOOD + "\n" + BAD, encoding="utf-8")
    runner = CliRunner()
    refused = runner.invoke(cli, ["import", "quiz.txt"])
    assert refused.exit_code == 1 and "refused quiz.txt:6:" in refused.output
    assert row_counts(db)["question"] == 0
    result = runner.invoke(cli, ["import", "--skip-bad", "quiz.txt"])
    assert result.exit_code == 0, result.output
    assert "warning quiz.txt:10: refused: the question needs at least two" in result.output
    assert row_counts(db)["question"] == 1


def test_the_web_form_imports_it(user_client, db):
    client = user_client("writer", role="author")
    response = client.post(
        "/author/import",
        files={"document": ("quiz.txt", SAMPLE, "text/plain")},
        data={"format": ""},
    )
    assert response.status_code == 200 and "(aiken)" in response.text
    assert row_counts(db)["question"] == 2
    skipped = client.post(
        "/author/import",
        files={"document": ("bad.txt", (GOOD + "\n" + BAD).encode(), "text/plain")},
        data={"format": "", "skip_bad": "on"},
    )
    assert skipped.status_code == 200
    assert "line 10: refused: the question needs at least two choices" in skipped.text


@settings(settings.get_profile(PROFILE))
@given(
    st.text(alphabet=st.sampled_from("ABC.) ANSWER:x\n"), max_size=200) | st.text(), st.booleans()
)
def test_any_text_gives_a_bundle_or_a_refusal(text, skip_bad):
    try:
        aiken.parse(text, "any.txt", skip_bad=skip_bad)
    except ImportRefused as caught:
        assert 1 <= caught.line <= text.count("\n") + 1


def test_a_mutated_file_imports_or_is_refused_cleanly(db):
    @settings(settings.get_profile(PROFILE))
    @given(st.lists(mutation(len(SAMPLE)), min_size=1, max_size=3))
    def check(mutations: list[tuple[str, int, object]]) -> None:
        data = SAMPLE
        for kind, at, arg in mutations:
            data = mutate(data, kind, at, arg)
        before = table_rows(db)
        try:
            import_file(db, data, "quiz.txt", format="aiken")
        except ImportRefused as caught:
            lines = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") + 1
            assert 1 <= caught.line <= lines, str(caught)
            assert table_rows(db) == before

    check()
