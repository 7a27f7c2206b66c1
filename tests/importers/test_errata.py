"""The errata format: parsed with the line of each entry, refused with file and line."""

import pytest

from app.content.errata import ProblemReport
from app.importers import errata as errata_format
from app.importers.errata import parse
from app.importers.errors import ImportRefused
from tests.factories import SEED_DIR, count_rows, import_file, load_seed

HEAD = 'format = "studyhall.errata/1"\n'
ENTRY = '\n[[errata]]\ntarget = "{target}"\nkind = "{kind}"\ntext = "{text}"\n'


def errata(*entries: dict[str, str]) -> str:
    defaults = {"target": "tensorrt-note-2#working-with-mixed-precision", "kind": "typo"}
    return HEAD + "".join(
        ENTRY.format(**{**defaults, "text": "A slip in the note.", **e}) for e in entries
    )


def refusal(text: str) -> tuple[int, str]:
    with pytest.raises(ImportRefused) as caught:
        parse(text, "errata.toml")
    return caught.value.line, caught.value.message


def test_the_seed_errata_parse_with_their_lines():
    bundle, report = parse((SEED_DIR / "errata.toml").read_text(), "seed/errata.toml")
    assert len(bundle.errata) == report.counts["errata"] == 4
    assert {e.target for e in bundle.errata} == {"tensorrt-note-2#working-with-mixed-precision"}
    assert [e.kind for e in bundle.errata] == ["typo", "outdated", "typo", "outdated"]
    assert all(e.line > 1 for e in bundle.errata)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            errata({}, {"kind": "rant"}),
            8,
            "kind must be one of wrong-answer, typo, outdated, other",
        ),
        (errata({"target": "just-words"}), 3, "target must be a question ('set/key')"),
        (errata({"text": ""}), 3, "text must be 1 to 1000 characters"),
        (errata({"text": "x" * 1001}), 3, "text must be 1 to 1000 characters"),
        (HEAD + '\n[[errata]]\ntarget = "a/1"\nkind = "typo"\n', 3, "text is required"),
        (errata({}).replace("kind =", "sort =", 1), 3, "unknown key 'sort'"),
        ('format = "studyhall.errata/2"\n', 1, 'format must be "studyhall.errata/1"'),
        (HEAD + "errata = 3\n", 2, "errata must be [[errata]] tables"),
        (HEAD + "[[errata]\n", 2, "invalid TOML"),
        (HEAD + 'other = "x"\n', 2, "unknown key 'other'"),
    ],
)
def test_bad_entries_are_refused_with_their_line(text, line, message):
    got_line, got_message = refusal(text)
    assert got_line == line
    assert message in got_message


def test_90000_empty_entries_are_refused_without_reading_the_file_once_an_entry(text_searches):
    searches = text_searches(errata_format)
    text = HEAD + "[[errata]]\n" * 90_000
    line, message = refusal(text)
    assert (line, message) == (2, "kind is required and must be a string")
    assert searches == []


def test_a_bad_last_entry_of_many_is_refused_at_its_own_line(text_searches):
    searches = text_searches(errata_format)
    entry = '[[errata]]\ntarget = "s/1"\nkind = "typo"\ntext = "A slip."\n'
    text = HEAD + entry * 15_000 + entry.replace("typo", "rant")
    assert refusal(text) == (60_002, "kind must be one of wrong-answer, typo, outdated, other")
    assert searches == []


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("tensorrt-note-2#no-such-section", "no note section 'tensorrt-note-2#no-such-section'"),
        ("nca-inference-optimization-tensorrt-5/99", "no question"),
        ("no-such-set/1", "no question 'no-such-set/1'"),
    ],
)
def test_errata_about_missing_content_are_refused_and_nothing_is_written(seeded, target, message):
    text = errata({}, {"target": target})
    with pytest.raises(ImportRefused) as caught:
        import_file(seeded, text.encode(), "more-errata.toml")
    assert caught.value.line == 8 and message in caught.value.message
    assert str(caught.value).startswith("more-errata.toml:8:")
    assert count_rows(seeded, ProblemReport) == 4  # the seed's, and none of these


def test_an_erratum_on_a_question_is_filed_once(seeded):
    text = errata({"target": "nca-inference-optimization-tensorrt-5/3", "kind": "wrong-answer"})
    first = import_file(seeded, text.encode(), "q.toml")
    again = import_file(seeded, text.encode(), "q.toml")
    assert first.counts["errata_created"] == 1 and again.counts["errata_unchanged"] == 1
    assert count_rows(seeded, ProblemReport, ProblemReport.question_id.is_not(None)) == 1


def test_seed_run_again_files_nothing_new(seeded):
    load_seed(seeded)
    assert count_rows(seeded, ProblemReport) == 4


def test_the_format_is_detected(seeded):
    report = import_file(seeded, errata({"text": "Another slip here."}).encode(), "x.toml")
    assert report.format == "errata"
