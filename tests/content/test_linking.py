from collections import Counter
from contextlib import nullcontext

import pytest
from sqlalchemy import select

from app.content.bundle import Bundle, ChoiceData, NoteData, QuestionData, QuestionSetData
from app.content.linking import MAX_SUGGESTIONS, suggest_links, tokens
from app.content.models import NoteSection, Question, QuestionNoteLink
from app.db import Database
from tests.factories import load, load_seed

DEFAULT_THRESHOLD = 0.12


def link_rows(db: Database) -> list[tuple[str, str, str, float]]:
    """Return (question key, section anchor, origin, score) for every link."""
    with db.session_scope() as session:
        rows = session.execute(
            select(
                Question.key, NoteSection.anchor, QuestionNoteLink.origin, QuestionNoteLink.score
            )
            .join(Question, QuestionNoteLink.question_id == Question.id)
            .join(NoteSection, QuestionNoteLink.section_id == NoteSection.id)
            .order_by(Question.key, NoteSection.anchor)
        )
        return [tuple(row) for row in rows]


def of_origin(db: Database, origin: str) -> list[tuple[str, str]]:
    return [(key, anchor) for key, anchor, kind, _ in link_rows(db) if kind == origin]


def refresh(db: Database, threshold: float) -> int:
    with db.session_scope(write=True) as session:
        return suggest_links(lambda write: nullcontext(session), None, threshold)


def test_tokens_are_lower_case_content_words():
    assert tokens("The INT8 calibration, and FP16 for 2x speed-up of a TensorRT engine!") == [
        "int8",
        "calibration",
        "fp16",
        "2x",
        "speed",
        "up",
        "tensorrt",
        "engine",
    ]


def test_tokens_drop_stop_words_numbers_and_single_letters():
    assert tokens("What is it? 4 of 5, a b c, all the other ones") == ["ones"]


def test_seed_has_the_catalog_links_and_suggestions(seeded):
    assert of_origin(seeded, "explicit") == [
        ("3", "working-with-mixed-precision"),
        ("6", "working-with-reformat-free-network-i-o-tensors"),
    ]
    assert len(of_origin(seeded, "suggested")) >= 1


def test_suggestions_never_repeat_a_pair(seeded):
    pairs = [(key, anchor) for key, anchor, _, _ in link_rows(seeded)]
    assert len(pairs) == len(set(pairs))
    assert not set(of_origin(seeded, "suggested")) & set(of_origin(seeded, "explicit"))


def test_suggestion_scores_reach_the_threshold(seeded):
    scores = [score for _, _, origin, score in link_rows(seeded) if origin == "suggested"]
    assert all(DEFAULT_THRESHOLD <= score <= 1 for score in scores)
    assert {score for _, _, origin, score in link_rows(seeded) if origin == "explicit"} == {1.0}


def test_high_threshold_suggests_nothing(db):
    load_seed(db, threshold=0.9)
    assert of_origin(db, "suggested") == []
    assert len(of_origin(db, "explicit")) == 2


def test_refresh_with_a_high_threshold_removes_suggestions_but_keeps_explicit_links(seeded):
    explicit = of_origin(seeded, "explicit")
    assert refresh(seeded, 0.9) == 0
    assert of_origin(seeded, "suggested") == []
    assert of_origin(seeded, "explicit") == explicit


def test_refresh_replaces_old_suggestions(seeded):
    fresh = of_origin(seeded, "suggested")
    with seeded.session_scope(write=True) as session:
        question = session.scalars(select(Question).where(Question.key == "7")).one()
        section = session.scalars(select(NoteSection).order_by(NoteSection.position)).first()
        session.add(
            QuestionNoteLink(
                question_id=question.id, section_id=section.id, origin="suggested", score=0.01
            )
        )
    assert ("7", section.anchor) in of_origin(seeded, "suggested")
    assert refresh(seeded, DEFAULT_THRESHOLD) == len(fresh)
    assert of_origin(seeded, "suggested") == fresh


def test_refresh_is_stable(seeded):
    before = link_rows(seeded)
    refresh(seeded, DEFAULT_THRESHOLD)
    assert link_rows(seeded) == before


def similar_content(sections: int) -> Bundle:
    """One question about calibration and several note sections that all mention it."""
    question = QuestionData(
        "1",
        "Which INT8 calibration algorithm suits plentiful calibration data?",
        [ChoiceData("Entropy calibration", True), ChoiceData("MinMax calibration", False)],
        "Entropy calibration minimises KL divergence.",
    )
    body = "\n\n".join(
        f"## Part {n}\n\nINT8 calibration {'entropy ' * n}divergence topic{n}"
        for n in range(1, sections + 1)
    )
    unrelated = "## Unrelated\n\nLayer fusion of convolution kernels."
    return Bundle(
        question_sets=[QuestionSetData("calib", "Calibration", questions=[question])],
        notes=[NoteData("guide", "Guide", f"{body}\n\n{unrelated}\n")],
    )


def test_each_question_gets_at_most_the_best_few_suggestions(db):
    load(db, similar_content(sections=5), threshold=0.01)
    suggested = of_origin(db, "suggested")
    assert len(suggested) == MAX_SUGGESTIONS
    assert ("1", "unrelated") not in suggested
    assert Counter(key for key, _ in suggested) == {"1": MAX_SUGGESTIONS}


@pytest.mark.parametrize(
    "bundle", [Bundle(notes=[NoteData("guide", "Guide", "## One\n\nx\n")]), Bundle()]
)
def test_nothing_to_link_suggests_nothing(db, bundle):
    load(db, bundle)
    assert refresh(db, 0.01) == 0


def test_a_hash_at_the_end_of_a_heading_word_is_kept():
    from app.content.markdown import split_sections

    sections = split_sections("## Learning C#\n\ntext\n\n## Closed ##\n").sections
    assert [(s.heading, s.anchor) for s in sections] == [
        ("Learning C#", "learning-c"),
        ("Closed", "closed"),
    ]
