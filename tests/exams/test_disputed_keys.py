"""No exam scores a question whose key an open erratum disputes: exams draw around it until
an author resolves the erratum, while practice still shows the question with its erratum."""

import random

import pytest
from sqlalchemy import select, update

from app.content.blueprints import ExamBlueprint
from app.content.errata import ProblemReport
from app.content.models import Question, QuestionSet, Topic
from app.db import Database
from app.exams.custom import CustomExam, custom_spec
from app.exams.sampling import blueprint_spec, draw
from tests.factories import SHIPPED_SEED_DIR, choice_key, load_seed

DRAWS = 1000


@pytest.fixture
def shipped(db: Database) -> Database:
    load_seed(db, seed_dir=SHIPPED_SEED_DIR)
    return db


def disputed(db: Database) -> set[int]:
    with db.session_scope() as session:
        return set(
            session.scalars(
                select(ProblemReport.question_id).where(
                    ProblemReport.kind == "wrong-answer",
                    ProblemReport.erratum.is_(True),
                    ProblemReport.status == "open",
                )
            )
        )


def test_no_blueprint_draws_a_disputed_question_in_a_thousand_draws(shipped):
    wrong_keys = disputed(shipped)
    assert len(wrong_keys) >= 2  # the seed's errata dispute two original keys
    with shipped.session_scope() as session:
        specs = [blueprint_spec(session, b) for b in session.scalars(select(ExamBlueprint))]
    assert specs
    rng = random.Random(20261205)
    drawn: set[int] = set()
    for n in range(DRAWS):
        spec = specs[n % len(specs)]
        picked = draw(spec, rng)
        assert len(picked) == min(spec.count, len(spec.question_ids))
        drawn.update(picked)
    assert drawn.isdisjoint(wrong_keys)
    assert len(drawn) > 100  # the draws did cover the bank


def test_a_custom_exam_leaves_disputed_questions_out(shipped):
    wrong_keys = disputed(shipped)
    with shipped.session_scope() as session:
        slugs = tuple(session.scalars(select(Topic.slug).where(Topic.parent_id.is_not(None))))
        spec = custom_spec(session, 0, CustomExam(topics=slugs, count=200, minutes=0))
    assert spec.question_ids
    assert wrong_keys.isdisjoint(spec.question_ids)


def test_a_resolved_erratum_lets_the_question_back_in(shipped):
    wrong_keys = disputed(shipped)
    with shipped.session_scope(write=True) as session:
        session.execute(
            update(ProblemReport)
            .where(ProblemReport.question_id.in_(wrong_keys))
            .values(status="resolved")
        )
    with shipped.session_scope() as session:
        original = session.scalars(
            select(ExamBlueprint).where(ExamBlueprint.slug == "tensorrt-practice-exam")
        ).one()
        pool = blueprint_spec(session, original).question_ids
        in_set = set(
            session.scalars(
                select(Question.id)
                .join(QuestionSet)
                .where(QuestionSet.slug == "nca-inference-optimization-tensorrt-5")
            )
        )
    assert wrong_keys <= set(pool) == in_set


def test_practice_still_shows_a_disputed_question_with_its_erratum(shipped, client):
    """Once answered: the erratum may name the right answer, so before that only a notice."""
    question_id = min(disputed(shipped))
    page = client.get(f"/questions/{question_id}")
    assert page.status_code == 200
    assert "This question has a known erratum" in page.text and "Wrong answer" not in page.text
    answered = client.get(f"/questions/{question_id}?choice={choice_key(shipped, question_id)}")
    assert answered.status_code == 200 and "Wrong answer" in answered.text
