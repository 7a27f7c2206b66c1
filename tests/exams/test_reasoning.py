"""A blueprint can ask that at least a share of an attempt's questions apply or analyse
rather than recall: a mock exam then feels like the certification's scenarios."""

import json
import random

import pytest
from sqlalchemy import select

from app.content.blueprints import ExamBlueprint
from app.content.models import Question
from app.exams.sampling import blueprint_spec, draw
from app.importers.errors import ImportRefused
from tests.factories import a_bank, exported, import_file


def a_leveled_bank(reasoning: int) -> dict:
    """120 questions over three topics, one in four of them a scenario; one weighted exam."""
    document = a_bank({"alpha": 40, "beta": 40, "gamma": 40})
    for n, question in enumerate(document["questions"]):
        question["level"] = ("apply", "recall", "recall", "recall")[n % 4]
    document["exams"] = [
        {
            "slug": "mock",
            "title": "Mock",
            "question_count": 30,
            "topics": {"alpha": 2, "beta": 1, "gamma": 1},
            "reasoning": reasoning,
        }
    ]
    return document


@pytest.mark.parametrize(("reasoning", "least"), [(0, 0.0), (50, 0.5), (70, 0.7)])
def test_every_draw_holds_the_share_of_reasoning_questions_the_blueprint_asks(db, reasoning, least):
    import_file(db, json.dumps(a_leveled_bank(reasoning)).encode(), "bank.json", 0.99)
    with db.session_scope() as session:
        spec = blueprint_spec(session, session.scalars(select(ExamBlueprint)).one())
        levels = dict(session.execute(select(Question.id, Question.level)).all())
    rng = random.Random(5)
    shares = []
    for _ in range(200):
        picked = draw(spec, rng)
        assert len(set(picked)) == 30
        shares.append(sum(levels[qid] != "recall" for qid in picked) / 30)
    assert min(shares) >= least
    if not reasoning:  # left to chance, a quarter of the pool: most draws hold far fewer
        assert sum(shares) / len(shares) < 0.4


def test_the_reasoning_share_travels_with_the_export(db):
    import_file(db, json.dumps(a_leveled_bank(60)).encode(), "bank.json", 0.99)
    assert exported(db)["exams"][0]["reasoning"] == 60


@pytest.mark.parametrize("reasoning", [-1, 101])
def test_a_reasoning_share_outside_a_percent_is_refused(db, reasoning):
    with pytest.raises(ImportRefused) as caught:
        import_file(db, json.dumps(a_leveled_bank(reasoning)).encode(), "bank.json", 0.99)
    assert "reasoning" in caught.value.message


def test_the_catalog_sets_a_reasoning_share(seeded):
    catalog = """format = "studyhall.catalog/1"

[exams."scenarios"]
title = "Scenarios"
questions = 5
sets = ["nca-inference-optimization-tensorrt-5"]
reasoning = 40
"""
    import_file(seeded, catalog.encode(), "catalog.toml")
    with seeded.session_scope() as session:
        blueprint = session.scalars(
            select(ExamBlueprint).where(ExamBlueprint.slug == "scenarios")
        ).one()
    assert blueprint.reasoning == 40
