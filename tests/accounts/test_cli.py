"""`studyhall users ...` and `studyhall check`."""

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from app.accounts.models import User
from app.cli import cli
from tests.factories import PASSWORD

runner = CliRunner()


def _users(db) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        return [(u.username, u.role) for u in session.scalars(select(User).order_by(User.id))]


def test_create_reads_the_password_from_stdin(cli_env, db):
    result = runner.invoke(
        cli,
        ["users", "create", "Boss", "--role", "admin", "--password-stdin"],
        input=PASSWORD + "\n",
    )
    assert result.exit_code == 0, result.output
    assert "Created boss (admin)" in result.output
    assert _users(db) == [("boss", "admin")]
    assert PASSWORD not in result.output


def test_create_prompts_for_the_password_twice(cli_env, db):
    result = runner.invoke(cli, ["users", "create", "ann"], input=f"{PASSWORD}\n{PASSWORD}\n")
    assert result.exit_code == 0, result.output
    assert _users(db) == [("ann", "learner")]


def test_the_password_is_never_an_argument(cli_env, db):
    result = runner.invoke(cli, ["users", "create", "ann", "--password", PASSWORD])
    assert result.exit_code == 2
    assert _users(db) == []


@pytest.mark.parametrize(
    ("args", "password", "code", "message"),
    [
        (["users", "create", "ann", "--role", "king"], PASSWORD, 2, "Unknown role"),
        (["users", "create", "ann"], "short", 1, "at least 8 characters"),
        (["users", "create", "a b"], PASSWORD, 1, "Use 3 to 32 characters"),
    ],
)
def test_create_refuses_bad_input(cli_env, db, args, password, code, message):
    result = runner.invoke(cli, [*args, "--password-stdin"], input=password + "\n")
    assert result.exit_code == code
    assert message in result.output
    assert _users(db) == []


def test_create_refuses_a_taken_name(cli_env, db, make_user):
    make_user("ann")
    result = runner.invoke(
        cli, ["users", "create", "ANN", "--password-stdin"], input=PASSWORD + "\n"
    )
    assert result.exit_code == 1 and "taken" in result.output


def test_refusals_print_what_was_typed_literally(cli_env, db):
    result = runner.invoke(cli, ["users", "set-role", "ann:100:[bold]", "author"])
    assert result.exit_code == 1
    assert "ann:100:[bold]" in result.output


def test_list_and_set_role(cli_env, db, make_user):
    assert "No users yet" in runner.invoke(cli, ["users", "list"]).output
    make_user("ann")
    make_user("boss", role="admin")
    result = runner.invoke(cli, ["users", "set-role", "ann", "author"])
    assert result.exit_code == 0 and "ann is now author" in result.output
    listing = runner.invoke(cli, ["users", "list"]).output
    assert "ann" in listing and "author" in listing and "boss" in listing
    assert runner.invoke(cli, ["users", "set-role", "nobody", "author"]).exit_code == 1
    assert runner.invoke(cli, ["users", "set-role", "ann", "king"]).exit_code == 1
    last_admin = runner.invoke(cli, ["users", "set-role", "boss", "learner"])
    assert last_admin.exit_code == 1 and "last admin" in last_admin.output


def test_check_passes_the_default_setup_with_warnings(cli_env):
    result = runner.invoke(cli, ["check"])
    assert result.exit_code == 0, result.output
    assert "can sign up" in result.output and "no admin account" in result.output
    assert "SQLite" not in result.output and "Secure" not in result.output


def test_check_warns_about_http_behind_a_proxy(cli_env, monkeypatch):
    from app.config import get_settings

    monkeypatch.setenv("STUDYHALL_TRUSTED_PROXIES", "10.0.0.2")
    get_settings.cache_clear()
    result = runner.invoke(cli, ["check"])
    assert result.exit_code == 0 and "not marked Secure" in result.output


def test_check_warns_about_public_metrics(cli_env, monkeypatch):
    from app.config import get_settings

    assert "/metrics" not in runner.invoke(cli, ["check"]).output
    monkeypatch.setenv("STUDYHALL_METRICS", "public")
    get_settings.cache_clear()
    result = runner.invoke(cli, ["check"])
    assert result.exit_code == 0 and "can read /metrics" in " ".join(result.output.split())


def test_check_warns_about_several_workers_on_sqlite(cli_env):
    result = runner.invoke(cli, ["check", "--workers", "4"])
    assert result.exit_code == 0
    said = " ".join(result.output.split())
    assert ("4 workers on SQLite" in said) == cli_env.database_url.startswith("sqlite")


def test_check_is_quiet_for_a_locked_down_setup(cli_env, monkeypatch, make_user):
    from app.config import get_settings

    make_user("boss", role="admin")
    monkeypatch.setenv("STUDYHALL_SECURE_COOKIES", "true")
    monkeypatch.setenv("STUDYHALL_SIGNUP_OPEN", "false")
    get_settings.cache_clear()
    result = runner.invoke(cli, ["check"])
    assert result.exit_code == 0 and "No problems found" in result.output


def test_check_warns_about_an_unmigrated_database(tmp_path, monkeypatch):
    from app.config import get_settings
    from app.migrate import upgrade

    upgrade(f"sqlite:///{tmp_path / 'old.db'}", "0005")
    monkeypatch.setenv("STUDYHALL_DATABASE_URL", f"sqlite:///{tmp_path / 'old.db'}")
    get_settings.cache_clear()
    try:
        result = runner.invoke(cli, ["check"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0
    said = " ".join(result.output.split())
    assert "is at revision 0005" in said and "studyhall migrate" in said


def test_check_fails_on_a_database_made_by_a_newer_release(cli_env, stamp_revision):
    stamp_revision("9999")
    result = runner.invoke(cli, ["check"])
    assert result.exit_code == 1
    assert "made by a newer release" in " ".join(result.output.split())


def test_check_fails_when_the_database_cannot_be_used(tmp_path, monkeypatch):
    from app.config import get_settings

    (tmp_path / "x.db").mkdir()  # a folder where the database file should be
    monkeypatch.setenv("STUDYHALL_DATABASE_URL", f"sqlite:///{tmp_path / 'x.db'}")
    get_settings.cache_clear()
    try:
        result = runner.invoke(cli, ["check"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 1
    assert "The database cannot be used" in " ".join(result.output.split())


def test_an_unmigrated_database_gets_a_message_not_a_traceback(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "STUDYHALL_DATABASE_URL": f"sqlite:///{tmp_path / 'new.db'}"}
    studyhall = Path(sys.executable).parent / "studyhall"
    result = subprocess.run(
        [str(studyhall), "users", "list"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert "has `studyhall migrate` been run?" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
