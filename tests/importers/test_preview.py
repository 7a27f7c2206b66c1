"""Seeing what an import would do before it is written: `studyhall import --dry-run` and the
import page's preview, whose Import button imports the very document previewed."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from app.cli import cli
from app.db.base import Base
from app.importers.preview import preview_documents
from app.main import create_app
from tests.conftest import log_in
from tests.factories import SEED_DIR, import_file, row_counts, tags

BANK = (
    "id;question;choice_a;choice_b;choice_c;right;topic\n"
    "one;Which one?;This;That;;A;Build/Engines\n"
    'two;"Which\ntwo?";This;That;Other;A,B;Build\n'
)
BAD = BANK.replace(";A,B;", ";A,D;")
QA = (SEED_DIR / "000_21c8a85df645b7bb.txt").read_bytes()


def every_row(db) -> dict[str, list[tuple]]:  # type: ignore[no-untyped-def]
    """Every row of every table (content, accounts, attempts, the content version...)."""
    with db.session_scope() as session:
        return {
            table.name: [
                tuple(row)
                for row in session.execute(select(table).order_by(*table.primary_key.columns))
            ]
            for table in Base.metadata.sorted_tables
        }


def _preview(db, *documents: tuple[str, bytes]):  # type: ignore[no-untyped-def]
    with db.session_scope(write=True) as session:
        return preview_documents(session, list(documents), 0.12)


def test_a_preview_reports_what_the_import_then_does_and_writes_nothing(seeded):
    rows = every_row(seeded)
    (preview,) = _preview(seeded, ("bank.csv", BANK.encode()))
    assert every_row(seeded) == rows
    assert [(q.line, q.set, q.key, q.outcome) for q in preview.questions] == [
        (2, "build-engines", "one", "created"),
        (3, "build", "two", "created"),
    ]
    assert [(t.slug, t.depth, t.new) for t in preview.topics] == [
        ("build", 0, True),
        ("build-engines", 1, True),
    ]
    assert preview.figures() == {
        "created": 2,
        "updated": 0,
        "unchanged": 0,
        "skipped": 0,
        "refused": 0,
    }
    assert preview.report is not None
    assert import_file(seeded, BANK.encode(), "bank.csv").counts == preview.report.counts


def test_a_preview_after_the_import_finds_everything_unchanged_and_an_edit_updated(db):
    import_file(db, BANK.encode(), "bank.csv")
    (again,) = _preview(db, ("bank.csv", BANK.encode()))
    assert again.figures() == {
        "created": 0,
        "updated": 0,
        "unchanged": 2,
        "skipped": 0,
        "refused": 0,
    }
    assert [t.new for t in again.topics] == [False, False]
    (edited,) = _preview(db, ("bank.csv", BANK.replace(";A,B;", ";B,C;").encode()))
    assert [(q.line, q.outcome) for q in edited.questions] == [(2, "unchanged"), (3, "updated")]
    assert edited.report is not None and edited.report.counts["questions_updated"] == 1


def test_documents_are_previewed_in_turn_as_they_would_import(db):
    first, second, refused = _preview(
        db, ("bank.csv", BANK.encode()), ("bank.csv", BANK.encode()), ("bad.csv", BAD.encode())
    )
    assert first.figures()["created"] == 2 and second.figures()["unchanged"] == 2
    assert refused.refused is not None and str(refused.refused).startswith(
        "bad.csv:3: column right"
    )
    assert row_counts(db)["question"] == 0


def test_skipped_questions_are_counted(db):
    text = "Which?\nA. x\nB. y\nANSWER: A\n\nBroken?\nA. x\nANSWER: A\n"
    (refused,) = _preview(db, ("quiz.txt", text.encode()))
    assert refused.refused is not None and refused.refused.line == 6
    with db.session_scope(write=True) as session:
        (skipping,) = preview_documents(session, [("quiz.txt", text.encode())], 0.12, None, True)
    assert skipping.figures() == {
        "created": 1,
        "updated": 0,
        "unchanged": 0,
        "skipped": 0,
        "refused": 1,
    }
    assert row_counts(db)["question"] == 0


def test_studyhall_import_dry_run_prints_each_question_and_the_topics(
    cli_env, tmp_path, monkeypatch, seeded
):
    monkeypatch.chdir(tmp_path)
    Path("bank.csv").write_text(BANK, encoding="utf-8")
    Path("bad.csv").write_text(BAD, encoding="utf-8")
    Path("seed.txt").write_bytes(QA)
    rows = every_row(seeded)
    result = CliRunner().invoke(
        cli, ["import", "--dry-run", "bank.csv", "bad.csv", "seed.txt", "missing.csv"]
    )
    assert result.exit_code == 0, result.output
    assert every_row(seeded) == rows
    output = " ".join(result.output.split())
    assert "would import bank.csv (csv): created 2, updated 0, unchanged 0, skipped 0" in output
    assert "line 2 created build-engines/one “Which one?”" in output
    assert "line 3 created build/two “Which two?”" in output
    assert "Build build (new) Engines build-engines (new)" in output
    assert "would refuse bad.csv:3: column right: D names choice_d" in output
    assert "would import seed.txt (qa): created 0, updated 0, unchanged 7" in output
    assert "would refuse missing.csv:1: no such file" in output
    assert output.endswith(
        "Summary: would be created 2, updated 0, unchanged 7, skipped 0, refused 2 (2 files) "
        "Dry run: nothing was written."
    )


def _preview_page(client, content: bytes, name: str = "bank.csv", fmt: str = ""):  # type: ignore[no-untyped-def]
    return client.post(
        "/author/import/preview",
        files={"document": (name, content, "text/csv")},
        data={"format": fmt},
    )


def _carried(html: str) -> dict[str, str]:
    return {
        str(field["name"]): str(field["value"])
        for field in tags(html, "input")
        if field.get("type") == "hidden"
    }


def test_the_web_preview_writes_nothing_and_its_button_imports_the_same_document(
    user_client, seeded
):
    client = user_client("writer", role="author")
    form = client.get("/author/import").text
    assert 'formaction="/author/import/preview"' in form
    rows = every_row(seeded)
    response = _preview_page(client, BANK.encode())
    assert response.status_code == 200 and every_row(seeded) == rows
    text = " ".join(response.text.split())
    assert "Preview of bank.csv (csv)" in text and "create 2 questions" in text
    assert '<td>3</td><td>created</td><td>Which two? <span class="muted">(build/two)</span>' in text
    assert 'Engines <span class="muted">(build-engines, new)</span>' in text
    carried = _carried(response.text)
    assert set(carried) == {"content", "digest", "name", "format"}
    imported = client.post(
        "/author/import/confirm", files={k: (None, v) for k, v in carried.items()}
    )
    assert imported.status_code == 200 and "Imported bank.csv" in imported.text
    assert "questions created: 2" in imported.text
    again = _preview_page(client, BANK.encode())
    assert "leave 2 questions unchanged" in " ".join(again.text.split())


def test_skipping_bad_questions_is_previewed_and_carried_to_the_import(user_client, db):
    client = user_client("writer", role="author")
    form = client.get("/author/import").text
    assert '<input type="checkbox" id="skip_bad" name="skip_bad"' in form
    response = client.post(
        "/author/import/preview",
        files={"document": ("bad.csv", BAD.encode(), "text/csv")},
        data={"format": "", "skip_bad": "on"},
    )
    assert response.status_code == 200 and row_counts(db)["question"] == 0
    text = " ".join(response.text.split())
    assert "create 1 question</li>" in text and "leave out 1 question that cannot be read" in text
    assert "line 3: refused: column right: D names choice_d" in text
    carried = _carried(response.text)
    assert carried["skip_bad"] == "on"
    imported = client.post(
        "/author/import/confirm", files={k: (None, v) for k, v in carried.items()}
    )
    assert imported.status_code == 200 and "questions created: 1" in imported.text
    assert row_counts(db)["question"] == 1


def test_a_refused_preview_shows_the_refusal_and_no_import_button(user_client, db):
    client = user_client("writer", role="author")
    response = _preview_page(client, BAD.encode(), "bad.csv")
    assert response.status_code == 422
    assert "This file would be refused" in response.text
    assert "bad.csv, line 3: column right: D names choice_d" in response.text
    assert _carried(response.text) == {} and row_counts(db)["question"] == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"digest": "0" * 64}, "did not come back whole"),
        ({"content": "not base64!"}, "did not come back whole"),
        ({"content": ""}, "did not come back whole"),
        ({"name": None}, "Preview the file again"),
    ],
)
def test_a_damaged_carried_document_is_refused_and_saves_nothing(user_client, db, change, message):
    client = user_client("writer", role="author")
    carried = {**_carried(_preview_page(client, BANK.encode()).text), **change}
    fields = {k: (None, v) for k, v in carried.items() if v is not None}
    response = client.post("/author/import/confirm", files=fields)
    assert response.status_code == 422 and message in response.text
    assert row_counts(db)["question"] == 0


def test_learners_can_neither_preview_nor_confirm(user_client, db):
    learner = user_client("ann")
    assert _preview_page(learner, BANK.encode()).status_code == 403
    fields = {"content": (None, "eA=="), "digest": (None, "x"), "name": (None, "a.csv")}
    assert learner.post("/author/import/confirm", files=fields).status_code == 403
    assert row_counts(db)["question"] == 0


def test_a_document_near_the_upload_limit_is_carried_in_base64(settings, db, make_user):
    rows = "".join(f"q{n};Question number {n}?;This;That;;A;\n" for n in range(40))
    data = (BANK.split("\n")[0] + "\n" + rows).encode()
    app = create_app(settings.model_copy(update={"max_upload_bytes": len(data)}))
    make_user("writer", role="author")
    with TestClient(app) as client:
        log_in(client, "writer")
        carried = _carried(_preview_page(client, data).text)
        assert len(carried["content"]) > len(data)
        response = client.post(
            "/author/import/confirm", files={k: (None, v) for k, v in carried.items()}
        )
        assert response.status_code == 200, response.text
        too_large = _preview_page(client, data + b"q;Q?;a;b;;A;\n")
        assert too_large.status_code == 422 and "larger than the limit" in too_large.text
    assert row_counts(db)["question"] == 40
