import pytest
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.content.bundle import (
    Bundle,
    ChoiceData,
    Placement,
    Report,
    TopicData,
)
from app.content.errors import InvalidContent
from app.content.models import Note, NoteSection, Question, QuestionNoteLink, QuestionSet, Topic
from app.db import Database
from tests.factories import (
    SEED_DIR,
    a_note,
    a_question,
    a_set,
    exported,
    import_file,
    load,
    load_seed,
    row_counts,
)

SET = "nca-inference-optimization-tensorrt-5"
QA_SEED = SEED_DIR / "000_21c8a85df645b7bb.txt"
NOTE_SEED = SEED_DIR / "004_7ac6168e0636c6eb.txt"
MIXED = "working-with-mixed-precision"
REFORMAT = "working-with-reformat-free-network-i-o-tensors"


def reimport(db: Database, path, *replacements: tuple[str, str]) -> Report:
    """Import a seed file again, with text replaced."""
    text = path.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new)
    return import_file(db, text.encode(), f"seed/{path.name}", 0.12)


def question_state(db: Database) -> dict[str, tuple[int, int, list[int]]]:
    """Map each question key to (id, revision, choice ids)."""
    with db.session_scope() as session:
        questions = session.scalars(
            select(Question)
            .options(selectinload(Question.choices))
            .order_by(Question.set_id, Question.position)
        ).all()
        return {q.key: (q.id, q.revision, [c.id for c in q.choices]) for q in questions}


def sections(db: Database) -> dict[str, int]:
    with db.session_scope() as session:
        rows = session.execute(
            select(NoteSection.anchor, NoteSection.id).order_by(NoteSection.position)
        )
        return dict(rows.all())


def links(db: Database) -> set[tuple[str, str, str]]:
    """Return (question key, section anchor, origin) for every link."""
    with db.session_scope() as session:
        rows = session.execute(
            select(Question.key, NoteSection.anchor, QuestionNoteLink.origin)
            .join(Question, QuestionNoteLink.question_id == Question.id)
            .join(NoteSection, QuestionNoteLink.section_id == NoteSection.id)
        )
        return {tuple(row) for row in rows}


def explicit(db: Database) -> set[tuple[str, str]]:
    return {(key, anchor) for key, anchor, origin in links(db) if origin == "explicit"}


def topics_of_questions(db: Database) -> dict[str, str | None]:
    return {q["id"]: q["topic"] for q in exported(db)["questions"]}


def test_load_creates_questions_with_ordered_choices(db):
    report = load(db, a_set(a_question("1"), a_question("2", correct=3)))
    document = exported(db)
    assert [q["id"] for q in document["questions"]] == ["basics/1", "basics/2"]
    assert document["questions"][1]["choices"] == [
        {"text": "Choice 1", "correct": False},
        {"text": "Choice 2", "correct": False},
        {"text": "Choice 3", "correct": True},
    ]
    assert report.counts == {
        "question_sets_created": 1,
        "questions_created": 2,
        "suggested_links": 0,
    }
    assert {revision for _, revision, _ in question_state(db).values()} == {1}


def test_importing_the_seed_twice_changes_nothing(seeded):
    before = exported(seeded), row_counts(seeded), question_state(seeded), sections(seeded)
    explicit_before = explicit(seeded)
    load_seed(seeded)
    assert (
        exported(seeded),
        row_counts(seeded),
        question_state(seeded),
        sections(seeded),
    ) == before
    assert explicit(seeded) == explicit_before


def test_unchanged_seed_is_reported_as_unchanged(seeded):
    assert reimport(seeded, QA_SEED).counts["questions_unchanged"] == 7
    assert reimport(seeded, NOTE_SEED).counts["notes_unchanged"] == 1
    with seeded.session_scope() as session:
        assert session.scalars(select(Note.revision)).all() == [1]


def test_edited_page_updates_questions_in_place(seeded):
    before, counts = question_state(seeded), row_counts(seeded)
    report = reimport(
        seeded,
        QA_SEED,
        ("Only the TensorRT runtime library", "Just the TensorRT runtime library"),
        ("- IInt8MinMaxCalibrator\n", "- IInt8MinMaxCalibrator (min-max)\n"),
    )
    after = question_state(seeded)
    assert report.counts["questions_updated"] == 2
    assert report.counts["questions_unchanged"] == 5
    assert [revision for _, revision, _ in after.values()] == [1, 2, 2, 1, 1, 1, 1]
    assert {key: (qid, choices) for key, (qid, _, choices) in after.items()} == {
        key: (qid, choices) for key, (qid, _, choices) in before.items()
    }
    assert row_counts(seeded) == counts
    questions = exported(seeded)["questions"]
    assert questions[1]["explanation"].startswith("Just the TensorRT runtime library")
    assert questions[2]["choices"][1] == {
        "text": "IInt8MinMaxCalibrator (min-max)",
        "correct": False,
    }


def test_edited_question_keeps_its_catalog_topic_and_links(seeded):
    topics, links_before = topics_of_questions(seeded), explicit(seeded)
    reimport(seeded, QA_SEED, ("- IInt8LegacyCalibrator\n", "- IInt8LegacyCalibrator (old)\n"))
    assert topics_of_questions(seeded) == topics
    assert explicit(seeded) == links_before == {("3", MIXED), ("6", REFORMAT)}


def test_reimporting_the_page_after_the_catalog_keeps_catalog_topics(seeded):
    topics = topics_of_questions(seeded)
    assert topics[f"{SET}/1"] == "sparsity"
    reimport(seeded, QA_SEED)
    assert topics_of_questions(seeded) == topics
    assert exported(seeded)["question_sets"][0]["topic"] == "inference-optimization-tensorrt"


def test_choices_can_grow_and_shrink(db):
    load(db, a_set(a_question("1")))
    grown = a_question("1")
    grown.choices.append(ChoiceData("Choice 4", False))
    load(db, a_set(grown))
    assert len(question_state(db)["1"][2]) == 4
    shrunk = a_question("1")
    del shrunk.choices[1:]
    shrunk.choices.append(ChoiceData("Other", False))
    load(db, a_set(shrunk))
    _, revision, choices = question_state(db)["1"]
    assert (revision, len(choices)) == (3, 2)
    assert row_counts(db)["choice"] == 2
    assert exported(db)["questions"][0]["choices"][1] == {"text": "Other", "correct": False}


def test_moving_the_correct_answer_is_an_update(db):
    load(db, a_set(a_question("1", correct=1)))
    report = load(db, a_set(a_question("1", correct=2)))
    assert report.counts["questions_updated"] == 1
    assert [c["correct"] for c in exported(db)["questions"][0]["choices"]] == [False, True, False]


def test_reordered_questions_take_their_new_positions(db):
    load(db, a_set(a_question("1"), a_question("2")))
    load(db, a_set(a_question("2"), a_question("1")))
    assert [q["id"] for q in exported(db)["questions"]] == ["basics/2", "basics/1"]
    assert row_counts(db)["question"] == 2


def test_note_section_ids_survive_reimport(seeded):
    ids, links_before = sections(seeded), explicit(seeded)
    reimport(seeded, NOTE_SEED)
    assert (sections(seeded), explicit(seeded)) == (ids, links_before)


def test_edited_note_keeps_section_ids_and_links(seeded):
    ids, links_before = sections(seeded), explicit(seeded)
    report = reimport(
        seeded, NOTE_SEED, ("Build a calibration table.", "Build the calibration table.")
    )
    assert report.counts["notes_updated"] == 1
    assert (sections(seeded), explicit(seeded)) == (ids, links_before)
    with seeded.session_scope() as session:
        assert session.scalars(select(Note.revision)).all() == [2]
    assert "Build the calibration table." in exported(seeded)["notes"][0]["markdown"]


def test_renamed_section_drops_only_its_own_links(seeded):
    ids = sections(seeded)
    reimport(seeded, NOTE_SEED, ("  2. Working with Reformat-Free", "  2. Using Reformat-Free"))
    after = sections(seeded)
    assert after["working-with-mixed-precision"] == ids["working-with-mixed-precision"]
    assert "working-with-reformat-free-network-i-o-tensors" not in after
    assert explicit(seeded) == {("3", MIXED)}


def test_explicit_links_are_set_replaced_and_cleared(db):
    load(db, a_note("## One\n\nfirst\n\n## Two\n\nsecond\n"))
    load(db, a_set(a_question("1", notes=["guide#one", "guide#two"])), threshold=0.99)
    assert explicit(db) == {("1", "one"), ("1", "two")}
    load(db, a_set(a_question("1", notes=["guide#two"])), threshold=0.99)
    assert explicit(db) == {("1", "two")}
    load(db, a_set(a_question("1")), threshold=0.99)
    assert explicit(db) == {("1", "two")}
    load(db, a_set(a_question("1", notes=[])), threshold=0.99)
    assert explicit(db) == set()


def test_catalog_link_replaces_a_suggested_link_for_the_same_pair(seeded):
    key, anchor = next((k, a) for k, a, origin in links(seeded) if origin == "suggested")
    placement = Placement("question", f"{SET}/{key}", None, 1, notes=[f"tensorrt-note-2#{anchor}"])
    load(seeded, Bundle(placements=[placement]))
    assert (key, anchor, "explicit") in links(seeded)
    assert (key, anchor, "suggested") not in links(seeded)


def test_topics_are_created_updated_and_ordered(db):
    load(db, Bundle(topics=[TopicData("root", "Root"), TopicData("leaf", "Leaf", "root")]))
    report = load(
        db, Bundle(topics=[TopicData("leaf", "Leaf!", "root"), TopicData("root", "Root")])
    )
    assert "topics_created" not in report.counts
    assert exported(db)["topics"] == [
        {"slug": "leaf", "title": "Leaf!", "parent": "root", "description": ""},
        {"slug": "root", "title": "Root", "parent": None, "description": ""},
    ]


def test_placements_file_content_under_topics(db):
    load(db, a_set(a_question("1")))
    load(db, a_note("## One\n\nx\n"))
    load(
        db,
        Bundle(
            topics=[TopicData("root", "Root")],
            placements=[
                Placement("question_set", "basics", "root", 1),
                Placement("question", "basics/1", "root", 2),
                Placement("note", "guide", "root", 3),
            ],
        ),
    )
    document = exported(db)
    assert [document[k][0]["topic"] for k in ("question_sets", "questions", "notes")] == [
        "root"
    ] * 3


@pytest.mark.parametrize(
    ("bundle", "line", "message"),
    [
        (Bundle(topics=[TopicData("a", "A", "missing", line=4)]), 4, "unknown topic 'missing'"),
        (
            Bundle(topics=[TopicData("a", "A", "b", line=2), TopicData("b", "B", "a", line=6)]),
            6,
            "topic 'b' is its own ancestor",
        ),
        (Bundle(topics=[TopicData("a", "A", "a", line=3)]), 3, "topic 'a' is its own ancestor"),
        (
            Bundle(placements=[Placement("question", "basics/9", None, 7)]),
            7,
            "no question 'basics/9'",
        ),
        (
            Bundle(placements=[Placement("question_set", "other", None, 8)]),
            8,
            "no question set 'other'",
        ),
        (Bundle(placements=[Placement("note", "missing", None, 9)]), 9, "no note 'missing'"),
        (
            Bundle(placements=[Placement("question", "basics/1", None, 5, notes=["guide#nope"])]),
            5,
            "no note section 'guide#nope' (expected 'note#anchor')",
        ),
        (
            Bundle(placements=[Placement("question", "basics/1", "nope", 5)]),
            5,
            "unknown topic 'nope'",
        ),
        (a_set(a_question("1", topic="nope", line=12)), 12, "unknown topic 'nope'"),
    ],
    ids=[
        "unknown-parent",
        "two-topic-cycle",
        "own-parent",
        "missing-question",
        "missing-set",
        "missing-note",
        "missing-section",
        "placement-unknown-topic",
        "question-unknown-topic",
    ],
)
def test_bad_references_are_refused_and_nothing_is_saved(db, bundle, line, message):
    load(db, a_set(a_question("1")))
    load(db, a_note("## One\n\nx\n"))
    before = exported(db), row_counts(db)
    with pytest.raises(InvalidContent) as caught:
        load(db, bundle)
    assert (caught.value.line, caught.value.message) == (line, message)
    assert (exported(db), row_counts(db)) == before


def test_cycle_through_existing_topics_is_refused(db):
    load(db, Bundle(topics=[TopicData("root", "Root"), TopicData("leaf", "Leaf", "root")]))
    with pytest.raises(InvalidContent, match="topic 'root' is its own ancestor"):
        load(db, Bundle(topics=[TopicData("root", "Root", "leaf", line=2)]))
    with db.session_scope() as session:
        assert session.scalars(select(Topic.parent_id).where(Topic.slug == "root")).one() is None


def test_a_slug_names_one_set(db):
    load(db, a_set(a_question("1"), source="first.txt"))
    load(db, a_set(a_question("2"), source="second.txt"))
    with db.session_scope() as session:
        assert session.scalars(select(QuestionSet.source)).all() == ["second.txt"]
    assert row_counts(db)["question"] == 2


def test_reimport_reports_questions_no_longer_in_the_file_and_a_taken_slug(db):

    two = (
        "Short Set — Questions and Answers\n"
        "Question 1: One?\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"
        "Question 2: Two?\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"
    )
    import_file(db, two.encode(), "short.txt", 0.12)
    one = two.split("Question 2:")[0]
    report = import_file(db, one.encode(), "other.txt", 0.12)
    messages = [w.message for w in report.warnings]
    assert any("imported from short.txt" in m for m in messages)
    assert any(
        "1 question(s) of this set are no longer in the file and were kept: 2" in m
        for m in messages
    )


def places(db: Database) -> list[tuple[str, int, int, int | None, int | None]]:
    """Each question's key, place, set size and neighbours, as its page shows them."""
    from app.content.queries import question

    with db.session_scope() as session:
        ids = session.scalars(select(Question.id).order_by(Question.id)).all()
        views = [question(session, qid) for qid in ids]
    ids_to_keys = {view.id: view.key for view in views}
    return sorted(
        (
            (
                view.key,
                view.position,
                view.total,
                ids_to_keys.get(view.previous_id),
                ids_to_keys.get(view.next_id),
            )
            for view in views
        ),
        key=lambda row: row[1],
    )


def test_a_question_knows_its_place_and_its_set_size_after_every_import(db):
    load(db, a_set(a_question("a"), a_question("b"), a_question("c")))
    assert places(db) == [
        ("a", 1, 3, None, "b"),
        ("b", 2, 3, "a", "c"),
        ("c", 3, 3, "b", None),
    ]
    # reordered, one added, one left out of the file (kept at its old position, 2)
    load(db, a_set(a_question("c"), a_question("a"), a_question("d")))
    assert places(db) == [
        ("c", 1, 4, None, "a"),
        ("a", 2, 4, "c", "b"),
        ("b", 3, 4, "a", "d"),
        ("d", 4, 4, "b", None),
    ]
    with db.session_scope() as session:
        assert session.scalars(select(QuestionSet.question_count)).one() == 4
