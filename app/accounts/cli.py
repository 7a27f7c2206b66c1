"""`studyhall users ...`: manage accounts from the server's command line."""

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from app.accounts import service
from app.accounts.errors import AccountError
from app.accounts.models import ROLES
from app.config import get_settings
from app.db import Database

users = typer.Typer(help="Manage user accounts.", no_args_is_help=True)
out = Console(soft_wrap=True, emoji=False, highlight=False)
err = Console(stderr=True, soft_wrap=True, emoji=False, highlight=False)
ROLE_HELP = f"One of: {', '.join(ROLES)}."


def _fail(message: str, code: int = 1) -> typer.Exit:
    err.print(f"[red]{escape(message)}[/]")
    return typer.Exit(code)


def _password(from_stdin: bool) -> str:
    """Read the password from standard input or a hidden prompt, never from the arguments."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


@users.command("create")
def create(
    username: Annotated[str, typer.Argument(help="The new user's name.")],
    role: Annotated[str, typer.Option(help=ROLE_HELP)] = "learner",
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from standard input.")
    ] = False,
) -> None:
    """Create a user; the password is asked for (or read from standard input)."""
    if role not in ROLES:
        raise _fail(f"Unknown role {role!r}. {ROLE_HELP}", 2)
    password = _password(password_stdin)
    db = Database(get_settings().database_url)
    try:
        with db.session_scope(write=True) as session:
            user = service.create_user(session, username, password, role)
            name = user.username
    except AccountError as exc:
        raise _fail(exc.message) from None
    finally:
        db.dispose()
    out.print(f"Created [bold]{escape(name)}[/] ({role}).")


@users.command("list")
def list_() -> None:
    """List every user with their role."""
    db = Database(get_settings().database_url)
    try:
        with db.session_scope() as session:
            rows = [(u.username, u.role, u.created_at) for u in service.list_users(session)]
    finally:
        db.dispose()
    if not rows:
        out.print("No users yet. Create one with: studyhall users create NAME --role admin")
        return
    table = Table("username", "role", "joined")
    for username, role, created in rows:
        table.add_row(escape(username), role, created.strftime("%Y-%m-%d"))
    out.print(table)


@users.command("set-role")
def set_role(
    username: Annotated[str, typer.Argument(help="Whose role to change.")],
    role: Annotated[str, typer.Argument(help=ROLE_HELP)],
) -> None:
    """Change a user's role."""
    db = Database(get_settings().database_url)
    try:
        with db.session_scope(write=True) as session:
            service.set_role(session, None, username, role)
    except AccountError as exc:
        raise _fail(exc.message) from None
    finally:
        db.dispose()
    out.print(f"{escape(username)} is now {role}.")
