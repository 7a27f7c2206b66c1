"""The GIFT importer (Moodle): topics from categories, choices, feedback, skips and refusals."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from typer.testing import CliRunner

from app.cli import cli
from app.config import PROJECT_ROOT
from app.content.markdown import render
from app.content.models import Choice, Question, QuestionSet, Topic
from app.importers import aiken, gift
from app.importers.errors import ImportRefused
from app.importers.service import detect_format, parse_document
from tests.factories import SEED_DIR, exported, import_file, row_counts, table_rows
from tests.importers.test_fuzz import PROFILE, mutate, mutation

SAMPLES = Path(__file__).parent / "samples"
SAMPLE = (SAMPLES / "moodle.gift").read_bytes()
SET = "networking-routing"


def parse(text: str, file: str = "quiz.gift"):  # type: ignore[no-untyped-def]
    return gift.parse(text, file)


def questions(text: str) -> dict[str, object]:
    bundle, _ = parse(text)
    return {q.key: q for s in bundle.question_sets for q in s.questions}


def refused(text: str) -> ImportRefused:
    with pytest.raises(ImportRefused) as caught:
        parse(text)
    return caught.value


def test_categories_become_topics_and_a_set_each():
    bundle, report = parse_document(SAMPLE, "moodle.gift")
    assert report.format == "gift"
    assert [(t.slug, t.title, t.parent, t.line) for t in bundle.topics] == [
        ("networking", "Networking", None, 2),
        ("networking-routing", "Routing", "networking", 2),
        ("security", "Security", None, 32),
    ]
    assert [(s.slug, s.title, s.topic, len(s.questions)) for s in bundle.question_sets] == [
        (SET, "Networking / Routing", SET, 3),
        ("security", "Security", "security", 1),
    ]
    assert {q.topic for q in bundle.question_sets[0].questions} == {SET}
    assert report.counts == {"skipped": 6, "topics": 3, "questions": 4}


def test_questions_before_any_category_go_to_a_set_named_after_the_file():
    bundle, _ = gift.parse("Pick one. {=a ~b}\n", "exams/My Quiz.gift")
    (qset,) = bundle.question_sets
    assert (qset.slug, qset.title, qset.topic, bundle.topics) == ("my-quiz", "My Quiz", None, [])


def test_moodle_prefixes_and_slashes_in_names():
    bundle, _ = parse("$CATEGORY: $module$/top/TCP//IP/Basics\n\nPick. {=a ~b}\n")
    assert [(t.slug, t.title) for t in bundle.topics] == [
        ("tcp-ip", "TCP/IP"),
        ("tcp-ip-basics", "Basics"),
    ]


def test_multiple_choice_with_choice_and_general_feedback():
    ospf = questions(SAMPLE.decode())["ospf"]
    assert ospf.kind == "single" and ospf.line == 4
    assert ospf.stem == "Which protocol is a **link-state** protocol?"
    assert [(c.text, c.correct, c.feedback) for c in ospf.choices] == [
        ("OSPF", True, "Right: it floods link states."),
        ("RIP", False, "No: RIP is a distance-vector protocol."),
        ("BGP", False, ""),
    ]
    assert ospf.explanation == "OSPF builds a map of the network."


def test_weights_make_a_multiple_response_question():
    ports = questions(SAMPLE.decode())["ports"]
    assert ports.kind == "multi"
    assert [(c.text, c.correct) for c in ports.choices] == [
        ("22", True),
        ("80", True),
        ("8080", False),
    ]


def test_right_weights_that_do_not_add_up_to_100_are_a_warning_with_the_line():
    _, report = parse("Which?\n{\n~%50%a\n~%40%b\n~c\n}\n")
    assert [(w.line, w.message) for w in report.warnings] == [
        (3, "the right choices' weights add up to 90%, not 100%; each is imported as right")
    ]


@pytest.mark.parametrize(
    ("block", "right"),
    [("{T}", "True"), ("{TRUE}", "True"), ("{F}", "False"), ("{FALSE}", "False")],
)
def test_true_false_gives_two_choices(block, right):
    (question,) = questions(f"The sky is blue. {block}\n").values()
    assert [c.text for c in question.choices] == ["True", "False"]
    assert [c.text for c in question.choices if c.correct] == [right]


def test_true_false_feedback_first_for_the_wrong_answer():
    loopback = questions(SAMPLE.decode())["loopback"]
    assert [(c.text, c.feedback) for c in loopback.choices] == [
        ("True", "Yes, the whole 127/8 block."),
        ("False", "It is."),
    ]
    assert loopback.explanation == ""


def test_choice_feedback_is_converted_as_other_text_and_kept_off_the_explanation():
    text = (
        "[html]Which? {\n=a#<b>Yes</b><script>alert(1)</script> \\# \\{1\\}\n"
        "~b#[markdown]**No**: see `x\\=y`\\nnext line\n~c#[plain]<i>not html</i>\n"
        "####[markdown]General.\n}\n"
    )
    (question,) = questions(text).values()
    assert [c.feedback for c in question.choices] == [
        "**Yes** \\# {1}",
        "**No**: see `x=y`\nnext line",
        "\\<i\\>not html\\</i\\>",
    ]
    assert question.explanation == "General."


def test_escapes_and_markdown_format():
    (hashing,) = questions(SAMPLE.decode().split("$CATEGORY: Security")[1]).values()
    assert hashing.stem == "Which of these is a **hash** function? Escapes: ~ = # { } :"
    assert [c.text for c in hashing.choices] == ["SHA-256", "AES=128", "RSA \\<2048\\>"]


def test_html_is_sanitised_and_stored_as_markdown():
    text = (
        '[html]<p onclick="x()">Pick <script>alert(1)</script><i>one</i> '
        '<a href="javascript:alert(1)">here</a> <a href="https://example.org">docs</a>'
        "<img src=x onerror=alert(1)></p>{=<b>a</b> ~b}\n"
    )
    (question,) = questions(text).values()
    assert question.stem == "Pick *one* here [docs](<https://example.org>)"
    assert question.choices[0].text == "**a**"
    html = render(question.stem)
    assert "alert" not in html and "onclick" not in html and "<script" not in html
    assert '<a href="https://example.org"' in html and "<em>one</em>" in html


def test_plain_and_moodle_formats():
    (plain,) = questions("[plain]Is 1 <b>2</b> *3*? {=yes ~no}\n").values()
    assert plain.stem == "Is 1 \\<b\\>2\\</b\\> \\*3\\*?"
    (moodle,) = questions("[moodle]First\\nsecond <b>bold</b> {=yes ~no}\n").values()
    assert moodle.stem == "First\\\nsecond **bold**"


def test_comments_crlf_and_a_bom_change_nothing():
    lf = parse_document(SAMPLE, "moodle.gift")
    crlf = parse_document(b"\xef\xbb\xbf" + SAMPLE.replace(b"\n", b"\r\n"), "moodle.gift")
    assert crlf == lf


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (20, "skipped: an empty answer block {}: an essay, which Studyhall does not have"),
        (22, "skipped: only '=' answers: a short-answer question, which Studyhall does not have"),
        (24, "skipped: {#...}: a numerical question, which Studyhall does not have"),
        (26, "skipped: '=a -> b' pairs: a matching question, which Studyhall does not have"),
        (28, "skipped: text after the answer block: a missing-word question"),
        (30, "skipped: no answer block {...}: a description, which Studyhall does not have"),
    ],
)
def test_types_studyhall_does_not_have_are_skipped_with_their_line(line, reason):
    _, report = parse(SAMPLE.decode())
    assert (line, reason) in [(w.line, w.message) for w in report.warnings]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("// c\nWhich?\n{\n=a\n~b\n\n}\n", 3, "this '{' is not closed by a '}'"),
        ("Which? {=a {~b}\n", 1, "this '{' is not closed by a '}'"),
        ("\n\nWhich?\n{~a ~b}\n", 3, "none of the choices is right"),
        ("Which? {~%-50%a ~b}\n", 1, "none of the choices is right"),
        ("::Title::\n  {=a ~b}\n", 1, "the question has no text before its answer block"),
        ("x {=a}\n\n::Open title {=a ~b}\n", 3, "the title opened with '::' is not closed"),
        ("Which?\n{\nanswer =a ~b}\n", 3, "an answer block holds choices starting with '='"),
        ("Which?\n{=a\n~\n~c}\n", 3, "choice 2 has no text"),
        ("::Q:: A? {=a ~b}\n\n::Q:: B? {=a ~b}\n", 3, "a question with the title 'Q' is already"),
        ("Same? {=a ~b}\n\nSame? {=b ~a}\n", 3, "a question with the same text is already"),
        ("$CATEGORY: C++\n\nA {=a ~b}\n\n$CATEGORY: C\n", 5, "gives the topic slug 'c'"),
        ("// nothing but a comment\n", 1, "the file holds no GIFT question"),
    ],
)
def test_malformed_input_is_refused_with_its_line(text, line, message):
    caught = refused(text)
    assert caught.line == line and message in caught.message, str(caught)


def test_keys_are_titles_within_a_category_or_the_text():
    keys = list(questions(SAMPLE.decode()))
    assert keys[:3] == ["ospf", "ports", "loopback"]
    assert keys[3].startswith("which-of-these-is-a-hash-function-")
    assert keys[3] == next(
        iter(
            questions(
                "\n\n[markdown]" + "Which of these is a **hash** "
                "function? Escapes: \\~ \\= \\# \\{ \\} \\: {=a ~b}"
            )
        )
    )


def test_detected_and_not_claiming_other_formats(seeded):
    assert detect_format(SAMPLE.decode(), "moodle.gift") == "gift"
    paths = [*SEED_DIR.iterdir(), *(PROJECT_ROOT / "seed").iterdir()]
    documents = [path.read_text(encoding="utf-8") for path in sorted(paths) if path.is_file()]
    documents.append(json.dumps(exported(seeded), ensure_ascii=False, indent=2))
    for text in documents:
        assert not gift.looks_like(text) and not aiken.looks_like(text)
        assert detect_format(text, "x") not in ("gift", "aiken")


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
    report = import_file(db, SAMPLE, "moodle.gift")
    assert report.counts["questions_created"] == 4 and report.counts["topics_created"] == 3
    before, content = _stored(db), exported(db)
    again = import_file(db, SAMPLE, "moodle.gift")
    assert again.counts.get("questions_unchanged") == 4 and "questions_created" not in again.counts
    assert _stored(db) == before and exported(db) == content
    edited = SAMPLE.replace(b"~BGP", b"~EIGRP").replace(b"are well known", b"are well-known")
    report = import_file(db, edited, "moodle.gift")
    assert report.counts["questions_updated"] == 2 and "questions_created" not in report.counts
    after = _stored(db)
    assert after["ospf"][:2] == (before["ospf"][0], before["ospf"][1] + 1)
    assert after["ospf"][3][2] == ("EIGRP", False)
    assert after["ports"][0] == before["ports"][0] and after["ospf"][2] == SET


def test_a_refused_file_saves_nothing(seeded):
    rows = table_rows(seeded)
    with pytest.raises(ImportRefused):
        import_file(seeded, SAMPLE + b"\n\nBroken {=a\n", "moodle.gift")
    assert table_rows(seeded) == rows


def test_studyhall_import_loads_it_into_the_database(cli_env, tmp_path, monkeypatch, db):
    monkeypatch.chdir(tmp_path)
    Path("moodle.gift").write_bytes(SAMPLE)
    runner = CliRunner()
    result = runner.invoke(cli, ["import", "moodle.gift"])
    assert result.exit_code == 0, result.output
    assert "moodle.gift (gift)" in result.output and "skipped" in result.output
    assert row_counts(db)["question"] == 4 and row_counts(db)["topic"] == 3
    assert runner.invoke(cli, ["import", "moodle.gift"]).exit_code == 0
    assert row_counts(db)["question"] == 4


def test_the_web_form_imports_it_and_lists_the_skipped(user_client, db):
    client = user_client("writer", role="author")
    form = client.get("/author/import").text
    assert '<option value="gift">' in form and '<option value="aiken">' in form
    response = client.post(
        "/author/import",
        files={"document": ("moodle.gift", SAMPLE, "text/plain")},
        data={"format": ""},
    )
    assert response.status_code == 200, response.text
    assert "Imported moodle.gift" in response.text and "(gift)" in response.text
    assert "line 20: skipped: an empty answer block {}: an essay" in response.text
    assert row_counts(db)["question"] == 4
    assert "link-state" in client.get(f"/sets/{SET}").text


def test_the_web_form_names_the_line_of_a_refusal(user_client, db):
    client = user_client("writer", role="author")
    response = client.post(
        "/author/import",
        files={"document": ("bad.gift", b"::T:: Which? {~a ~b}\n", "text/plain")},
        data={"format": "gift"},
    )
    assert response.status_code == 422
    assert "bad.gift, line 1: none of the choices is right" in response.text
    assert row_counts(db)["question"] == 0


GIFT_TEXT = st.text(alphabet=st.sampled_from("{}=~#%:\\/$[]ab T\n-> 1"), max_size=200)


@settings(settings.get_profile(PROFILE))
@given(GIFT_TEXT | st.text())
def test_any_text_gives_a_bundle_or_a_refusal(text):
    try:
        gift.parse(text, "any.gift")
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
            import_file(db, data, "moodle.gift", format="gift")
        except ImportRefused as caught:
            lines = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") + 1
            assert 1 <= caught.line <= lines, str(caught)
            assert table_rows(db) == before

    check()


def test_a_question_of_many_lines_is_read_once(monkeypatch):
    restarts: list[int] = []
    real = gift._Block.line

    def line(self, text, offset):  # type: ignore[no-untyped-def]
        if offset < self.at:
            restarts.append(offset)
        return real(self, text, offset)

    monkeypatch.setattr(gift._Block, "line", line)
    wrong = "".join(f"~wrong {n}\n" for n in range(5000))
    (question,) = questions("Which?\n{\n=right\n" + wrong + "}\n").values()
    assert len(question.choices) == 5001 and restarts == []
    caught = refused("Which?\n{\n=right\n" + wrong + "~\n}\n")
    assert (caught.line, caught.message) == (5004, "choice 5002 has no text")


def test_as_in_moodle_an_equals_answer_makes_a_one_answer_question():
    (single,) = questions("Best?\n{\n=best\n~%50%fair\n~bad\n}\n").values()
    assert single.kind == "single"
    assert [c.correct for c in single.choices] == [True, False, False]
    _, report = parse("Best?\n{\n=best\n~%50%fair\n~bad\n}\n")
    assert [(w.line, w.message) for w in report.warnings] == [
        (4, "a partly right answer (50%) in a one-answer question is imported as wrong")
    ]


def test_weights_alone_make_a_multiple_response_question_even_with_one_right_choice():
    (multi,) = questions("Which?\n{~%100%a ~%-50%b ~c}\n").values()
    assert multi.kind == "multi" and [c.correct for c in multi.choices] == [True, False, False]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Either? {=a =b ~c}\n", "several '=' answers: a one-answer question any of whose"),
        ("Lower case? {t}\n", "an answer without '=' or '~': a short-answer question"),
    ],
)
def test_more_moodle_types_are_skipped(text, reason):
    bundle, report = parse(text)
    assert bundle.question_sets == [] and report.counts["skipped"] == 1
    assert report.warnings[0].line == 1 and reason in report.warnings[0].message


def test_the_general_feedback_is_after_the_last_four_hashes():
    (question,) = questions("Which? {=a ~b #### see #### this}\n").values()
    assert question.explanation == "this"
    assert [c.feedback for c in question.choices] == ["", "\\### see"]


def test_an_arrow_in_a_multiple_choice_question_is_text_as_in_moodle():
    (question,) = questions("[markdown]Which call? {=`ctx->run()` ~`a -> b`}\n").values()
    assert [c.text for c in question.choices] == ["`ctx->run()`", "`a -> b`"]


def test_a_text_s_format_is_read_once():
    (question,) = questions("[markdown][html]<b>x</b> {=[markdown][plain]a ~b}\n").values()
    assert question.stem == "[html]<b>x</b>"
    assert question.choices[0].text == "[plain]a"
