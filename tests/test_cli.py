import json
import shutil
from pathlib import Path

import click
import pytest
from sqlalchemy import inspect
from typer.testing import CliRunner

from app.cli import cli
from app.config import get_settings
from app.db import Database
from tests.factories import (
    SEED_DIR,
    SEED_SET,
    a_bank,
    exported,
    question_id,
    row_counts,
    snapshot,
)

QA_SEED = SEED_DIR / "000_21c8a85df645b7bb.txt"
NOTE_SEED = SEED_DIR / "004_7ac6168e0636c6eb.txt"
BAD_PAGE = (
    "Quiz — Questions and Answers\n"
    "Question 1: Which one?\n"
    "- Right (Correct answer)\n"
    "- Wrong\n"
    "Correct answer: Neither\n"
    "Because.\n"
)


@pytest.fixture
def run(cli_env, tmp_path, monkeypatch):
    """Run `studyhall ...` in this test's temporary folder and return the click Result."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, list(args))


def said(result) -> str:
    """Return everything the command printed, with colours and line wrapping undone."""
    return " ".join(click.unstyle(result.output).split())


@pytest.fixture
def cli_db(cli_env):
    database = Database(cli_env.database_url)
    yield database
    database.dispose()


def write(name: str, data: str | bytes) -> Path:
    path = Path(name)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def test_migrate_creates_the_schema(run, tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'fresh' / 'new.db'}"
    monkeypatch.setenv("STUDYHALL_DATABASE_URL", url)
    get_settings.cache_clear()
    result = run("migrate")
    assert result.exit_code == 0, result.output
    assert "Created the database schema (revision " in said(result)
    database = Database(url)
    try:
        assert {"question", "choice", "note", "note_section", "topic"} <= set(
            inspect(database.engine).get_table_names()
        )
    finally:
        database.dispose()
    again = run("migrate")
    assert again.exit_code == 0 and "The database schema is up to date" in said(again)


def test_migrate_says_what_it_upgraded(run, tmp_path, monkeypatch):
    from app.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0002")
    monkeypatch.setenv("STUDYHALL_DATABASE_URL", url)
    get_settings.cache_clear()
    result = run("migrate")
    assert result.exit_code == 0, result.output
    assert "Upgraded the database schema from revision 0002 to " in said(result)


def test_seed_loads_every_seed_document(run, cli_db):
    result = run("seed")
    assert result.exit_code == 0, result.output
    output = said(result)
    assert "imported seed/000_21c8a85df645b7bb.txt (qa): dropped lines 2, questions 7" in output
    assert "imported seed/004_7ac6168e0636c6eb.txt (note)" in output
    assert "imported seed/catalog.toml (catalog)" in output
    assert (
        "warning seed/000_21c8a85df645b7bb.txt:51: dropped lines 51-52: the page's repeated title"
        in output
    )
    counts = row_counts(cli_db)
    assert (counts["question"], counts["note"], counts["topic"]) == (7, 1, 6)


def test_seed_if_changed_loads_once_then_skips(run, cli_db):
    first = run("seed", "--if-changed")
    assert first.exit_code == 0, first.output
    assert row_counts(cli_db)["question"] == 7
    assert "Loaded the seed content: question sets created 1, questions created 7" in said(first)
    before = snapshot(cli_db)
    second = run("seed", "--if-changed")
    assert second.exit_code == 0
    assert said(second) == (
        "The seed content is up to date: no seed document changed since it was loaded."
    )
    assert snapshot(cli_db) == before


def test_seed_if_changed_brings_changed_seed_content_up_to_date(run, cli_db, tmp_path, monkeypatch):
    seed = tmp_path / "seed"
    shutil.copytree(SEED_DIR, seed)
    monkeypatch.setenv("STUDYHALL_SEED_DIR", str(seed))
    get_settings.cache_clear()
    assert run("seed", "--if-changed").exit_code == 0
    write("own.json", json.dumps(a_bank({"alpha": 3}, set_slug="own")))
    assert run("import", "own.json").exit_code == 0
    own = [q for q in exported(cli_db)["questions"] if q["set"] == "own"]
    (seed / "bank-new.json").write_text(json.dumps(a_bank({"beta": 2}, set_slug="new")))
    again = run("seed", "--if-changed")
    assert again.exit_code == 0, again.output
    assert "Updated the seed content: " in said(again)
    assert "questions created 2" in said(again)
    assert row_counts(cli_db)["question"] == 7 + 3 + 2
    assert [q for q in exported(cli_db)["questions"] if q["set"] == "own"] == own


def test_seed_without_documents_fails(run, tmp_path, monkeypatch):
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("STUDYHALL_SEED_DIR", "empty")
    get_settings.cache_clear()
    result = run("seed")
    assert result.exit_code == 1
    assert said(result) == "No seed documents in empty"


def test_import_good_files(run, cli_db):
    result = run("import", str(QA_SEED), str(NOTE_SEED))
    assert result.exit_code == 0, result.output
    assert f"imported {QA_SEED} (qa)" in said(result)
    assert row_counts(cli_db)["question"] == 7
    assert row_counts(cli_db)["note"] == 1


def test_import_bad_file_saves_nothing_and_names_the_line(run, cli_db):
    write("bad.txt", BAD_PAGE)
    result = run("import", "bad.txt")
    assert result.exit_code == 1
    output = said(result)
    assert (
        "refused bad.txt:5: Question 1: 'Correct answer: Neither' matches none of its options "
        "(nothing from this file was saved)"
    ) in output
    assert "1 of 1 file(s) refused." in output
    assert row_counts(cli_db)["question_set"] == 0


def test_import_keeps_good_files_when_another_is_refused(run, cli_db):
    write("bad.txt", BAD_PAGE)
    result = run("import", str(QA_SEED), "bad.txt")
    assert result.exit_code == 1
    assert "1 of 2 file(s) refused." in said(result)
    assert row_counts(cli_db)["question"] == 7


def test_import_missing_file(run, cli_db):
    result = run("import", "missing.txt")
    assert result.exit_code == 1
    assert "refused missing.txt:1: no such file" in said(result)


def test_import_refuses_a_file_over_the_size_limit(run, cli_db, monkeypatch):
    monkeypatch.setenv("STUDYHALL_MAX_UPLOAD_BYTES", "100")
    get_settings.cache_clear()
    size = QA_SEED.stat().st_size
    write("big.txt", QA_SEED.read_bytes())
    result = run("import", "big.txt")
    assert result.exit_code == 1
    assert (
        f"refused big.txt:1: the file is {size:,} bytes; the limit is 100 "
        "(--max-bytes, or STUDYHALL_MAX_UPLOAD_BYTES)"
    ) in said(result)
    assert row_counts(cli_db)["question"] == 0


def test_import_recognises_the_format_by_the_files_name(run, cli_db):
    write("quiz.gift", "Which one? {=This ~That}\n")
    write("other.aiken.txt", "Which one?\nA. This\nB. That\nANSWER: A\n")
    write("mixed.csv", "Which one?\nA. This\nB. That\nANSWER: A\n")
    result = run("import", "quiz.gift", "other.aiken.txt", "mixed.csv")
    assert result.exit_code == 1
    output = said(result)
    assert "imported quiz.gift (gift)" in output
    assert "imported other.aiken.txt (aiken)" in output
    assert (
        "refused mixed.csv:1: the file's name says csv but its content is aiken: rename the "
        "file or choose the format (nothing from this file was saved)"
    ) in output
    assert row_counts(cli_db)["question"] == 2


GIFT = (
    "::One:: Which one? {=This ~That}\n\n"
    "::Two:: Which two? {=This ~}\n\n"
    "::Three:: Explain. {}\n\n"
    "::Four:: How many? {#4}\n\n"
    "::Five:: Describe.{}\n"
)


def test_import_ends_with_a_summary_line(run, cli_db):
    write("bank.gift", GIFT)
    write("bad.txt", BAD_PAGE)
    result = run("import", "--skip-bad", "bank.gift", "bad.txt")
    assert result.exit_code == 1
    output = said(result)
    assert "warning bank.gift:3: refused: choice 2 has no text" in output
    assert (
        "Summary: created 1, updated 0, unchanged 0, skipped 3 (essay 2, numerical 1), "
        "refused 2 (1 question, 1 file)"
    ) in output
    again = run("import", "bank.gift", str(QA_SEED))
    assert again.exit_code == 1
    assert "Summary: created 7, updated 0, unchanged 0, skipped 0, refused 1 (1 file)" in said(
        again
    )
    edited = write("bank.gift", GIFT.replace("~That", "~Those"))
    last = run("import", "--skip-bad", str(edited), str(QA_SEED))
    assert last.exit_code == 0, last.output
    assert said(last).endswith(
        "Summary: created 0, updated 1, unchanged 7, skipped 3 (essay 2, numerical 1), "
        "refused 1 (1 question)"
    )


def test_import_with_a_format(run, cli_db):
    result = run("import", "--format", "note", str(NOTE_SEED))
    assert result.exit_code == 0, result.output
    assert row_counts(cli_db)["note"] == 1


@pytest.mark.parametrize(
    ("format", "message"),
    [
        (
            "xml",
            "unknown format 'xml'; choose one of moodle-xml, json, catalog, qa, note, errata, "
            "csv, gift, aiken",
        ),
        ("qa", "the title line must end with ' — Questions and Answers'"),
    ],
)
def test_import_with_a_wrong_format_is_refused(run, cli_db, format, message):
    write("note.txt", NOTE_SEED.read_bytes())
    result = run("import", "-f", format, "note.txt")
    assert result.exit_code == 1
    assert f"refused note.txt:1: {message}" in said(result)
    assert row_counts(cli_db)["note"] == 0


def test_refusal_messages_are_printed_verbatim(run, cli_db):
    write("cat.toml", 'format = "studyhall.catalog/1"\n[[topics]]\ntitle = "No slug"\n')
    result = run("import", "cat.toml")
    assert result.exit_code == 1
    assert "refused cat.toml:2: every [[topics]] entry needs a slug" in said(result)


PADDING = "\n" * 95  # moves line 5 to line 100


def test_refusals_keep_file_names_and_line_numbers_literally(run, cli_db):
    name = "quiz [bold]x[i]:100:.txt"
    write(
        name, BAD_PAGE.replace("Correct answer: Neither", PADDING + "Correct answer: [bold]:100:")
    )
    result = run("import", name)
    assert result.exit_code == 1
    assert (
        f"refused {name}:100: Question 1: 'Correct answer: [bold]:100:' matches none of its "
        "options (nothing from this file was saved)"
    ) in said(result)


def test_warnings_keep_file_names_and_line_numbers_literally(run, cli_db):
    name = "[red]:100:.txt"
    page = BAD_PAGE.replace("Correct answer: Neither\nBecause.", "Correct answer: Right")
    write(name, page.replace("\n", "\n" + "\n" * 98, 1))  # "Question 1" on line 100
    result = run("import", name)
    assert result.exit_code == 0, result.output
    assert f"imported {name} (qa)" in said(result)
    assert f"warning {name}:100: Question 1 has no explanation" in said(result)


def test_an_unknown_export_format_is_named_literally(run, cli_db):
    result = run("export", "--format", "[bold]:100:")
    assert result.exit_code == 2
    assert "Unknown export format '[bold]:100:'" in said(result)


def test_import_without_files_is_a_usage_error(run):
    assert run("import").exit_code == 2


def test_export_json_to_stdout(run, seeded):
    result = run("export", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == exported(seeded)


def test_export_to_a_file(run, seeded, tmp_path):
    result = run("export", "-o", "out.json")
    assert result.exit_code == 0, result.output
    assert "Wrote out.json" in said(result)
    assert result.stdout == ""
    text = (tmp_path / "out.json").read_text(encoding="utf-8")
    assert json.loads(text) == exported(seeded)
    assert "NCA Inference Optimization & TensorRT 5" in text


def test_exported_file_imports_back(run, seeded, cli_db):
    run("export", "-o", "out.json")
    before = snapshot(cli_db)[0], row_counts(cli_db)
    result = run("import", "out.json")
    assert result.exit_code == 0, result.output
    assert "imported out.json (json)" in said(result)
    assert (exported(cli_db), row_counts(cli_db)) == before


def test_export_refuses_other_formats(run, seeded):
    result = run("export", "--format", "xml")
    assert result.exit_code == 2
    formats = "json, gift, moodle-xml, csv, apkg"
    assert f"Unknown export format 'xml'; choose one of {formats}." in said(result)
    assert result.stdout == ""


def test_check_content_passes_a_clean_bank(run, cli_db):
    write("bank.json", json.dumps(a_bank({"alpha": 20})))
    assert run("import", "bank.json").exit_code == 0
    result = run("check-content")
    assert result.exit_code == 0, result.output
    text = said(result)
    assert "Right answers by position" in text and "Questions per topic" in text
    assert "│ bank │ 20 │ 20 │ 5 │ 5 │ 5 │ 5 │ 25% 25% 25% 25% │" in text
    assert text.endswith("No findings in 20 questions.")


def test_check_content_lists_findings_and_fails(run, seeded):
    result = run("check-content")
    assert result.exit_code == 1
    text = said(result)
    assert (
        f"no-reference {SEED_SET}/3 (id {question_id(seeded, '3')}): cites no source — "
        "“Which TensorRT calibration algorithm is most suitable" in text
    )
    assert "thin-topic sparsity: holds 1 question(s); a leaf topic needs at least 20" in text
    assert text.endswith(
        "39 finding(s) in 7 questions: absolute-distractor 2, no-difficulty 7, no-note-link 5, "
        "no-reference 7, no-version 7, stem-echoes-key 2, thin-topic 5, topic-without-note 4"
    )


def test_check_content_as_json(run, seeded):
    result = run("check-content", "--json", "--set", "nca-")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["questions"] == 7
    assert report["sets"][0]["positions"] == [7, 0, 0, 0]
    assert {f["kind"] for f in report["findings"]} == {
        "absolute-distractor",
        "stem-echoes-key",
        "no-reference",
        "no-note-link",
        "no-version",
        "no-difficulty",
        "thin-topic",
        "topic-without-note",
    }
    assert report["findings"][0]["questions"][0]["ref"] == f"{SEED_SET}/1"


def test_check_content_of_sets_that_do_not_exist_is_an_error(run, seeded):
    result = run("check-content", "--set", "nope")
    assert result.exit_code == 2
    assert "No questions in sets starting with nope." in said(result)


def test_serve_trusts_only_the_configured_proxies(cli_env, monkeypatch):
    import uvicorn

    from app.config import get_settings

    seen: dict[str, object] = {}
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: seen.update(kwargs))
    monkeypatch.setenv("STUDYHALL_TRUSTED_PROXIES", "10.1.2.3")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["serve", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert seen["forwarded_allow_ips"] == "10.1.2.3" and seen["port"] == 8123


def test_serve_refuses_several_workers_on_sqlite(cli_env, monkeypatch):
    import uvicorn

    started: list[object] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: started.append(kwargs))
    result = CliRunner().invoke(cli, ["serve", "--workers", "2"])
    if cli_env.database_url.startswith("sqlite"):
        assert result.exit_code == 2 and started == []
        assert "SQLite serves one process" in said(result) and "PostgreSQL" in said(result)
    else:
        assert result.exit_code == 0 and started[0]["workers"] == 2  # type: ignore[index]
