"""The content in seed/ is a bank learners can trust: every answer cites its source, every
subtopic has enough questions and a note, and the content checks find nothing."""

import json
import random
import re
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import delete, select

from app.content.bundle import DIFFICULTIES, LEVELS
from app.content.checks import url_problem
from app.content.models import Choice, Note, Question, QuestionReference, Topic
from app.content.quality import TOPIC_MIN, check_content
from app.db import Database
from app.exams import service
from app.exams.models import Attempt, AttemptItem
from tests.factories import SHIPPED_SEED_DIR, load_seed


@pytest.fixture
def shipped(db: Database) -> Database:
    """The database with the content `make run` serves."""
    load_seed(db, seed_dir=SHIPPED_SEED_DIR)
    return db


def test_every_question_cites_versioned_https_sources(shipped: Database):
    with shipped.session_scope() as session:
        questions = set(session.scalars(select(Question.id)))
        rows = session.execute(
            select(QuestionReference.question_id, QuestionReference.url, QuestionReference.version)
        ).all()
    assert questions
    assert questions - {qid for qid, _, _ in rows} == set(), "questions without a reference"
    bad = [
        (qid, url, version)
        for qid, url, version in rows
        if url_problem(url) is not None
        or not url.startswith("https://")
        or not (version or "").strip()
    ]
    assert bad == []


def test_every_question_states_its_versions_difficulty_and_level(shipped: Database):
    with shipped.session_scope() as session:
        rows = session.execute(
            select(Question.id, Question.versions, Question.difficulty, Question.level)
        ).all()
    assert rows
    unscoped = [
        qid
        for qid, versions, difficulty, level in rows
        if not versions or difficulty not in DIFFICULTIES or level not in LEVELS
    ]
    assert unscoped == []


def test_no_shipped_reference_or_note_links_to_a_latest_page(shipped: Database):
    """/latest/ pages change under the bank when a new major version ships: cite a release."""
    with shipped.session_scope() as session:
        urls = list(session.scalars(select(QuestionReference.url)))
        notes = session.execute(select(Note.slug, Note.body_md)).all()
    assert urls and notes
    assert [url for url in urls if "/latest/" in url] == []
    linked = [(slug, url) for slug, body in notes for url in re.findall(r"https?://\S+", body)]
    assert [(slug, url) for slug, url in linked if "/latest/" in url] == []


def test_every_leaf_topic_with_questions_has_enough_of_them_and_a_note(shipped: Database):
    with shipped.session_scope() as session:
        topics = session.execute(select(Topic.id, Topic.slug, Topic.parent_id)).all()
        questions = Counter(session.scalars(select(Question.topic_id)))
        notes = Counter(session.scalars(select(Note.topic_id)))
    parents = {parent_id for _, _, parent_id in topics}
    leaves = {topic_id: slug for topic_id, slug, _ in topics if topic_id not in parents}
    held = {slug: questions[topic_id] for topic_id, slug in leaves.items() if questions[topic_id]}
    assert held
    assert {slug: n for slug, n in held.items() if n < TOPIC_MIN} == {}
    assert [slug for topic_id, slug in leaves.items() if slug in held and not notes[topic_id]] == []


# The original questions (seed/000_*.txt) stay exactly as they were written, cues included:
# the catalog accepts these findings on them, and no other finding is allowed.
AS_WRITTEN = [
    "absolute-distractor nca-inference-optimization-tensorrt-5/4: only its distractors say all",
    "absolute-distractor nca-inference-optimization-tensorrt-5/6: only its distractors say all",
    "stem-echoes-key nca-inference-optimization-tensorrt-5/1: its stem and only its right choice "
    "say first, sparsity",
    "stem-echoes-key nca-inference-optimization-tensorrt-5/7: its stem and only its right choice "
    "say maximize",
]


def test_the_content_checks_find_nothing_in_the_shipped_content(shipped: Database):
    with shipped.session_scope() as session:
        report = check_content(session)
    assert report.questions > 0
    assert [f"{f.kind} {f.subject}: {f.message}" for f in report.findings] == []
    assert [f"{f.kind} {f.subject}: {f.message}" for f in report.accepted] == AS_WRITTEN


def test_no_length_rule_finds_the_right_choice_in_over_30_percent_of_the_bank(
    shipped: Database,
):
    """Picking the longest, second-longest, third-longest or shortest choice of each
    single-answer question, without knowing anything, scores at most 30%. Choices of one
    length are a tie the candidate breaks at random."""
    with shipped.session_scope() as session:
        rows = session.execute(
            select(Question.id, Choice.text_md, Choice.is_correct)
            .join(Choice, Choice.question_id == Question.id)
            .where(Question.kind == "single")
        ).all()
    choices: dict[int, list[tuple[int, bool]]] = {}
    for qid, text, correct in rows:
        choices.setdefault(qid, []).append((len(" ".join(text.replace("`", "").split())), correct))
    single = [c for c in choices.values() if sum(ok for _, ok in c) == 1]
    scores = Counter[str]()
    for question in single:
        lengths = sorted((length for length, _ in question), reverse=True)
        right = next(length for length, ok in question if ok)
        for rule, rank in [("longest", 0), ("second", 1), ("third", 2), ("shortest", -1)]:
            if lengths[rank] == right:
                scores[rule] += 1 / lengths.count(right)
    assert len(single) >= 190
    shares = {
        rule: round(scores[rule] / len(single), 3) for rule in ("longest", "second", "shortest")
    }
    assert all(share <= 0.30 for share in shares.values()), shares
    assert scores["third"] / len(single) <= 0.30


MOCK_EXAM_SHARES = {
    "precision-int8-calibration": 5,
    "engine-building-refit": 5,
    "llm-inference-tensorrt-llm": 5,
    "quantization-model-optimizer": 4,
    "dynamic-shapes": 4,
    "throughput-latency": 4,
    "deployment-jetson-dla": 3,
    "triton-inference-server": 3,
    "profiling": 3,
    "tooling-polygraphy-graphsurgeon": 3,
    "torch-tensorrt": 3,
    "multi-gpu-inference": 3,
    "plugins": 3,
    "sparsity": 2,
}


def test_the_full_mock_exam_draws_fifty_questions_weighted_by_subtopic_half_of_them_scenarios(
    shipped: Database, make_user
):
    from tests.exams.conftest import GRACE, START

    learner = make_user("ann").id
    for seed in range(3):
        with shipped.session_scope(write=True) as session:
            drawn = service.blueprint_paper(session, "tensorrt-mock-exam", random.Random(seed))
            started = service.sit(session, learner, drawn, START, GRACE)
            attempt = session.get(Attempt, started.attempt_id)
            drawn = session.scalars(
                select(AttemptItem).where(AttemptItem.attempt_id == started.attempt_id)
            ).all()
            assert attempt is not None and attempt.deadline_at - START == timedelta(minutes=60)
            session.execute(delete(AttemptItem).where(AttemptItem.attempt_id == started.attempt_id))
            session.execute(delete(Attempt).where(Attempt.id == started.attempt_id))
        assert len({item.question_id for item in drawn}) == 50
        assert Counter(item.snapshot["topic"]["slug"] for item in drawn) == MOCK_EXAM_SHARES
        with shipped.session_scope() as session:
            levels = session.scalars(
                select(Question.level).where(Question.id.in_([i.question_id for i in drawn]))
            ).all()
        assert sum(level in ("apply", "analyse") for level in levels) >= 25


def test_every_subtopic_has_a_quiz_and_each_mock_form_asks_for_scenarios(shipped: Database):
    from app.content.blueprints import ExamBlueprint

    with shipped.session_scope() as session:
        blueprints = session.scalars(select(ExamBlueprint)).all()
        parents = set(session.scalars(select(Topic.parent_id)))
        leaves = {
            slug
            for topic_id, slug in session.execute(select(Topic.id, Topic.slug))
            if topic_id not in parents
        }
    assert {slug for slug in leaves if f"{slug}-quiz" not in {b.slug for b in blueprints}} == set()
    mocks = [b for b in blueprints if "mock" in b.slug]
    assert len(mocks) >= 2 and all(b.reasoning >= 50 for b in mocks)


def test_the_whole_pack_round_trips_through_an_export(shipped: Database, tmp_path):
    from app.migrate import upgrade
    from tests.factories import exported, import_file

    first = exported(shipped)
    assert len(first["questions"]) >= 207 and len(first["notes"]) >= 6
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    upgrade(url)
    empty = Database(url)
    try:
        import_file(empty, json.dumps(first, ensure_ascii=False).encode(), "pack.json", 0.12)
        assert exported(empty) == first
    finally:
        empty.dispose()
