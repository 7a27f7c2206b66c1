"""Input the database could not hold, or a learner could not answer, is refused up front."""

import json

import pytest

from app.importers.errors import ImportRefused
from tests.factories import exported, import_file, row_counts


def _qa(title: str = "Set", number: str = "1", extra: str = "") -> bytes:
    return (
        f"{title} — Questions and Answers\n"
        f"Question {number}: Which?\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n{extra}"
    ).encode()


def _export(**question: object) -> bytes:
    base = {
        "id": "s/1",
        "set": "s",
        "stem": "Which?",
        "choices": [{"text": "a", "correct": True}, {"text": "b", "correct": False}],
    }
    return json.dumps(
        {
            "format": "studyhall.content/1",
            "question_sets": [{"slug": "s", "title": "S"}],
            "questions": [{**base, **question}],
        },
        indent=2,
    ).encode()


def _note(items: str) -> bytes:
    return f"someone\n\nA Note\nWritten in\nby\nsomeone\n, ,\n{items}Tags\n".encode()


def _doc(**parts: object) -> bytes:
    return json.dumps({"format": "studyhall.content/1", **parts}, indent=2).encode()


LONG_HEADING = " ".join(["calibration"] * 12)  # fits as a heading, not as an anchor


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (b"\n\n" + _qa(title="T" * 250), 3, "slug (from its title) is 250 characters long"),
        (_note(f"  1. Short\n    1. Nested\n  2. {LONG_HEADING}\n"), 10, "section anchor is"),
        (_note(f"  1. {'x' * 400}\n  2. Fine\n"), 8, "section heading is 400 characters"),
        (_doc(question_sets=[{"slug": "s", "title": "S", "topic": "nope"}]), 5, "unknown topic"),
        (
            _doc(notes=[{"slug": "n", "title": "N", "markdown": "Hi", "topic": "nope"}]),
            5,
            "unknown topic",
        ),
        (b'{\n  "topics": [],\n  "format": "other"\n}', 3, "not a Studyhall export"),
        (_doc(topics=[], quizzes="x"), 4, "quizzes: Extra inputs are not permitted"),
        (b'{\n"format": "studyhall.content/1",\n"a": ' + b"[" * 5_000, 3, "nested too deeply"),
        (_qa(title="T" * 250), 1, "slug (from its title) is 250 characters long"),
        (_qa(number="9" * 70), 2, "question number is 70 characters long"),
        (
            _export(choices=[{"text": "a", "correct": False}, {"text": "b", "correct": False}]),
            11,
            "no correct choice",
        ),
        (
            _export(choices=[{"text": "a", "correct": True}, {"text": "b", "correct": True}]),
            11,
            "marks 2 choices correct",
        ),
        (b'{"a": ' + b"[" * 200_000, 1, "nested too deeply"),
        (b'format = "studyhall.catalog/1"\n' + b"a = " + b"[" * 5_000, 2, "nested too deeply"),
        (
            b'format = "studyhall.catalog/1"\n[[topics]]\nslug = "a"\ntitle = "A"\nparent = ["b"]\n',
            3,
            "parent must be a topic slug",
        ),
    ],
)
def test_refused_with_file_line_and_reason(db, data, line, message):
    before = row_counts(db)
    with pytest.raises(ImportRefused) as refused:
        import_file(db, data, "f.txt", 0.12)
    assert refused.value.file == "f.txt" and message in refused.value.message
    assert refused.value.line == line
    assert row_counts(db) == before


def test_a_repeated_question_id_in_an_export_is_refused(db):
    doc = json.loads(_export())
    doc["questions"].append(dict(doc["questions"][0]))
    with pytest.raises(ImportRefused, match="appears twice"):
        import_file(db, json.dumps(doc).encode(), "f.json", 0.12)


def test_a_multi_question_may_mark_several(db):
    data = _export(
        kind="multi",
        choices=[{"text": "a", "correct": True}, {"text": "b", "correct": True}],
    )
    assert import_file(db, data, "f.json", 0.12).counts["questions_created"] == 1


def test_a_repeated_link_target_counts_once(seeded):
    catalog = (
        'format = "studyhall.catalog/1"\n'
        '[questions."nca-inference-optimization-tensorrt-5/1"]\n'
        'notes = ["tensorrt-note-2#working-with-mixed-precision", '
        '"tensorrt-note-2#working-with-mixed-precision"]\n'
    )
    report = import_file(seeded, catalog.encode(), "c.toml", 0.12)
    assert report.counts["explicit_links"] == 1


def _page(stem: str) -> bytes:
    return f"Set — Questions and Answers\nQuestion 1: {stem}\n- a (Correct answer)\n- b\n".encode()


def _hidden(code: str, name: str, at: int) -> str:
    return f"holds the invisible character U+{code} ({name}) at character {at}; such characters"


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (
            _page("Which \u202eevil?"),
            2,
            "question '1': the stem " + _hidden("202E", "RIGHT-TO-LEFT OVERRIDE", 7),
        ),
        (  # written as the escape \u200b: JSON's escapes are no way around it
            _export(
                choices=[{"text": "a", "correct": True}, {"text": "b\u200b", "correct": False}]
            ),
            11,
            "question '1': the choice 2 " + _hidden("200B", "ZERO WIDTH SPACE", 2),
        ),
        (
            _note("  1. Fine\n  2. Read \u2066this\u2069\n"),
            3,
            "note 'a-note': the text " + _hidden("2066", "LEFT-TO-RIGHT ISOLATE", 19),
        ),
        (
            'format = "studyhall.catalog/1"\n[[topics]]\nslug = "a"\ntitle = "A\u200e"\n'.encode(),
            3,
            "topic 'a': the title " + _hidden("200E", "LEFT-TO-RIGHT MARK", 2),
        ),
        (
            (
                'format = "studyhall.errata/1"\n[[errata]]\ntarget = "s/1"\nkind = "typo"\n'
                'text = "A slip\u200din it."\n'
            ).encode(),
            2,
            "erratum on 's/1': the text " + _hidden("200D", "ZERO WIDTH JOINER", 7),
        ),
    ],
    ids=["bidi-override", "zero-width-space-escaped", "isolate", "mark", "joiner"],
)
def test_invisible_characters_that_reorder_or_hide_text_are_refused(db, data, line, message):
    before = row_counts(db)
    with pytest.raises(ImportRefused) as refused:
        import_file(db, data, "f.txt", 0.12)
    assert (refused.value.file, refused.value.line) == ("f.txt", line)
    assert message in refused.value.message
    assert row_counts(db) == before


def test_joiners_and_marks_that_belong_to_the_text_are_kept(db):
    texts = [
        "Which family? 👨\u200d👩\u200d👧 or ❤\ufe0f\u200d🔥",  # emoji sequences
        "می\u200cخواهم",  # Persian: a joiner that keeps two letters apart
        "क्\u200dष",  # Devanagari: a joiner that shapes a conjunct
        "שלום\u200f (Hebrew) and INT8",  # a mark beside a right-to-left word
    ]
    choices = [{"text": text, "correct": n == 0} for n, text in enumerate(texts)]
    import_file(db, _export(choices=choices), "f.json", 0.12)
    assert [c["text"] for c in exported(db)["questions"][0]["choices"]] == texts
