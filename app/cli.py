"""The `studyhall` command: serve, migrate, seed, import, export, backup, restore, sweep, users,
check and check-content."""

import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from sqlalchemy.engine import make_url

from app.accounts.cli import users
from app.config import get_settings
from app.content.bundle import Report
from app.db import Database
from app.importers.errors import ImportRefused
from app.importers.preview import Preview, preview_documents
from app.importers.service import FORMATS, import_in_steps, seed_files
from app.web.metrics import IMPORT_REFUSED, IMPORTED

if TYPE_CHECKING:
    from app.content.quality import ContentReport

# asyncio's own event loop, not uvloop: when a worker is saturated, uvloop served some
# connections many turns late (a page taking 1.5 ms had a p99 of 440-560 ms at 32
# connections, against 56-60 ms on asyncio's loop, for the same throughput).
SERVER_LOOP = "asyncio"

cli = typer.Typer(
    help="Studyhall: questions, notes and practice for exam prep.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
cli.add_typer(users, name="users")
# Markup colours the command's own words; what came from elsewhere (file names, lines,
# messages) is escaped, and no `:name:` turns into an emoji (`FILE:100:` stays FILE:100:).
out = Console(soft_wrap=True, emoji=False, highlight=False)
err = Console(stderr=True, soft_wrap=True, emoji=False, highlight=False)


def _database() -> Database:
    return Database(get_settings().database_url)


def _progress_columns() -> tuple[ProgressColumn, ...]:
    """A long step's bar: what, how far, done of all, and the time so far."""
    return (
        TextColumn("{task.description}", markup=False),  # descriptions name files
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )


@cli.command()
def migrate() -> None:
    """Create or upgrade the database schema."""
    from app.migrate import schema_state, upgrade

    url = get_settings().database_url
    state = schema_state(url)
    if not state.known:
        err.print(_newer_schema(state.current))
        raise typer.Exit(2)
    rebuilt = upgrade(url)
    if state.current is None:
        out.print(f"[green]Created the database schema (revision {state.head}).[/]")
    elif state.behind:
        out.print(
            f"Upgraded the database schema from revision {escape(str(state.current))} to {state.head}."
        )
    else:
        out.print(f"The database schema is up to date (revision {state.head}).")
    if rebuilt is not None:
        out.print(
            f"Made {rebuilt.cards:,} review cards from {rebuilt.answers:,} answers given before "
            "cards were kept."
        )


@cli.command()
def rebuild() -> None:
    """Make the review cards missing for answers already given (migrate does it when needed)."""
    from app.migrate import rebuild as rebuild_cards

    rebuilt = rebuild_cards(get_settings().database_url)
    assert rebuilt is not None
    out.print(f"Made {rebuilt.cards:,} review cards from {rebuilt.answers:,} answers.")


def _newer_schema(revision: str | None) -> str:
    return (
        f"[red]The database is at revision {escape(str(revision))}, which this version of Studyhall does "
        "not know: it was made by a newer release. Run that release, or restore a backup "
        "made by this one.[/]"
    )


def _refuse_unready_schema(url: str) -> None:
    """Exit 2 unless the database's schema is the one the code expects."""
    from app.migrate import schema_state

    state = schema_state(url)
    if not state.known:
        err.print(_newer_schema(state.current))
    elif state.current is None:
        err.print("[red]The database has no schema yet.[/] Run `studyhall migrate` first.")
    elif state.behind:
        err.print(
            f"[red]The database is at revision {escape(str(state.current))}; this version of Studyhall needs "
            f"{state.head}.[/] Back it up (`studyhall backup FILE`), then run `studyhall migrate`."
        )
    else:
        return
    raise typer.Exit(2)


@cli.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, max=64, help="Worker processes.")] = 1,
) -> None:
    """Serve the web application; refuse a database whose schema is not the code's."""
    import uvicorn

    from app.backup import serving_lock
    from app.web.headers import SECURITY_HEADERS
    from app.web.logs import log_config
    from app.web.metrics import shared_metrics

    url = get_settings().database_url
    if workers > 1 and make_url(url).get_backend_name() == "sqlite":
        err.print(
            "[red]SQLite serves one process: run one worker, or use PostgreSQL for several "
            "(STUDYHALL_DATABASE_URL=postgresql+psycopg://...).[/]"
        )
        raise typer.Exit(2)
    _refuse_unready_schema(url)

    with (
        _refusals(),
        serving_lock(get_settings().database_url),  # `studyhall restore` refuses a served database
        shared_metrics(workers),  # several workers add their metrics up in one directory
    ):
        uvicorn.run(
            "app.main:create_served_app",
            factory=True,
            loop=SERVER_LOOP,
            headers=[(name.decode(), value.decode()) for name, value in SECURITY_HEADERS],
            host=host,
            port=port,
            workers=workers,
            log_config=log_config(get_settings().log_format, get_settings().log_level),
            log_level=get_settings().log_level,
            access_log=get_settings().access_log,
            proxy_headers=True,
            # Rate limits count per client address: behind a proxy that is another host, its
            # address must be trusted, or every visitor looks like the proxy.
            forwarded_allow_ips=get_settings().trusted_proxies,
        )


@cli.command()
def seed(
    if_changed: Annotated[
        bool,
        typer.Option(
            "--if-changed", help="Do nothing when the seed documents were loaded as they are."
        ),
    ] = False,
) -> None:
    """Load the documents in the seed folder; content of other sets is left as it is."""
    from app.content.service import loaded_seed, remember_seed
    from app.importers.service import seed_digest

    settings = get_settings()
    files = seed_files(settings.seed_dir) if settings.seed_dir.is_dir() else []
    if not files:
        err.print(f"[red]No seed documents in {escape(str(settings.seed_dir))}[/]")
        raise typer.Exit(1)
    db, digest = _database(), seed_digest(files)
    with db.session_scope() as session:
        loaded = loaded_seed(session)
    if if_changed and loaded == digest:
        out.print("The seed content is up to date: no seed document changed since it was loaded.")
        return
    reports = _import_files(
        db, [(path, f"seed/{path.name}") for path in files], None, settings.max_upload_bytes
    )
    with db.session_scope(write=True) as session:
        remember_seed(session, digest)
    changes = _changes(reports)
    verb = "Loaded" if loaded is None else "Updated"
    out.print(f"[green]{verb} the seed content:[/] {changes or 'nothing changed'}.")


def _changes(reports: list[Report]) -> str:
    """Sum what the imports created and updated, as "questions created 214, ..."."""
    totals: Counter[str] = Counter()
    for report in reports:
        totals.update(
            {k: v for k, v in report.counts.items() if k.endswith(("_created", "_updated"))}
        )
    return ", ".join(
        f"{name.replace('_', ' ')} {count:,}" for name, count in totals.items() if count
    )


@cli.command("import")
def import_(
    files: Annotated[list[Path], typer.Argument(help="Documents to import.", show_default=False)],
    format: Annotated[
        str | None,
        typer.Option(
            "--format", "-f", help=f"One of: {', '.join(FORMATS)}; detected when left out."
        ),
    ] = None,
    max_bytes: Annotated[
        int | None,
        typer.Option(
            "--max-bytes",
            min=1,
            help="Largest file to accept, for bulk loads "
            "(default: STUDYHALL_MAX_UPLOAD_BYTES, the web upload limit).",
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Show what the import would create, update, leave unchanged, skip and refuse, "
            "and write nothing.",
        ),
    ] = False,
    skip_bad: Annotated[
        bool,
        typer.Option(
            "--skip-bad",
            help="Import the questions that can be read and report each other one with its "
            "line (Aiken, GIFT, Moodle XML and CSV files); without it such a file saves nothing.",
        ),
    ] = False,
) -> None:
    """Import question sets, notes, catalogs or exports; a refused file saves nothing."""
    limit = max_bytes or get_settings().max_upload_bytes
    labelled = [(path, str(path)) for path in files]
    if dry_run:
        _preview_files(_database(), labelled, format, limit, skip_bad)
        return
    _import_files(_database(), labelled, format, limit, skip_bad)


@cli.command()
def export(
    format: Annotated[
        str,
        typer.Option(
            "--format", "-f", help="json (all content), gift, moodle-xml, csv or apkg (Anki)."
        ),
    ] = "json",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="File to write (default: standard output)."),
    ] = None,
    sets: Annotated[
        list[str] | None,
        typer.Option("--set", help="Only this question set's questions (repeatable)."),
    ] = None,
    topic: Annotated[
        str | None, typer.Option("--topic", help="Only the questions of this topic and under it.")
    ] = None,
) -> None:
    """Export content: JSON reproduces all of it; GIFT, Moodle XML, CSV and Anki hold the
    questions."""
    from app.errors import DomainError
    from app.exporters.errors import NotExportable
    from app.exporters.service import FORMATS, export_file

    if format not in FORMATS:
        err.print(
            f"[red]Unknown export format {escape(repr(format))}; choose one of "
            f"{', '.join(FORMATS)}.[/]"
        )
        raise typer.Exit(2)
    if output is None and FORMATS[format].binary:
        err.print("[red]An Anki deck is a binary file:[/] name the file to write with -o FILE.")
        raise typer.Exit(2)
    try:
        with _database().session_scope() as session:
            exported = export_file(session, format, sets, topic)
    except DomainError as exc:  # an unknown set or topic; content the format cannot hold
        err.print(f"[red]Nothing exported:[/] {escape(exc.message)}")
        raise typer.Exit(1 if isinstance(exc, NotExportable) else 2) from None
    if output is None:
        sys.stdout.write(exported.text)
    else:
        output.write_bytes(exported.data)
        err.print(f"Wrote {escape(str(output))}")


@cli.command("backup")
def backup_(
    path: Annotated[Path, typer.Argument(help="File to write the backup to.", show_default=False)],
    force: Annotated[bool, typer.Option("--force", help="Overwrite PATH if it exists.")] = False,
) -> None:
    """Copy the database to PATH, even while the server runs, and check the copy."""
    from app.backup import backup

    with _refusals(), _copying("Copying the database (pages)") as progress:
        saved = backup(get_settings().database_url, path, force, progress)
    out.print(
        f"[green]Saved {escape(str(path))}[/] ({saved.size:,} bytes, schema revision "
        f"{saved.revision}); {saved.checked}."
    )
    _print_counts(saved.counts)


@cli.command()
def restore(
    path: Annotated[Path, typer.Argument(help="Backup to restore.", show_default=False)],
    force: Annotated[
        bool, typer.Option("--force", help="Restore even while a server uses the database.")
    ] = False,
) -> None:
    """Check a backup, copy it into the database and migrate it; a refused one changes nothing."""
    from app.backup import restore as restore_backup

    with _refusals(), _copying("Restoring (pages)") as progress:
        restored = restore_backup(get_settings().database_url, path, force, progress)
    before, after = restored.from_revision, restored.to_revision
    schema = (
        f"upgraded its schema from revision {before} to {after}"
        if before != after
        else f"its schema is at the newest revision, {after}"
    )
    where = escape(f"{path} into {restored.database}")
    out.print(f"[green]Restored {where}[/]: {schema}.")
    _print_counts(restored.counts)
    if restored.in_use:
        err.print(
            "[yellow]warning[/] a server had the database open: restart it, so that it forgets "
            "what it kept in memory from before the restore."
        )


def _print_counts(counts: dict[str, int]) -> None:
    for label, count in counts.items():
        out.print(f"  {label:<13} {count:>10,}")


@contextmanager
def _copying(description: str) -> Iterator[Callable[[int, int], None]]:
    """Show a progress bar on a terminal's standard error; yield what moves it (done, total)."""
    # only on a terminal: cron mails whatever a command writes
    with Progress(
        *_progress_columns(), console=err, transient=True, disable=not err.is_terminal
    ) as progress:
        task = progress.add_task(description, total=None)
        yield lambda done, total: progress.update(task, completed=done, total=total)


@contextmanager
def _refusals() -> Iterator[None]:
    """Turn a refused backup, restore or serve into its message and exit status."""
    from app.backup import Refused

    try:
        yield
    except Refused as exc:
        err.print(f"[red]refused[/] {escape(str(exc))}")
        raise typer.Exit(exc.code) from None


@cli.command()
def sweep() -> None:
    """Finalise exam attempts whose time (and grace) ran out; safe to run from cron."""
    from datetime import timedelta

    from app.exams.sweep import sweep_once

    db = _database()
    try:
        closed = sweep_once(db, timedelta(seconds=get_settings().exam_grace_seconds))
    finally:
        db.dispose()
    out.print(f"Finalised {closed} exam attempt(s) whose time ran out.")


@cli.command()
def check(
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="Worker processes the server will run.")
    ] = 1,
) -> None:
    """Check the setup before serving: exit status 1 on an error; warnings only inform."""
    from app.checks import deployment_findings

    findings = deployment_findings(get_settings(), workers)
    for finding in findings:
        colour = "red" if finding.level == "error" else "yellow"
        out.print(f"[{colour}]{finding.level}[/] {escape(finding.message)}")
    errors = sum(finding.level == "error" for finding in findings)
    if errors:
        err.print(f"[red]{errors} error(s): fix them before serving.[/]")
        raise typer.Exit(1)
    if not findings:
        out.print("[green]No problems found.[/]")


@cli.command("check-content")
def check_content(
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="PREFIX",
            help="Only question sets whose slug starts with PREFIX (repeatable).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Write the report as JSON to standard output.")
    ] = False,
) -> None:
    """Check the content for gaps and giveaways; exit status 1 when there is a finding."""
    from dataclasses import asdict

    from app.content.quality import check_content as run_checks

    db = _database()
    try:
        with db.session_scope() as session:
            report = run_checks(session, sets or ())
    finally:
        db.dispose()
    if sets and not report.questions:
        err.print(f"[red]No questions in sets starting with {escape(' or '.join(sets))}.[/]")
        raise typer.Exit(2)
    if as_json:
        sys.stdout.write(json.dumps(asdict(report), ensure_ascii=False, indent=2) + "\n")
    else:
        _print_content_report(report)
    if report.findings:
        raise typer.Exit(1)


def _print_content_report(report: "ContentReport") -> None:
    from rich.table import Table

    positions = Table(title="Right answers by position (single-answer questions of four choices)")
    columns = ("set", "questions", "four-choice", "1", "2", "3", "4")
    for column in (*columns, "by length: 1st 2nd 3rd last"):
        positions.add_column(column, justify="left" if column == "set" else "right")
    for s in report.sets:
        shares = " ".join(f"{n / s.single:.0%}" for n in s.by_length) if s.single else "-"
        positions.add_row(
            escape(s.slug), str(s.questions), str(s.four_choice), *map(str, s.positions), shares
        )
    out.print(positions)
    topics = Table(title="Questions per topic")
    for column in ("topic", "questions", "notes", "leaf"):
        topics.add_column(column, justify="left" if column == "topic" else "right")
    for t in report.topics:
        name = escape("  " * t.depth + f"{t.title} ({t.slug})")
        topics.add_row(name, str(t.questions), str(t.notes), "yes" if t.leaf else "")
    out.print(topics)
    for finding in report.findings:
        about = finding.questions
        if len(about) == 1 and about[0].ref == finding.subject:  # a finding on one question
            line = f"{about[0].ref} (id {about[0].id}): {finding.message} — “{about[0].stem}”"
            out.print(f"[yellow]{finding.kind}[/] {escape(line)}")
            continue
        out.print(f"[yellow]{finding.kind}[/] {escape(f'{finding.subject}: {finding.message}')}")
        for question in about:
            out.print(f"    {escape(f'{question.ref} (id {question.id}): “{question.stem}”')}")
    for finding in report.accepted:
        line = f"{finding.subject}: {finding.message}"
        out.print(f"[dim]accepted {finding.kind} {escape(line)}[/]")
    if report.findings:
        kinds = Counter(finding.kind for finding in report.findings)
        summary = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        out.print(
            f"[red]{len(report.findings)} finding(s) in {report.questions} questions:[/] {summary}"
        )
    else:
        accepted = f" ({len(report.accepted)} accepted as written)" if report.accepted else ""
        out.print(f"[green]No findings in {report.questions} questions{accepted}.[/]")


def _import_files(
    db: Database,
    files: list[tuple[Path, str]],
    format: str | None,
    limit: int,
    skip_bad: bool = False,
) -> list[Report]:
    """Import each (path, label) in turn; exit 1 when any file is refused."""
    settings = get_settings()
    refused, reports = 0, []
    with Progress(*_progress_columns(), console=err, transient=True) as progress:
        for path, label in files:
            task = progress.add_task(f"Reading {label}", total=None)

            def advance(
                phase: str, done: int, total: int, task: TaskID = task, name: str = label
            ) -> None:
                what = "questions" if phase == "content" else "suggested links for"
                progress.update(task, description=f"{name}: {what}", completed=done, total=total)

            try:
                data = _read(path, label, limit)
                report = import_in_steps(
                    db,
                    data,
                    label,
                    settings.link_threshold,
                    format,
                    progress=advance,
                    skip_bad=skip_bad,
                )
            except ImportRefused as exc:
                refused += 1
                IMPORT_REFUSED.inc()
                err.print(
                    f"[red]refused[/] {escape(str(exc))}  [dim](nothing from this file was saved)[/]"
                )
            else:
                IMPORTED.inc()
                reports.append(report)
                _print_report(report)
            finally:
                progress.remove_task(task)
    out.print(f"[bold]Summary:[/] {escape(_summary(reports, refused))}")
    if refused:
        err.print(f"[red]{refused} of {len(files)} file(s) refused.[/]")
        raise typer.Exit(1)
    return reports


def _summary(reports: list[Report], files_refused: int) -> str:
    """Add up what imports did with questions, as "created 3, updated 0, unchanged 1, skipped 2
    (essay 2), refused 2 (1 question, 1 file)"."""
    counts: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    for report in reports:
        counts.update(report.counts)
        skipped.update(report.skipped)
    figures = [
        f"{name} {counts[f'questions_{name}']:,}" for name in ("created", "updated", "unchanged")
    ]
    reasons = ", ".join(f"{what} {n:,}" for what, n in sorted(skipped.items()))
    figures.append(f"skipped {counts['skipped']:,}" + (f" ({reasons})" if reasons else ""))
    refused = [(counts["refused"], "question"), (files_refused, "file")]
    parts = ", ".join(f"{n:,} {noun}{'s' if n != 1 else ''}" for n, noun in refused if n)
    figures.append(
        f"refused {counts['refused'] + files_refused:,}" + (f" ({parts})" if parts else "")
    )
    return ", ".join(figures)


def _preview_files(
    db: Database,
    files: list[tuple[Path, str]],
    format: str | None,
    limit: int,
    skip_bad: bool = False,
) -> None:
    """Print what importing each (path, label) in turn would do; write nothing."""
    readable, unread = [], {}
    for path, label in files:
        try:
            readable.append((label, _read(path, label, limit)))
        except ImportRefused as exc:
            unread[label] = Preview(label, refused=exc)
    with db.session_scope(write=True) as session:
        previews = preview_documents(
            session, readable, get_settings().link_threshold, format, skip_bad
        )
    found = {preview.file: preview for preview in previews}
    shown = [unread.get(label) or found[label] for _, label in files]
    for preview in shown:
        _print_preview(preview)
    reports = [preview.report for preview in shown if preview.report is not None]
    out.print(f"[bold]Summary:[/] would be {escape(_summary(reports, len(shown) - len(reports)))}")
    out.print("[bold]Dry run: nothing was written.[/]")


def _print_preview(preview: Preview) -> None:
    if preview.refused is not None:
        out.print(
            f"[red]would refuse[/] {escape(str(preview.refused))}  "
            "[dim](nothing from this file would be saved)[/]"
        )
        return
    assert preview.report is not None
    figures = ", ".join(f"{name} {value}" for name, value in preview.figures().items())
    out.print(f"[green]would import[/] {escape(preview.file)} ({preview.report.format}): {figures}")
    for question in preview.questions:
        where = f"line {question.line}" if question.line else "line ?"
        ref = escape(f"{question.set}/{question.key}  “{question.stem}”")
        out.print(f"  {where:>10}  {question.outcome:<9}  {ref}")
    if preview.topics:
        out.print("  topics:")
    for topic in preview.topics:
        new = " (new)" if topic.new else ""
        out.print(f"  {'  ' * (topic.depth + 1)}{escape(topic.title)} [dim]{topic.slug}[/]{new}")
    _print_report(preview.report, verb="[dim]counts[/]")


def _read(path: Path, label: str, limit: int) -> bytes:
    if not path.is_file():
        raise ImportRefused(label, 1, "no such file")
    size = path.stat().st_size
    if size > limit:
        raise ImportRefused(
            label,
            1,
            f"the file is {size:,} bytes; the limit is {limit:,} "
            "(--max-bytes, or STUDYHALL_MAX_UPLOAD_BYTES)",
        )
    return path.read_bytes()


def _print_report(report: Report, verb: str = "[green]imported[/]") -> None:
    counts = ", ".join(f"{name.replace('_', ' ')} {value}" for name, value in report.counts.items())
    out.print(f"{verb} {escape(report.file)} ({report.format}): {counts}")
    for warning in report.warnings:
        out.print(
            f"  [yellow]warning[/] {escape(f'{report.file}:{warning.line}: {warning.message}')}"
        )


def main() -> None:
    """Run the command; database trouble becomes a one-line message, not a traceback."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    try:
        cli(standalone_mode=True)
    except (OperationalError, ProgrammingError) as exc:
        reason = str(exc.orig).splitlines()[0] if exc.orig else type(exc).__name__
        err.print(
            f"[red]The database could not be used: {escape(reason)}[/]\n"
            "Is STUDYHALL_DATABASE_URL right, and has `studyhall migrate` been run?"
        )
        sys.exit(1)
