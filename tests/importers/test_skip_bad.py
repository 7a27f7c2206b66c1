"""Importing the questions of a file that can be read, leaving out and naming the others."""

import pytest

from app.importers.errors import ImportRefused
from app.importers.service import parse_document
from tests.factories import SEED_DIR, import_file, row_counts

GIFT = "::One:: Good? {=a ~b}\n\n::Two:: Bad? {=a ~}\n\n::Three:: Essay? {}\n\n::Four:: Fine? {~a =b}\n"
XML = """<quiz>
<question type="multichoice"><name><text>One</text></name>
<questiontext><text>Good?</text></questiontext>
<answer fraction="100"><text>a</text></answer><answer fraction="0"><text>b</text></answer>
</question>
<question type="multichoice"><name><text>Two</text></name>
<questiontext><text>Bad?</text></questiontext>
<answer fraction="0"><text>a</text></answer><answer fraction="0"><text>b</text></answer>
</question>
<question type="essay"><name><text>Three</text></name></question>
</quiz>
"""
CSV = "question,choice_a,choice_b,right\nGood?,a,b,A\nBad?,a,b,E\nFine?,a,b,B\n"
NO_SKIPPING = "skipping bad questions applies only to Aiken, GIFT, Moodle XML and CSV files"


@pytest.mark.parametrize(
    ("name", "text", "line", "reason", "questions", "skipped"),
    [
        ("bank.gift", GIFT, 3, "choice 2 has no text", 2, {"essay": 1}),
        ("bank.xml", XML, 6, "none of the answers is right", 1, {"essay": 1}),
        ("bank.csv", CSV, 3, "column right: ", 2, {}),
    ],
)
def test_bad_questions_are_refused_alone_on_request(name, text, line, reason, questions, skipped):
    with pytest.raises(ImportRefused) as caught:
        parse_document(text.encode(), name)
    assert caught.value.line == line and reason in caught.value.message
    bundle, report = parse_document(text.encode(), name, skip_bad=True)
    assert sum(len(s.questions) for s in bundle.question_sets) == questions
    refused = [(w.line, w.message) for w in report.warnings if w.message.startswith("refused")]
    assert len(refused) == 1 and refused[0][0] == line
    assert refused[0][1].startswith(f"refused: {reason}")
    assert report.counts["refused"] == 1 and report.skipped == skipped


def test_the_good_questions_are_imported_and_the_bad_ones_named(db):
    report = import_file(db, GIFT.encode(), "bank.gift", skip_bad=True)
    assert report.counts["questions_created"] == 2 and report.counts["refused"] == 1
    assert row_counts(db)["question"] == 2


def test_a_format_that_cannot_skip_says_so():
    qa = (SEED_DIR / "000_21c8a85df645b7bb.txt").read_bytes()
    _, report = parse_document(qa, "qa.txt", skip_bad=True)
    assert report.warnings[-1].line == 1
    assert report.warnings[-1].message == (
        f"{NO_SKIPPING}: this qa file is imported whole or not at all"
    )
    bad = qa.replace(b"(Correct answer)", b"", 1)
    with pytest.raises(ImportRefused) as caught:
        parse_document(bad, "qa.txt", skip_bad=True)
    assert caught.value.message.endswith(f" ({NO_SKIPPING})")
