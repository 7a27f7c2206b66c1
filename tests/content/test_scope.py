"""A question's scope: the versions it holds for, its difficulty and what it asks.

It comes from the question's own file (JSON) or from the catalog, is checked like the rest of
a question, survives an import that leaves it out, and travels with the export.
"""

import json

import pytest
from sqlalchemy import select

from app.content.models import Question
from app.db import Database
from app.importers.errors import ImportRefused
from tests.factories import SEED_SET, exported, import_file, row_counts, table_rows


def a_bank(**scope: object) -> dict[str, object]:
    question = {
        "id": "scoped/1",
        "set": "scoped",
        "stem": "Which precision does a TF32 tensor core multiply in?",
        "choices": [{"text": "TF32", "correct": True}, {"text": "FP64", "correct": False}],
        "explanation": "TF32 keeps FP32's range with a 10-bit mantissa.",
        "kind": "single",
        **scope,
    }
    return {
        "format": "studyhall.content/1",
        "topics": [],
        "question_sets": [{"slug": "scoped", "title": "Scoped"}],
        "questions": [question],
        "notes": [],
    }


def import_bank(db: Database, document: dict[str, object]) -> None:
    import_file(db, json.dumps(document, indent=1).encode(), "bank.json")


def scope_of(db: Database, question_id: str) -> dict[str, object]:
    question = next(q for q in exported(db)["questions"] if q["id"] == question_id)
    return {key: question[key] for key in ("versions", "difficulty", "level")}


SCOPE = {"versions": ["TensorRT 10.x", "TensorRT 11.0"], "difficulty": "hard", "level": "apply"}


def test_a_bank_question_keeps_its_scope_and_an_import_without_it_leaves_it(db):
    import_bank(db, a_bank(**SCOPE))
    assert scope_of(db, "scoped/1") == SCOPE
    revision = table_rows(db)["question"][0]

    import_bank(db, a_bank())  # an older file, without the fields
    assert scope_of(db, "scoped/1") == SCOPE
    assert table_rows(db)["question"][0] == revision  # nothing changed, not even the revision

    import_bank(db, a_bank(**{**SCOPE, "difficulty": "easy"}))
    assert scope_of(db, "scoped/1")["difficulty"] == "easy"


def test_the_catalog_scopes_a_question_from_another_file(seeded):
    assert scope_of(seeded, f"{SEED_SET}/2") == {"versions": [], "difficulty": None, "level": None}
    catalog = f"""format = "studyhall.catalog/1"

[questions."{SEED_SET}/2"]
versions = ["TensorRT 10.x"]
difficulty = "medium"
level = "recall"
"""
    import_file(seeded, catalog.encode(), "catalog.toml")
    assert scope_of(seeded, f"{SEED_SET}/2") == {
        "versions": ["TensorRT 10.x"],
        "difficulty": "medium",
        "level": "recall",
    }


@pytest.mark.parametrize(
    ("scope", "message"),
    [
        ({"difficulty": "tricky"}, "difficulty must be one of easy, medium, hard"),
        ({"level": "evaluate"}, "level must be one of recall, apply, analyse"),
        ({"versions": ["10.x"]}, "must name a product and a version"),
        ({"versions": ["TensorRT latest"]}, "must name a product and a version"),
        ({"versions": [f"TensorRT {n}.x" for n in range(7)]}, "at most 6 versions"),
    ],
)
def test_a_bad_scope_is_refused_at_the_question_and_saves_nothing(db, scope, message):
    import_bank(db, a_bank(**SCOPE))
    before = row_counts(db), exported(db)
    text = json.dumps(a_bank(**scope), indent=1)
    with pytest.raises(ImportRefused) as caught:
        import_file(db, text.encode(), "bank.json")
    assert caught.value.line == text[: text.index('"scoped/1"')].count("\n") + 1
    assert message in caught.value.message
    assert (row_counts(db), exported(db)) == before


@pytest.mark.parametrize(
    "entry",
    ['versions = "TensorRT 10.x"', "difficulty = 3", "level = ['apply']"],
)
def test_a_catalog_scope_of_the_wrong_shape_is_refused_naming_its_line(seeded, entry):
    catalog = f'format = "studyhall.catalog/1"\n\n[questions."{SEED_SET}/2"]\n{entry}\n'
    with pytest.raises(ImportRefused) as caught:
        import_file(seeded, catalog.encode(), "catalog.toml")
    assert caught.value.line == 3
    assert "versions and accepted must be lists of strings" in caught.value.message


def test_the_scope_goes_out_with_the_export_and_back_in(db, other_db):
    import_bank(db, a_bank(**SCOPE))
    import_file(other_db, json.dumps(exported(db)).encode(), "export.json")
    assert scope_of(other_db, "scoped/1") == SCOPE


def test_authors_see_a_questions_scope_on_its_page_and_learners_do_not(db, user_client):
    import_bank(db, a_bank(**SCOPE))
    with db.session_scope() as session:
        question_id = session.scalars(select(Question.id)).one()
    shown = "For authors: hard · apply · holds for TensorRT 10.x, TensorRT 11.0"
    assert shown in user_client("ann", role="author").get(f"/questions/{question_id}").text
    assert "For authors" not in user_client("bob").get(f"/questions/{question_id}").text
