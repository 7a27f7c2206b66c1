import json
from typing import Any

import pytest

from app.db import Database
from app.importers.service import parse_document
from tests.factories import exported, import_file, row_counts, table_rows

SET = "nca-inference-optimization-tensorrt-5"


def import_json(db: Database, document: dict[str, Any], file: str = "export.json") -> None:
    import_file(db, json.dumps(document, ensure_ascii=False).encode(), file, 0.12)


def test_empty_database_exports_empty_lists(db):
    assert exported(db) == {
        "format": "studyhall.content/1",
        "topics": [],
        "question_sets": [],
        "questions": [],
        "notes": [],
        "exams": [],
    }


def test_seed_export_holds_all_content(seeded):
    document = exported(seeded)
    assert [t["slug"] for t in document["topics"]][:2] == [
        "inference-optimization-tensorrt",
        "precision-int8-calibration",
    ]
    assert {t["parent"] for t in document["topics"][1:]} == {"inference-optimization-tensorrt"}
    assert document["question_sets"] == [
        {
            "slug": SET,
            "title": "NCA Inference Optimization & TensorRT 5",
            "source": "seed/000_21c8a85df645b7bb.txt",
            "topic": "inference-optimization-tensorrt",
        }
    ]
    assert [q["id"] for q in document["questions"]] == [f"{SET}/{n}" for n in range(1, 8)]
    assert [n["slug"] for n in document["notes"]] == ["tensorrt-note-2"]
    assert document["notes"][0]["topic"] == "precision-int8-calibration"
    assert document["notes"][0]["markdown"].startswith("## Working with Mixed Precision\n")


def test_seed_export_question_fields(seeded):
    question = exported(seeded)["questions"][2]
    assert question == {
        "id": f"{SET}/3",
        "set": SET,
        "topic": "precision-int8-calibration",
        "stem": "Which TensorRT calibration algorithm is most suitable when calibration data is "
        "plentiful and accuracy must be maximized?",
        "choices": [
            {"text": "IInt8EntropyCalibrator2", "correct": True},
            {"text": "IInt8MinMaxCalibrator", "correct": False},
            {"text": "IInt8LegacyCalibrator", "correct": False},
            {"text": "IInt8PercentileCalibrator", "correct": False},
        ],
        "explanation": question["explanation"],
        "kind": "single",
        "source": "seed/000_21c8a85df645b7bb.txt:16",
        "notes": ["tensorrt-note-2#working-with-mixed-precision"],
        "references": [],
        "versions": [],
        "difficulty": None,
        "level": None,
        "accepted": [],
    }
    assert question["explanation"].startswith("IInt8EntropyCalibrator2 uses KL-divergence")


def test_export_lists_explicit_links_only(seeded):
    notes = {q["id"]: q["notes"] for q in exported(seeded)["questions"]}
    assert notes == {
        f"{SET}/1": [],
        f"{SET}/2": [],
        f"{SET}/3": ["tensorrt-note-2#working-with-mixed-precision"],
        f"{SET}/4": [],
        f"{SET}/5": [],
        f"{SET}/6": ["tensorrt-note-2#working-with-reformat-free-network-i-o-tensors"],
        f"{SET}/7": [],
    }
    origins = [row[3] for row in table_rows(seeded)["question_note_link"]]
    assert "suggested" in origins


def test_export_is_json(seeded):
    document = exported(seeded)
    assert json.loads(json.dumps(document, ensure_ascii=False)) == document


REFERENCES = f"""format = "studyhall.catalog/1"

[questions."{SET}/1"]
references = [
  {{ title = "Structured sparsity", url = "https://docs.nvidia.com/sparsity", version = "TensorRT 10.x" }},
  {{ url = "https://docs.nvidia.com/ampère?a=1&b=2#x" }},
]

[questions."{SET}/3"]
references = [{{ title = "Calibration", url = "https://docs.nvidia.com/int8", version = "TensorRT 8.6" }}]
"""


@pytest.fixture
def referenced(seeded: Database) -> Database:
    """The seed content with references on two questions."""
    import_file(seeded, REFERENCES.encode(), "references.toml")
    return seeded


def test_export_round_trips_into_an_empty_database(referenced, other_db):
    first = exported(referenced)
    assert first["questions"][0]["references"][1] == {
        "title": None,
        "url": "https://docs.nvidia.com/ampère?a=1&b=2#x",
        "version": None,
    }
    bundle, report = parse_document(json.dumps(first).encode(), "export.json")
    assert report.format == "json"
    assert len(bundle.question_sets[0].questions) == 7
    import_json(other_db, first)
    assert exported(other_db) == first
    assert row_counts(other_db) == row_counts(referenced)
    assert row_counts(other_db)["question_reference"] == 3


def test_export_round_trip_is_stable_when_imported_again(referenced, other_db):
    first = exported(referenced)
    import_json(other_db, first)
    import_json(other_db, exported(other_db))
    assert exported(other_db) == first


def test_importing_the_export_into_the_same_database_changes_nothing(referenced):
    def state(db: Database) -> tuple[object, ...]:
        rows = table_rows(db)
        return exported(db), row_counts(db), rows["question"], rows["question_reference"]

    before = state(referenced)
    import_json(referenced, before[0])
    assert state(referenced) == before
