import pytest

from app.content.markdown import heading_text, render
from app.importers import qa
from app.importers.errors import ImportRefused
from tests.factories import SEED_DIR

SEED = SEED_DIR / "000_21c8a85df645b7bb.txt"
SEED_TITLE = "NCA Inference Optimization & TensorRT 5"
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(1)>"


def seed_text() -> str:
    return SEED.read_text(encoding="utf-8")


def page(*questions: str, title: str = "Sample Set") -> str:
    """Build a Q&A page from question blocks."""
    return "\n".join([f"{title} — Questions and Answers", *questions]) + "\n"


def question(
    number: int = 1,
    stem: str = "Which one?",
    options: tuple[str, ...] = ("Right (Correct answer)", "Wrong"),
    declared: str | None = "Right",
    explanation: str = "Because it is.",
) -> str:
    """Build one question block; declared=None leaves out the 'Correct answer:' line."""
    lines = [f"Question {number}: {stem}", *(f"- {option}" for option in options)]
    if declared is not None:
        lines.append(f"Correct answer: {declared}")
    return "\n".join([*lines, explanation])


def parse(text: str, file: str = "set.txt"):
    bundle, report = qa.parse(text, file)
    return bundle.question_sets[0], report


def refusal(text: str, file: str = "set.txt") -> ImportRefused:
    with pytest.raises(ImportRefused) as caught:
        qa.parse(text, file)
    return caught.value


def plain(markdown: str) -> str:
    """Undo the importer's Markdown escaping."""
    return heading_text(markdown)


def test_seed_is_one_question_set_with_its_title():
    bundle, report = qa.parse(seed_text(), "seed/000.txt")
    assert len(bundle.question_sets) == 1
    assert (bundle.topics, bundle.notes, bundle.placements) == ([], [], [])
    qset = bundle.question_sets[0]
    assert qset.title == SEED_TITLE
    assert qset.slug == "nca-inference-optimization-tensorrt-5"
    assert qset.source == "seed/000.txt"
    assert report.format == "qa"
    assert report.counts["questions"] == 7


def test_seed_questions_have_four_choices_one_correct_and_an_explanation():
    qset, _ = parse(seed_text())
    assert [q.key for q in qset.questions] == ["1", "2", "3", "4", "5", "6", "7"]
    for q in qset.questions:
        assert len(q.choices) == 4, q.key
        assert sum(choice.correct for choice in q.choices) == 1, q.key
        assert q.explanation.strip(), q.key
        assert q.kind == "single"


def test_seed_questions_remember_their_lines():
    qset, _ = parse(seed_text(), "seed/000.txt")
    lines = seed_text().split("\n")
    for q in qset.questions:
        assert lines[q.line - 1].startswith(f"Question {q.key}: ")
        assert q.source == f"seed/000.txt:{q.line}"


def test_seed_scraped_tail_is_reported_and_not_imported():
    lines = seed_text().split("\n")
    qset, report = parse(seed_text())
    assert [(w.line, w.message) for w in report.warnings] == [
        (
            51,
            "dropped lines 51-52: the page's repeated title and first question "
            "(scraped tail), not a question",
        )
    ]
    assert report.counts["dropped_lines"] == 2
    assert lines[50:] == [SEED_TITLE, plain(qset.questions[0].stem)]
    assert len(qset.questions) == 7
    assert qset.questions[-1].explanation.startswith("Maximizing throughput")
    assert SEED_TITLE not in qset.questions[-1].explanation


def rebuilt_lines(qset, report, lines: list[str]) -> list[str]:
    """Write the page back from the bundle plus the lines the report says were dropped."""
    out = [f"{qset.title} — Questions and Answers"]
    for q in qset.questions:
        out.append(f"Question {q.key}: {plain(q.stem)}")
        for choice in q.choices:
            out.append(f"- {plain(choice.text)}" + (" (Correct answer)" if choice.correct else ""))
        right = next(choice for choice in q.choices if choice.correct)
        out.append(f"Correct answer: {plain(right.text)}")
        out.append(plain(q.explanation))
    (tail,) = report.warnings
    first, last = (int(n) for n in tail.message.split()[2].rstrip(":").split("-"))
    return out + [line for line in lines[first - 1 : last] if line.strip()]


def test_seed_every_non_empty_line_is_accounted_for():
    lines = seed_text().split("\n")
    qset, report = parse(seed_text())
    assert rebuilt_lines(qset, report, lines) == [line for line in lines if line.strip()]


def test_page_without_tail_has_no_warning():
    qset, report = parse(page(question(1), question(2)))
    assert len(qset.questions) == 2
    assert report.warnings == []
    assert "dropped_lines" not in report.counts


def test_tail_of_title_only_is_dropped():
    qset, report = parse(page(question(1), "Sample Set", title="Sample Set"))
    assert len(qset.questions) == 1
    assert qset.questions[0].explanation == "Because it is."
    assert [w.line for w in report.warnings] == [7]


def test_stem_and_explanation_may_span_lines():
    text = page(
        "Question 1: Which",
        "one?",
        "- Right (Correct answer)",
        "- Wrong",
        "Correct answer: Right",
        "Because",
        "it is.",
    )
    q = parse(text)[0].questions[0]
    assert (q.stem, q.explanation) == ("Which one?", "Because it is.")


def test_blank_lines_and_star_bullets_are_accepted():
    text = page("", "Question 1: Which one?", "", "* Right (Correct answer)", "* Wrong", "", "Why.")
    q = parse(text)[0].questions[0]
    assert [(c.text, c.correct) for c in q.choices] == [("Right", True), ("Wrong", False)]
    assert q.explanation == "Why."


def test_correct_answer_line_is_matched_ignoring_case_and_spacing():
    text = page(
        question(options=("Right  Answer (Correct answer)", "Wrong"), declared="right answer")
    )
    assert parse(text)[0].questions[0].choices[0].correct


def test_missing_correct_answer_line_and_explanation_are_warnings():
    _, report = parse(page(question(declared=None, explanation="")))
    assert [(w.line, w.message) for w in report.warnings] == [
        (2, "Question 1 has no 'Correct answer:' line; the marked option is used"),
        (2, "Question 1 has no explanation"),
    ]


def two_markers() -> str:
    return page(
        question(1),
        question(2, options=("A (Correct answer)", "B", "C (Correct answer)"), declared="A"),
    )


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            two_markers(),
            10,
            "Question 2 has more than one option marked '(Correct answer)' (lines 8, 10)",
        ),
        (
            page(question(declared="Neither")),
            5,
            "Question 1: 'Correct answer: Neither' matches none of its options",
        ),
        (
            page(question(1), question(2, options=("A", "B"), declared="A")),
            7,
            "Question 2 has no option marked '(Correct answer)'",
        ),
        (
            page(question(options=("Right (Correct answer)", "Wrong"), declared="Wrong")),
            5,
            "Question 1: 'Correct answer:' names a different option than the one marked "
            "'(Correct answer)'",
        ),
        (
            page(question(options=("Only (Correct answer)",), declared="Only")),
            2,
            "Question 1 needs at least two '- option' lines",
        ),
        (
            page(question(1), question(1)),
            7,
            "Question 1 appears twice (first on line 2)",
        ),
        (
            page(question(), "Correct answer: Right"),
            7,
            "Question 1 has two 'Correct answer:' lines",
        ),
        (
            page("Some introduction.", question(1)),
            2,
            "expected 'Question 1: ...' before this line",
        ),
        (page(), 1, "no 'Question 1: ...' line follows the title"),
        (
            "\n\nJust a title\nQuestion 1: x\n",
            3,
            "the title line must end with ' — Questions and Answers'",
        ),
        ("— Questions and Answers\nQuestion 1: x\n", 1, "the title line has no title"),
        ("", 1, "the file is empty"),
    ],
    ids=[
        "two-markers",
        "declared-matches-no-option",
        "no-marked-option",
        "declared-disagrees-with-marker",
        "one-option",
        "duplicate-number",
        "two-declared-lines",
        "text-before-first-question",
        "no-questions",
        "no-title-suffix",
        "empty-title",
        "empty",
    ],
)
def test_bad_pages_are_refused_naming_file_and_line(text, line, message):
    error = refusal(text, "bad.txt")
    assert (error.file, error.line, error.message) == ("bad.txt", line, message)
    assert str(error) == f"bad.txt:{line}: {message}"


def test_looks_like_wants_the_title_suffix_and_a_question():
    assert qa.looks_like(seed_text())
    assert qa.looks_like("\n\n" + page(question()))
    assert not qa.looks_like("Sample Set\nQuestion 1: x\n")
    assert not qa.looks_like("")


def test_markdown_in_text_is_kept_literal():
    text = page(
        question(stem="Is *this* [bold](x)?", explanation="Use `mark_output()` and __init__.")
    )
    q = parse(text)[0].questions[0]
    assert render(q.stem) == "<p>Is *this* [bold](x)?</p>\n"
    assert render(q.explanation) == "<p>Use `mark_output()` and __init__.</p>\n"


def test_bare_url_in_explanation_becomes_a_link():
    q = parse(page(question(explanation="See https://example.com/guide.")))[0].questions[0]
    assert q.explanation == "See <https://example.com/guide>."


def test_hostile_html_is_imported_as_escaped_text():
    text = page(
        question(
            stem=f"Is {HOSTILE} safe?",
            options=(f"No {HOSTILE} (Correct answer)", "Yes"),
            declared=f"No {HOSTILE}",
            explanation=f"Because {HOSTILE} runs.",
        ),
        title=f"Hostile {HOSTILE}",
    )
    qset, _ = parse(text)
    q = qset.questions[0]
    for markdown in (q.stem, q.explanation, *(c.text for c in q.choices)):
        html = render(markdown)
        assert "<script" not in html
        assert "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in render(q.stem)
    assert "&lt;img src=x onerror=alert(1)&gt;" in render(q.explanation)
    assert qset.slug == "hostile-script-alert-1-script-img-src-x-onerror-alert-1"
