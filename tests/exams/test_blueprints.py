"""Exam blueprints are content: declared in the catalog, carried by the JSON export."""

import json
import random
from collections import Counter

import pytest
from sqlalchemy import delete, select

from app.content.blueprints import ExamBlueprint
from app.exams import service
from app.exams.models import Attempt, AttemptItem
from app.importers import catalog
from app.importers.errors import ImportRefused
from tests.exams.conftest import GRACE, START
from tests.factories import a_bank, exported, import_file

HEADER = 'format = "studyhall.catalog/1"\n'
SET = "nca-inference-optimization-tensorrt-5"


def test_the_seed_ships_the_tensorrt_exam(seeded):
    with seeded.session_scope() as session:
        exam = session.scalars(select(ExamBlueprint)).one()
    assert exam.slug == "tensorrt-practice-exam"
    assert (exam.question_count, exam.time_limit_s, exam.pass_mark, exam.mode) == (
        7,
        600,
        70,
        "exam",
    )
    assert exam.sets == [SET]


def test_export_and_import_carry_blueprints_unchanged(seeded, tmp_path):
    from app.db import Database
    from app.migrate import upgrade

    document = exported(seeded)
    assert document["exams"][0]["slug"] == "tensorrt-practice-exam"
    url = f"sqlite:///{tmp_path / 'copy.db'}"
    upgrade(url)
    copy = Database(url)
    try:
        import_file(copy, json.dumps(document).encode(), "export.json")
        assert exported(copy) == document
    finally:
        copy.dispose()


def test_reimporting_the_catalog_updates_the_blueprint(seeded):
    text = HEADER + (
        f'[exams."tensorrt-practice-exam"]\ntitle = "Shorter"\nquestions = 3\n'
        f'time_limit_minutes = 5\nsets = ["{SET}"]\ntopics = {{ sparsity = 2 }}\n'
    )
    report = import_file(seeded, text.encode(), "catalog.toml")
    assert report.counts["exams_updated"] == 1
    with seeded.session_scope() as session:
        exam = session.scalars(select(ExamBlueprint)).one()
    assert (exam.title, exam.question_count, exam.time_limit_s) == ("Shorter", 3, 300)
    assert exam.topics == {"sparsity": 2.0}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('title = "T"\nquestions = 5\ncolour = "red"', "unknown key 'colour'"),
        ('title = "T"\nquestions = "five"', "questions must be a int"),
        ('title = "T"\nquestions = true', "questions must be a int"),
        ('title = "T"', "needs a title and a number of questions"),
        ('title = "T"\nquestions = 5\nsets = [1]', "sets are set slugs"),
        ('title = "T"\nquestions = 5\ntopics = { a = "x" }', "topics map slugs to weights"),
    ],
)
def test_malformed_exam_tables_are_refused_with_their_line(body, message):
    with pytest.raises(ImportRefused) as caught:
        catalog.parse(HEADER + '\n[exams."e"]\n' + body + "\n", "catalog.toml")
    assert message in str(caught.value)
    assert caught.value.line == 3


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('questions = 5\nsets = ["nope"]', "unknown question set 'nope'"),
        ("questions = 5\ntopics = { nope = 1 }", "unknown topic 'nope'"),
        ("questions = 5", "name the sets or topics"),
        (f'questions = 5\nmode = "quiz"\nsets = ["{SET}"]', "mode must be"),
        (f'questions = 5\npass_mark = 101\nsets = ["{SET}"]', "pass_mark must be"),
        (f'questions = 0\nsets = ["{SET}"]', "questions must be from 1"),
        (f'questions = 5\ntime_limit_minutes = 0\nsets = ["{SET}"]', "time limit"),
        (f'questions = 5\nsets = ["{SET}"]\ntopics = {{ sparsity = 0 }}', "weights"),
    ],
)
def test_exams_that_cannot_be_sat_are_refused_and_nothing_is_saved(seeded, body, message):
    text = HEADER + '[exams."broken"]\ntitle = "Broken"\n' + body + "\n"
    with pytest.raises(ImportRefused) as caught:
        import_file(seeded, text.encode(), "catalog.toml")
    assert message in str(caught.value)
    with seeded.session_scope() as session:
        assert session.scalars(select(ExamBlueprint.slug)).all() == ["tensorrt-practice-exam"]


@pytest.mark.parametrize(
    "exam",
    [
        {"slug": "x", "title": "X", "question_count": 0, "sets": [SET]},
        {"slug": "x", "title": "X", "question_count": 5, "pass_mark": 120},
        {"slug": "x", "title": "X", "question_count": 5, "mode": "quiz"},
        {"slug": "Bad Slug", "title": "X", "question_count": 5},
        {"slug": "x", "title": "X", "question_count": 5, "extra": 1},
    ],
)
def test_json_exams_out_of_range_are_refused(db, exam):
    document = {"format": "studyhall.content/1", "exams": [exam]}
    with pytest.raises(ImportRefused):
        import_file(db, json.dumps(document).encode(), "export.json")


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ({"alpha": 3, "beta": 2, "gamma": 5}, {"alpha": 15, "beta": 10, "gamma": 25}),
        ({"alpha": 1, "beta": 1, "gamma": 1}, {"alpha": 17, "beta": 17, "gamma": 16}),
        ({"alpha": 0.5, "gamma": 1.5}, {"alpha": 13, "gamma": 37}),  # 12.5 and 37.5: one more
    ],
)
def test_a_50_question_exam_draws_each_topic_its_weighted_share(db, make_user, weights, expected):
    document = a_bank({"alpha": 40, "beta": 40, "gamma": 40})
    document["exams"] = [
        {"slug": "weighted", "title": "Weighted", "question_count": 50, "topics": weights}
    ]
    import_file(db, json.dumps(document).encode(), "bank.json", threshold=0.99)
    learner = make_user("ann").id
    for seed in range(3):
        with db.session_scope(write=True) as session:
            drawn = service.blueprint_paper(session, "weighted", random.Random(seed))
            started = service.sit(session, learner, drawn, START, GRACE)
            drawn = session.scalars(
                select(AttemptItem).where(AttemptItem.attempt_id == started.attempt_id)
            ).all()
            session.execute(delete(AttemptItem).where(AttemptItem.attempt_id == started.attempt_id))
            session.execute(delete(Attempt).where(Attempt.id == started.attempt_id))
        assert len({item.question_id for item in drawn}) == 50
        assert Counter(item.snapshot["topic"]["slug"] for item in drawn) == expected
