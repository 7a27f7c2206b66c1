"""References: the sources behind a question's answer, carried by every import path and the
export, replaced whole on re-import, and counted as an edit when they change."""

import json
from typing import Any

import pytest
from sqlalchemy import select

from app.content.bundle import Bundle, Placement, ReferenceData
from app.content.errors import InvalidContent
from app.content.models import Question, QuestionReference, QuestionSet
from app.db import Database
from app.importers.errors import ImportRefused
from tests.factories import SEED_SET, a_question, a_set, exported, import_file, load

GUIDE = ReferenceData(
    "https://docs.nvidia.com/deeplearning/tensorrt/latest/index.html",
    "TensorRT Developer Guide",
    "TensorRT 10.x",
)
RELEASE = ReferenceData("https://docs.nvidia.com/deeplearning/tensorrt/release-notes/")
HEADER = 'format = "studyhall.catalog/1"\n'


def stored(db: Database, key: str = "1", set_slug: str = "basics") -> list[ReferenceData]:
    with db.session_scope() as session:
        rows = session.execute(
            select(QuestionReference.url, QuestionReference.title, QuestionReference.version)
            .join(Question)
            .join(QuestionSet)
            .where(Question.key == key, QuestionSet.slug == set_slug)
            .order_by(QuestionReference.position)
        ).all()
    return [ReferenceData(*row) for row in rows]


def revision(db: Database, key: str = "1", set_slug: str = "basics") -> int:
    with db.session_scope() as session:
        return session.scalars(
            select(Question.revision)
            .join(QuestionSet)
            .where(Question.key == key, QuestionSet.slug == set_slug)
        ).one()


def with_references(references: list[ReferenceData] | None, key: str = "1") -> Bundle:
    return a_set(a_question(key, references=references), a_question("2"))


def test_references_are_stored_in_order(db):
    load(db, with_references([GUIDE, RELEASE]))
    assert stored(db) == [GUIDE, RELEASE]
    assert stored(db, "2") == []


def test_changed_references_are_replaced_and_count_as_an_edit(db):
    load(db, with_references([GUIDE, RELEASE]))
    report = load(db, with_references([RELEASE]))
    assert stored(db) == [RELEASE]
    assert revision(db) == 2
    assert report.counts["questions_updated"] == 1
    assert report.counts["questions_unchanged"] == 1


def test_the_same_references_change_nothing(db):
    load(db, with_references([GUIDE]))
    report = load(db, with_references([GUIDE]))
    assert (stored(db), revision(db)) == ([GUIDE], 1)
    assert "questions_updated" not in report.counts


def test_a_new_version_alone_is_an_edit(db):
    load(db, with_references([GUIDE]))
    newer = ReferenceData(GUIDE.url, GUIDE.title, "TensorRT 10.8")
    load(db, with_references([newer]))
    assert (stored(db), revision(db)) == ([newer], 2)


def test_references_left_out_are_kept_and_an_empty_list_clears_them(db):
    load(db, with_references([GUIDE]))
    report = load(db, with_references(None))
    assert (stored(db), revision(db)) == ([GUIDE], 1)
    assert report.counts["questions_unchanged"] == 2
    load(db, with_references([]))
    assert (stored(db), revision(db)) == ([], 2)


def test_an_edit_of_the_text_keeps_references_left_out(db):
    load(db, with_references([GUIDE]))
    load(db, a_set(a_question("1", stem="Reworded?"), a_question("2")))
    assert (stored(db), revision(db)) == ([GUIDE], 2)


@pytest.mark.parametrize(
    ("references", "message"),
    [
        ([ReferenceData("javascript:alert(1)")], "must be an absolute address"),
        ([ReferenceData("docs/index.html")], "must be an absolute address"),
        ([ReferenceData("https://docs.nvidia.com/a page")], "holds ' ' at character 26"),
        ([ReferenceData("https://x.org/\x07")], "holds '\\x07'"),
        ([ReferenceData("https://user:secret@docs.nvidia.com/")], "user name or password"),
        ([ReferenceData("https://")], "names no host"),
        ([ReferenceData("https://x.org/" + "a" * 2000)], "at most 2,000 fit"),
        ([GUIDE, GUIDE], "is cited twice"),
        ([ReferenceData(GUIDE.url, " ")], "the title is empty"),
        ([ReferenceData(GUIDE.url, "t" * 301)], "title is 301 characters long"),
        ([ReferenceData(GUIDE.url, None, "v" * 81)], "version is 81 characters long"),
        ([ReferenceData(f"https://x.org/{n}") for n in range(21)], "21 references; at most 20"),
    ],
)
def test_bad_references_are_refused_with_the_question_line_and_nothing_is_saved(
    db, references, message
):
    bundle = a_set(a_question("1", line=4, references=references))
    with pytest.raises(InvalidContent) as caught:
        load(db, bundle)
    assert caught.value.line == 4
    assert message in caught.value.message
    assert exported(db)["questions"] == []


def catalog_references(*references: str) -> str:
    body = ", ".join(references)
    return HEADER + f'\n[questions."{SEED_SET}/1"]\nreferences = [{body}]\n'


def test_the_catalog_gives_references_to_questions_from_another_file(seeded):
    text = catalog_references(
        '{ title = "Sparsity", url = "https://docs.nvidia.com/sparsity", version = "TensorRT 8.6" }',
        '{ url = "https://docs.nvidia.com/ampere" }',
    )
    report = import_file(seeded, text.encode(), "more.toml")
    assert stored(seeded, "1", SEED_SET) == [
        ReferenceData("https://docs.nvidia.com/sparsity", "Sparsity", "TensorRT 8.6"),
        ReferenceData("https://docs.nvidia.com/ampere"),
    ]
    assert report.counts["questions_updated"] == 1
    assert revision(seeded, "1", SEED_SET) == 2
    again = import_file(seeded, text.encode(), "more.toml")
    assert "questions_updated" not in again.counts
    assert revision(seeded, "1", SEED_SET) == 2


def test_reimporting_the_question_page_keeps_catalog_references(seeded):
    from tests.factories import SEED_DIR

    import_file(seeded, catalog_references('{ url = "https://docs.nvidia.com/a" }').encode(), "c")
    page = SEED_DIR / "000_21c8a85df645b7bb.txt"
    import_file(seeded, page.read_bytes(), f"seed/{page.name}")
    assert stored(seeded, "1", SEED_SET) == [ReferenceData("https://docs.nvidia.com/a")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (catalog_references('{ url = "ftp://docs.nvidia.com/a" }'), "must be an absolute address"),
        (catalog_references('{ url = "https://a.org", page = 3 }'), "references must be a list"),
        (catalog_references('{ title = "No address" }'), "references must be a list"),
        (catalog_references('"https://a.org"'), "references must be a list"),
        (
            HEADER
            + f'\n[question_sets."{SEED_SET}"]\nreferences = [{{ url = "https://a.org" }}]\n',
            "on a question",
        ),
    ],
)
def test_bad_catalog_references_are_refused_with_their_table_line(seeded, text, message):
    before = exported(seeded)
    with pytest.raises(ImportRefused) as caught:
        import_file(seeded, text.encode(), "catalog.toml")
    assert (caught.value.file, caught.value.line) == ("catalog.toml", 3)
    assert message in caught.value.message
    assert exported(seeded) == before


def test_a_placement_with_bad_references_is_refused_by_the_checks_too(db):
    """Bundles built in code go through the same checks as parsed files."""
    load(db, with_references(None))
    bundle = Bundle(
        placements=[Placement("question", "basics/1", None, 9, references=[RELEASE, RELEASE])]
    )
    with pytest.raises(InvalidContent) as caught:
        load(db, bundle)
    assert (caught.value.line, "cited twice" in caught.value.message) == (9, True)


def test_export_writes_every_reference_field(db):
    load(db, with_references([GUIDE, RELEASE]))
    question: dict[str, Any] = exported(db)["questions"][0]
    assert question["references"] == [
        {"title": GUIDE.title, "url": GUIDE.url, "version": GUIDE.version},
        {"title": None, "url": RELEASE.url, "version": None},
    ]
    assert json.loads(json.dumps(question)) == question
