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
    assert stats.by_length == (11, 11, 11, 11)  # four choices of one length: ties split
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
        (reference(url="https://docs.example.org/latest/3"), "weak-reference", "/latest/"),
        (edit(3, versions=[]), "no-version", "says no product version"),
        (edit(3, difficulty=None), "no-difficulty", "has no difficulty or no level"),
        (edit(3, level=None), "no-difficulty", "has no difficulty or no level"),
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
    giveaways = [k for k in kinds(checked(db, document)) if k[0] == "giveaway-choice"]
    assert giveaways == ([("giveaway-choice", "bank/4")] if found else [])


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


def rank_right(document: Document, ranks: list[int]) -> None:
    """Make the right choice of question n the ranks[n]-th longest (1 to 4), no two choices
    of a question the same length."""
    for item, rank in zip(document["questions"], ranks, strict=False):
        pads = [4, 3, 2, 1]
        right = pads.pop(rank - 1)
        for entry in item["choices"]:
            entry["text"] += " x" * (right if entry["correct"] else pads.pop())


@pytest.mark.parametrize(
    ("twos", "found"),
    [(7, True), (6, False)],  # 7 of 20 is 35%, 6 is 30%: at most 30%
)
def test_a_length_rule_finding_the_right_choice_in_over_30_percent_of_a_set(db, twos, found):
    document = a_bank({"alpha": 20})
    others = [1, 3, 4] * 5
    rank_right(document, [2] * twos + others[: 20 - twos])
    report = checked(db, document)
    assert report.sets[0].by_length[1] == twos
    if not found:
        assert report.findings == ()
        return
    (finding,) = report.findings
    assert (finding.kind, finding.subject) == ("length-cue", "bank")
    assert finding.message == (
        "picking the second-longest choice finds the right one in 7 of 20 single-answer "
        "questions (35%; at most 30%, ties split)"
    )
    assert [q.ref for q in finding.questions] == [f"bank/{n}" for n in range(1, 8)]


@pytest.mark.parametrize(
    ("rank", "rule"), [(1, "the longest"), (3, "the third-longest"), (4, "the shortest")]
)
def test_each_length_rule_is_judged(db, rank, rule):
    document = a_bank({"alpha": 20})
    others = [r for r in (1, 2, 3, 4) if r != rank] * 5
    rank_right(document, [rank] * 7 + others[:13])
    (finding,) = checked(db, document).findings
    assert finding.message.startswith(f"picking {rule} choice finds the right one in 7 of 20")


def test_a_tie_splits_the_hit_between_the_tied_choices(db):
    document = a_bank({"alpha": 20})
    for item in document["questions"][:4]:  # the right one ties with another for longest
        partner = next(entry for entry in item["choices"] if not entry["correct"])
        for entry in item["choices"]:
            entry["text"] += " long" if entry["correct"] or entry is partner else ""
    report = checked(db, document)
    assert report.sets[0].by_length == (2 + 4, 2 + 4, 4, 4)  # 4 halves, 16 quarters each
    assert report.findings == ()  # 6 of 20 is 30%, no more


def test_length_rules_are_judged_over_12_questions_and_over_all_sets(db):
    document = a_bank({"alpha": 11, "beta": 12})
    rank_right(document, [1] * 23)
    small = a_bank({"gamma": 7}, set_slug="small")
    rank_right(small, [1] * 7)
    document["topics"] += small["topics"][1:]
    document["question_sets"] += small["question_sets"]
    document["notes"] += small["notes"]
    document["questions"] += small["questions"]
    report = checked(db, document)
    length = [f for f in report.findings if f.kind == "length-cue"]
    assert [(f.subject, f.message.split(" finds")[0]) for f in length] == [
        ("bank", "picking the longest choice"),
        ("all sets", "picking the longest choice"),
    ]
    assert [len(f.questions) for f in length] == [23, 30]
    with db.session_scope() as session:  # one set: its own finding says it all
        one = check_content(session, ["bank"]).findings
        assert [f.subject for f in one if f.kind == "length-cue"] == ["bank"]
        assert [f.kind for f in check_content(session, ["small"]).findings] == ["thin-topic"]


@pytest.mark.parametrize(
    ("wrong", "right", "found"),
    [
        ("It never runs on the DLA", "Option B", "never"),
        ("ALL layers, always", "Option B", "all, always"),
        ("It cannot run", "It must run", None),  # the key makes absolute claims too
        ("Set `--noDataTransfers=all`", "Option B", None),  # code, not a claim
        ("Nevertheless it runs", "Option B", None),
    ],
)
def test_absolute_words_only_in_distractors_give_the_key_away(db, wrong, right, found):
    document = a_bank({"alpha": 20})
    choices = question(document, 5)["choices"]  # the right one is choice 2
    choices[0]["text"], choices[1]["text"] = wrong, right
    report = checked(db, document)
    if found is None:
        assert kinds(report) == []
        return
    (finding,) = report.findings
    assert (finding.kind, finding.subject) == ("absolute-distractor", "bank/5")
    assert finding.message == f"only its distractors say {found}"


@pytest.mark.parametrize(
    ("explanation", "places"),
    [
        ("The first option is right; the last choice is wrong.", "'first option', 'last choice'"),
        ("As the answer above says, option B holds.", "'option B'"),
        ("Answer (C) is wrong, and so is choice 3.", "'Answer (C)', 'choice 3'"),
        ("The second answer drops the cache.", "'second answer'"),
        ("The first layer comes first; an answer a model gives is an option.", None),
        ("Option-based flags and choice 3D grids differ.", None),
    ],
)
def test_an_explanation_naming_choices_by_place(db, explanation, places):
    document = a_bank({"alpha": 20})
    question(document, 6)["explanation"] = explanation
    report = checked(db, document)
    if places is None:
        assert report.findings == ()
        return
    (finding,) = report.findings
    assert (finding.kind, finding.subject) == ("position-in-explanation", "bank/6")
    assert finding.message.startswith(f"its explanation names choices by their place ({places})")


@pytest.mark.parametrize(
    ("stem", "wrong", "uses", "found"),
    [
        ("Which calibrator keeps scales?", "Option A", 1, True),
        ("Which calibrators keep scales?", "Option A", 1, True),  # plural aside
        ("Which calibrator keeps scales?", "Calibrator A", 1, False),  # a distractor says it
        ("Which calibrator keeps scales?", "Option A", 4, False),  # the set's vocabulary
        ("Which `calibrator` keeps scales?", "Option A", 1, False),  # code
        ("Which knob keeps scales?", "Option A", 1, False),
    ],
)
def test_a_stem_word_only_the_key_repeats(db, stem, wrong, uses, found):
    document = a_bank({"alpha": 20})
    for n in range(1, uses + 1):  # question 1's right choice is choice 2
        question(document, n)["choices"][1]["text"] = "Calibrator B"
    question(document, 1)["stem"] = stem
    question(document, 1)["choices"][0]["text"] = wrong
    report = checked(db, document)
    if found:
        (finding,) = report.findings
        assert (finding.kind, finding.subject) == ("stem-echoes-key", "bank/1")
        assert finding.message == "its stem and only its right choice say calibrator"
    else:
        assert report.findings == ()


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


def test_positions_are_judged_only_over_20_questions(db):
    document = a_bank({"alpha": 19, "beta": 20})
    alpha = a_bank({"alpha": 19}, set_slug="small")
    move_right_to_first(alpha, 19)
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


def test_a_finding_an_author_accepted_on_a_question_is_listed_apart(db):
    document = a_bank({"alpha": 20})
    question(document, 3)["versions"] = []
    question(document, 5)["references"][0]["url"] = "https://docs.example.org/latest/5"
    question(document, 5)["accepted"] = ["weak-reference", "stem-echoes-key"]
    report = checked(db, document)
    assert kinds(report) == [("no-version", "bank/3")]
    assert [(f.kind, f.subject) for f in report.accepted] == [("weak-reference", "bank/5")]
