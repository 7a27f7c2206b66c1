"""The CSV importer: named columns, both separators, quoted line ends, and every refusal with
its line and column."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from app.cli import cli
from app.importers import csv_questions, qa
from app.importers.errors import ImportRefused
from app.importers.service import FORMATS, detect_format, parse_document
from tests.factories import SEED_DIR, exported, import_file, row_counts, table_rows
from tests.importers.test_fuzz import PROFILE, mutate, mutation

SAMPLES = Path(__file__).parent / "samples"
HEADER = "id,question,choice_a,choice_b,choice_c,right,explanation,topic"
GOOD = HEADER + "\nq1,Which one?,This,That,,A,Because.,Build/Engines\n"


def _parse(text: str, file: str = "bank.csv"):  # type: ignore[no-untyped-def]
    return csv_questions.parse(text, file)


def _questions(text: str):  # type: ignore[no-untyped-def]
    bundle, _ = _parse(text)
    return [q for qset in bundle.question_sets for q in qset.questions]


def test_every_column_is_read():
    text = (
        "ID;Question;Choice A;choice_b;choice_c;choice_h;Right;Explanation;Topic;"
        "reference_url;reference_title\n"
        "k-7;Which *two*?;One;Two;Three;Eight;a, H;See <b>this</b>.;Build / Engines;"
        "https://example.com/doc;The doc\n"
    )
    bundle, report = _parse(text)
    (question,) = bundle.question_sets[0].questions
    assert (question.key, question.line, question.kind) == ("k-7", 2, "multi")
    assert question.stem == "Which \\*two\\*?"
    assert [(c.text, c.correct) for c in question.choices] == [
        ("One", True),
        ("Two", False),
        ("Three", False),
        ("Eight", True),
    ]
    assert question.explanation == "See \\<b\\>this\\</b\\>."
    assert [(r.url, r.title) for r in question.references or []] == [
        ("https://example.com/doc", "The doc")
    ]
    assert [(t.slug, t.title, t.parent) for t in bundle.topics] == [
        ("build", "Build", None),
        ("build-engines", "Engines", "build"),
    ]
    assert (bundle.question_sets[0].slug, question.topic) == ("build-engines", "build-engines")
    assert report.counts == {"questions": 1} and report.warnings == []


def test_rows_without_topic_or_id_go_to_a_set_named_after_the_file_keyed_by_text():
    text = "question,choice_a,choice_b,right\nWhich  ONE?,x,y,b\n"
    bundle, _ = _parse(text, "banks/Week 3.csv")
    (qset,) = bundle.question_sets
    assert (qset.slug, qset.title) == ("week-3", "Week 3")
    (question,) = qset.questions
    assert question.key.startswith("which-one-") and question.kind == "single"
    assert [c.correct for c in question.choices] == [False, True]


def test_semicolons_and_commas_give_the_same_questions():
    semicolons = GOOD.replace(",", ";")
    assert _questions(semicolons) == _questions(GOOD)


def test_a_bom_crlf_and_quoted_line_ends_are_read():
    text = (
        '\ufeffquestion,choice_a,choice_b,right,explanation\r\n"Two\r\nlines?",x,y,A,'
        '"one\r\n\r\ntwo"\r\nNext?,x,y,B,\r\n'
    )
    data = text.encode()
    bundle, _ = parse_document(data, "bank.csv")
    first, second = bundle.question_sets[0].questions
    assert first.stem == "Two\nlines?" and first.explanation == "one\n\ntwo"
    assert (first.line, second.line) == (2, 6)


def test_empty_rows_are_passed_and_short_rows_filled():
    text = "question,choice_a,choice_b,choice_c,right\n\n,,,,\nWhich?,x,y\n"
    with pytest.raises(ImportRefused) as caught:
        _parse(text)
    assert (caught.value.line, caught.value.message) == (
        4,
        "column right: no right letter (write e.g. B, or A,C)",
    )
    (question,) = _questions(text.replace("x,y\n", "x,y,,B\n"))
    assert question.line == 4 and len(question.choices) == 2


def test_unknown_columns_are_warnings():
    _, report = _parse("question,notes,choice_a,choice_b,right,\nQ?,n,x,y,A,\n")
    assert [(w.line, w.message) for w in report.warnings] == [
        (1, "column 'notes' is not one Studyhall reads; its cells are ignored"),
        (1, "column 6 (no name) is not one Studyhall reads; its cells are ignored"),
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (GOOD.replace(",A,", ",X,"), 2, "column right: 'X' is not a choice letter"),
        (GOOD.replace(",A,", ",AB,"), 2, "column right: 'AB' is not a choice letter"),
        (GOOD.replace(",A,", ",C,"), 2, "column right: C names choice_c, which is empty"),
        (GOOD.replace("That,", ","), 2, "column choice_a: a question needs at least two"),
        (GOOD.replace("Which one?", ""), 2, "column question: the question is empty"),
        (GOOD + GOOD.split("\n")[1] + "\n", 3, "column id: 'q1': the same id is already on line 2"),
        (GOOD + "Q1" + GOOD.split("\n")[1][2:], 3, "column id: 'Q1': the id 'q1' (same key)"),
        (
            GOOD.replace("q1,", ",") + GOOD.split("\n")[1].replace("q1,", ",") + "\n",
            3,
            "column question: the same question is already on line 2",
        ),
        (GOOD.replace("Engines\n", "Engines,extra\n"), 2, "column 9: the row has 9 cells"),
        (
            GOOD.replace("Because.", '"Because\nof\nthis."') + "q2,Q?,a,b,,Z,,\n",
            5,
            "column right: 'Z'",
        ),
        (GOOD.replace(",A,", ',"A,') + GOOD.split("\n")[1] + "\n", 2, "is a quote left open"),
        ("question,choice_a,choice_b\nQ?,a,b\n", 1, "column right: missing from the header"),
        ("question,choice_a,right\nQ?,a,A\n", 1, "column choice_a: the header needs two"),
        ("question,right,choice_a,choice_b,right\n", 1, "column right: named twice"),
        (HEADER + "\n", 1, "the file has a header but no question rows"),
        (
            "question,choice_a,choice_b,right,reference_url\nQ?,a,b,A,javascript:alert(1)\n",
            2,
            "column reference_url: 'javascript:alert(1)' is not a web address",
        ),
        (
            "question,choice_a,choice_b,right,reference_title\nQ?,a,b,A,Doc\n",
            2,
            "column reference_url: a reference_title needs a reference_url",
        ),
    ],
)
def test_each_refusal_names_the_line_and_column(text, line, message):
    with pytest.raises(ImportRefused) as caught:
        _parse(text)
    assert caught.value.line == line and message in caught.value.message, str(caught.value)
    assert str(caught.value).startswith(f"bank.csv:{line}: ")


def test_cells_starting_with_equals_are_text():
    (question,) = _questions("question,choice_a,choice_b,right\n=1+1,=SUM(A1),@x,A\n")
    assert question.stem == "=1+1" and question.choices[0].text == "=SUM(A1)"


def test_detected_only_by_a_header_with_question_and_right():
    assert detect_format(GOOD, "bank.csv") == "csv"
    assert detect_format("\ufeff" + GOOD.replace(",", ";"), "bank.csv") == "csv"
    assert not csv_questions.looks_like("question,choice_a,choice_b\nQ,a,b\n")
    assert not csv_questions.looks_like("Question 1: which is right?\n- a\n")


@pytest.mark.parametrize(
    "path",
    [*sorted(SEED_DIR.iterdir()), *sorted(SAMPLES.iterdir())],
    ids=lambda path: path.name,
)
def test_no_other_format_s_document_is_taken_for_csv(path):
    text = path.read_text(encoding="utf-8")
    assert not csv_questions.looks_like(text)
    assert detect_format(text, path.name) != "csv"


def test_a_qa_page_mentioning_the_columns_is_not_csv():
    text = "Quiz — Questions and Answers\nQuestion 1: question, right?\n- yes (Correct answer)\n"
    assert not csv_questions.looks_like(text) and qa.looks_like(text)


def test_the_template_imports_cleanly_with_one_single_and_one_multiple_answer(db):
    bundle, report = csv_questions.parse(csv_questions.TEMPLATE, "template.csv")
    kinds = [q.kind for qset in bundle.question_sets for q in qset.questions]
    assert kinds == ["single", "multi"] and report.warnings == []
    data = csv_questions.TEMPLATE.encode()
    assert import_file(db, data, "template.csv").counts["questions_created"] == 2
    assert import_file(db, data, "template.csv").counts["questions_unchanged"] == 2


def test_the_template_is_served_to_authors_only(user_client, client):
    author = user_client("writer", role="author")
    response = author.get("/author/import/template.csv")
    assert response.status_code == 200 and response.text == csv_questions.TEMPLATE
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert "attachment" in response.headers["content-disposition"]
    assert 'href="/author/import/template.csv"' in author.get("/author/import").text
    assert user_client("ann").get("/author/import/template.csv").status_code == 403
    anonymous = client.get("/author/import/template.csv", follow_redirects=False)
    assert anonymous.status_code in (303, 401)


def test_import_again_changes_nothing_an_edit_updates_in_place_and_ids_keep_keys(db):
    data = GOOD.encode()
    assert import_file(db, data, "bank.csv").counts["questions_created"] == 1
    content = exported(db)
    assert import_file(db, data, "bank.csv").counts["questions_unchanged"] == 1
    assert exported(db) == content
    edited = GOOD.replace("Which one?", "Which one now?").replace(",A,", ",B,").encode()
    report = import_file(db, edited, "bank.csv")
    assert report.counts["questions_updated"] == 1 and row_counts(db)["question"] == 1


def test_an_emptied_reference_is_removed_on_re_import(db):
    text = "id,question,choice_a,choice_b,right,reference_url\nr,Q?,a,b,A,https://e.org/x\n"
    import_file(db, text.encode(), "refs.csv")
    assert row_counts(db)["question_reference"] == 1
    report = import_file(db, text.replace("https://e.org/x", "").encode(), "refs.csv")
    assert report.counts["questions_updated"] == 1 and row_counts(db)["question_reference"] == 0


def test_a_refused_file_saves_nothing(seeded):
    rows = table_rows(seeded)
    with pytest.raises(ImportRefused):
        import_file(seeded, GOOD.replace(",A,", ",C,").encode(), "bank.csv")
    assert table_rows(seeded) == rows


def test_studyhall_import_reads_it(cli_env, tmp_path, monkeypatch, db):
    monkeypatch.chdir(tmp_path)
    Path("bank.csv").write_text(GOOD.replace(",A,", ",Q,"), encoding="utf-8")
    runner = CliRunner()
    refused = runner.invoke(cli, ["import", "bank.csv"])
    assert refused.exit_code == 1 and "refused bank.csv:2: column right:" in refused.output
    Path("bank.csv").write_text(GOOD, encoding="utf-8")
    result = runner.invoke(cli, ["import", "bank.csv"])
    assert result.exit_code == 0 and "(csv)" in result.output, result.output
    assert row_counts(db)["question"] == 1


def test_the_web_form_imports_it(user_client, db):
    client = user_client("writer", role="author")
    response = client.post(
        "/author/import",
        files={"document": ("bank.csv", GOOD.encode(), "text/csv")},
        data={"format": ""},
    )
    assert response.status_code == 200 and "(csv)" in response.text
    assert row_counts(db)["question"] == 1
    assert "csv" in FORMATS


@settings(settings.get_profile(PROFILE))
@given(st.text(alphabet=st.sampled_from('question,right;choice_a"b\n\r AB'), max_size=200))
def test_any_text_gives_a_bundle_or_a_refusal(text):
    try:
        csv_questions.parse(text, "any.csv")
    except ImportRefused as caught:
        assert 1 <= caught.line <= text.count("\n") + 1, str(caught)


def test_a_mutated_file_imports_or_is_refused_cleanly(db):
    sample = csv_questions.TEMPLATE.encode()

    @settings(settings.get_profile(PROFILE))
    @given(st.lists(mutation(len(sample)), min_size=1, max_size=3))
    def check(mutations: list[tuple[str, int, object]]) -> None:
        data = sample
        for kind, at, arg in mutations:
            data = mutate(data, kind, at, arg)
        before = table_rows(db)
        try:
            import_file(db, data, "bank.csv", format="csv")
        except ImportRefused as caught:
            lines = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") + 1
            assert 1 <= caught.line <= lines, str(caught)
            assert table_rows(db) == before

    check()
