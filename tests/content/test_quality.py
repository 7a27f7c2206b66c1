"""Content checks: each finding on content made to have it, and none on a clean bank."""

import json
import random
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest

from app.content.quality import ContentReport, check_content
from app.content.stems import NEAR, similar_pairs, similarity, words
from app.db import Database
from tests.factories import a_bank, import_file

Document = dict[str, Any]


def checked(db: Database, document: Document, *prefixes: str) -> ContentReport:
    import_file(db, json.dumps(document).encode(), "bank.json", threshold=0.99)
    with db.session_scope() as session:
        return check_content(session, prefixes)


def kinds(report: ContentReport) -> list[tuple[str, str]]:
    return [(f.kind, f.subject) for f in report.findings]


def test_a_clean_bank_has_no_findings(db):
    report = checked(db, a_bank({"alpha": 20, "beta": 24}))
    assert report.findings == ()
    assert report.questions == 44
    (stats,) = report.sets
    assert (stats.questions, stats.single, stats.four_choice) == (44, 44, 44)
    assert stats.positions == (11, 11, 11, 11)
    assert stats.longest_right == 0
    assert [(t.slug, t.depth, t.questions, t.notes, t.leaf) for t in report.topics] == [
        ("bank-root", 0, 0, 0, False),
        ("alpha", 1, 20, 1, True),
        ("beta", 1, 24, 1, True),
    ]


def question(document: Document, n: int) -> dict[str, Any]:
    return document["questions"][n - 1]


def edit(n: int, **fields: Any) -> Callable[[Document], None]:
    return lambda document: question(document, n).update(fields)


def reference(**fields: Any) -> Callable[[Document], None]:
    return lambda document: question(document, 3)["references"][0].update(fields)


def choice(text: str) -> Callable[[Document], None]:
    return lambda document: question(document, 4)["choices"][3].update(text=text)


@pytest.mark.parametrize(
    ("change", "kind", "message"),
    [
        (edit(3, explanation=" \n"), "no-explanation", "has no explanation"),
        (edit(3, references=[]), "no-reference", "cites no source"),
        (reference(url="http://docs.example.org/3"), "weak-reference", "not an https://"),
        (reference(version=None), "weak-reference", "does not say which version"),
        (edit(3, notes=[]), "no-note-link", "is linked to no note section"),
    ],
)
def test_each_question_gap_is_a_finding(db, change, kind, message):
    document = a_bank({"alpha": 20})
    change(document)
    report = checked(db, document)
    (finding,) = report.findings
    assert (finding.kind, finding.subject) == (kind, "bank/3")
    assert message in finding.message
    assert [q.ref for q in finding.questions] == ["bank/3"]
    assert finding.questions[0].stem.startswith("Which knob 3 sets alpha3a")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("All of the above", True),
        ("none of these", True),
        ("(None of the above.)", True),
        ("All of them, from the timing cache", False),
        ("Nonetheless, the above", False),
    ],
)
def test_all_or_none_of_the_above_gives_the_game_away(db, text, found):
    document = a_bank({"alpha": 20})
    choice(text)(document)
    assert kinds(checked(db, document)) == ([("giveaway-choice", "bank/4")] if found else [])


def test_a_suggested_note_link_does_not_count_as_one(db):
    document = a_bank({"alpha": 20})
    question(document, 5)["notes"] = []
    question(document, 5)["stem"] = "What every question asks about facts?"  # the note's words
    import_file(db, json.dumps(document).encode(), "bank.json", threshold=0.01)
    with db.session_scope() as session:
        assert kinds(check_content(session)) == [("no-note-link", "bank/5")]


def test_the_same_stem_twice_is_a_duplicate_whatever_its_case_and_marks(db):
    document = a_bank({"alpha": 20})
    question(document, 2)["stem"] = "Which **flag** enables `kFP16` in `trtexec`?"
    question(document, 7)["stem"] = "which flag enables kFP16 in trtexec"
    (finding,) = checked(db, document).findings
    assert (finding.kind, finding.message) == ("duplicate-stem", "2 questions ask the same stem")
    assert [q.ref for q in finding.questions] == ["bank/2", "bank/7"]


TEN = "which builder flag lets engine keep refittable weights after build"


@pytest.mark.parametrize(
    ("other", "score", "near"),
    [
        (TEN.replace("keep", "hold"), Fraction(9, 11), True),  # one word of ten changed
        (TEN.replace("keep", "hold").replace("after", "before"), Fraction(8, 12), False),
        (TEN + " time", Fraction(10, 11), True),  # one word added
        ("which builder flag lets engine keep", Fraction(6, 10), False),  # a shorter ask
    ],
)
def test_near_duplicate_stems_share_four_words_in_five(db, other, score, near):
    assert similarity(frozenset(words(TEN)), frozenset(words(other))) == score
    document = a_bank({"alpha": 20})
    question(document, 2)["stem"] = TEN + "?"
    question(document, 9)["stem"] = other.capitalize() + "?"
    report = checked(db, document)
    if near:
        (finding,) = report.findings
        assert finding.kind == "near-duplicate-stem"
        assert finding.message == f"shares {float(score):.0%} of its stem's words with bank/9"
        assert [q.ref for q in finding.questions] == ["bank/2", "bank/9"]
    else:
        assert report.findings == ()


def test_words_keep_code_terms_whole():
    assert words("Use `kSTRICT_TYPES`, **--saveEngine** and _2:4_ with trt.BuilderFlag.REFIT!") == (
        "use",
        "kstrict_types",
        "saveengine",
        "and",
        "2:4",
        "with",
        "trt.builderflag.refit",
    )


def test_prefix_filtering_finds_exactly_the_pairs_a_full_comparison_finds():
    rng = random.Random(11)
    vocabulary = [f"w{n}" for n in range(30)]
    stems = [frozenset(rng.sample(vocabulary, rng.randint(1, 12))) for _ in range(300)]
    stems += [stems[n] | {"extra"} for n in range(0, 300, 7)]  # some near copies
    everything = [
        (i, j, similarity(a, b))
        for (i, a), (j, b) in combinations(enumerate(stems), 2)
        if similarity(a, b) >= NEAR
    ]
    assert len(everything) >= 30
    assert sorted(similar_pairs(stems)) == everything


def longest_right(document: Document, count: int) -> None:
    """Make the right choice the strictly longest in the first count questions."""
    for item in document["questions"][:count]:
        for entry in item["choices"]:
            if entry["correct"]:
                entry["text"] += " in full"


@pytest.mark.parametrize(("count", "found"), [(9, True), (8, False)])
def test_the_right_choice_longest_in_over_40_percent_of_a_set(db, count, found):
    document = a_bank({"alpha": 20})
    longest_right(document, count)
    report = checked(db, document)
    assert report.sets[0].longest_right == count
    if not found:
        assert report.findings == ()
        return
    (finding,) = report.findings
    assert (finding.kind, finding.subject) == ("longest-is-right", "bank")
    assert finding.message.startswith("the right choice is the longest in 9 of 20")
    assert len(finding.questions) == 9


def test_a_longest_choice_tied_with_another_is_no_giveaway(db):
    document = a_bank({"alpha": 20})
    for item in document["questions"]:
        item["choices"][0]["text"] += " in full"
        item["choices"][1]["text"] += " in full"
    assert checked(db, document).findings == ()


def move_right_to_first(document: Document, count: int) -> None:
    """Put the right choice first in count questions that have it elsewhere."""
    moved = 0
    for item in document["questions"]:
        choices = item["choices"]
        if moved < count and not choices[0]["correct"]:
            for entry in choices:
                entry["correct"] = entry is choices[0]
            moved += 1


@pytest.mark.parametrize(("count", "found"), [(4, True), (3, False)])
def test_one_position_holding_over_40_percent_of_the_right_answers(db, count, found):
    document = a_bank({"alpha": 20})
    move_right_to_first(document, count)  # 5 at position 1 already
    report = checked(db, document)
    assert report.sets[0].positions[0] == 5 + count
    if found:
        (finding,) = report.findings
        assert (finding.kind, finding.subject) == ("position-bias", "bank")
        assert finding.message.startswith("the right choice is number 1 in 9 of 20")
    else:
        assert report.findings == ()


def test_distributions_are_judged_only_over_20_questions(db):
    document = a_bank({"alpha": 19, "beta": 20})
    alpha = a_bank({"alpha": 19}, set_slug="small")
    move_right_to_first(alpha, 19)
    longest_right(alpha, 19)
    document["question_sets"] += alpha["question_sets"]
    document["questions"] = alpha["questions"] + a_bank({"beta": 20})["questions"]
    report = checked(db, document)
    assert [s.positions[0] for s in report.sets] == [5, 19]
    assert kinds(report) == [("thin-topic", "alpha")]


def test_a_leaf_topic_needs_20_questions_and_a_note(db):
    document = a_bank({"alpha": 19, "beta": 20, "gamma": 20})
    document["notes"] = [n for n in document["notes"] if n["topic"] != "gamma"]
    for item in document["questions"]:
        item["notes"] = [] if item["topic"] == "gamma" else item["notes"]
    report = checked(db, document)
    topic_findings = [(f.kind, f.subject, f.message) for f in report.findings if not f.questions]
    assert topic_findings == [
        ("thin-topic", "alpha", "holds 19 question(s); a leaf topic needs at least 20"),
        ("topic-without-note", "gamma", "holds questions but no note"),
    ]


def test_prefixes_limit_the_checks_to_their_sets(db):
    document = a_bank({"alpha": 20})
    other = a_bank({"beta": 20}, set_slug="other")
    document["topics"] += other["topics"][1:]
    document["question_sets"] += other["question_sets"]
    document["notes"] += other["notes"]
    for item in other["questions"]:
        item["references"] = []
    document["questions"] += other["questions"]
    assert len(checked(db, document).findings) == 20
    with db.session_scope() as session:
        report = check_content(session, ["ba"])
        assert (report.questions, report.findings) == (20, ())
        assert [f.subject for f in check_content(session, ["oth", "x"]).findings][:2] == [
            "other/1",
            "other/2",
        ]
        assert check_content(session, ["%"]).questions == 0  # a prefix, never a pattern
