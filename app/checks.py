"""Deployment checks behind `studyhall check` (like Django's `check --deploy`).

Errors stop a deployment (the database cannot be used, or was made by a newer release);
warnings name what is risky and leave the decision to the operator.
"""

from dataclasses import dataclass
from ipaddress import ip_address

from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from app.accounts.models import User
from app.config import Settings
from app.db import Database
from app.migrate import schema_state


@dataclass(frozen=True)
class Finding:
    """One thing `studyhall check` reports."""

    level: str  # "error" or "warning"
    message: str


def deployment_findings(settings: Settings, workers: int = 1) -> list[Finding]:
    """List what is wrong (errors) or risky (warnings) in this setup; empty when all is well."""
    findings = [Finding("warning", text) for text in _settings_warnings(settings)]
    if workers > 1 and make_url(settings.database_url).get_backend_name() == "sqlite":
        findings.append(
            Finding(
                "warning",
                f"{workers} workers on SQLite: SQLite serves one process. Use one worker, or "
                "PostgreSQL (STUDYHALL_DATABASE_URL=postgresql+psycopg://...) for several.",
            )
        )
    return findings + _database_findings(settings.database_url)


def _settings_warnings(settings: Settings) -> list[str]:
    warnings = []
    if _behind_proxy(settings.trusted_proxies) and not settings.secure_cookies:
        warnings.append(
            "A reverse proxy is trusted but session cookies are not marked Secure. Serve "
            "over HTTPS and set STUDYHALL_SECURE_COOKIES=true."
        )
    if settings.signup_open:
        warnings.append(
            "Anyone who can reach the site can sign up. Set STUDYHALL_SIGNUP_OPEN=false "
            "for a private site."
        )
    if settings.metrics == "public":
        warnings.append(
            "Anyone who can reach the site can read /metrics (STUDYHALL_METRICS=public). Keep "
            "it behind the proxy, or set STUDYHALL_METRICS=admin and scrape with an admin's token."
        )
    if settings.log_level.lower() == "debug":
        warnings.append("Debug logging is on (STUDYHALL_LOG_LEVEL=debug); it is verbose.")
    return warnings


def _behind_proxy(trusted: str) -> bool:
    """Whether a proxy on another host is trusted (the default trusts only this machine)."""
    for address in (part.strip() for part in trusted.split(",")):
        if address == "*":
            return True
        try:
            if address and not ip_address(address).is_loopback:
                return True
        except ValueError:  # a host name or a network: another machine
            return True
    return False


def _database_findings(url: str) -> list[Finding]:
    try:
        state = schema_state(url)
    except Exception as exc:  # any failure here is the finding itself
        return [Finding("error", f"The database cannot be used ({type(exc).__name__}: {exc}).")]
    if not state.known:
        return [
            Finding(
                "error",
                f"The database is at revision {state.current}, made by a newer release of "
                "Studyhall than this one.",
            )
        ]
    if state.current is None or state.behind:
        at = "has no schema" if state.current is None else f"is at revision {state.current}"
        message = f"The database {at}; this release needs {state.head}. Run `studyhall migrate`."
        return [Finding("warning", message)]
    return [Finding("warning", text) for text in _account_warnings(url)]


def _account_warnings(url: str) -> list[str]:
    db = Database(url)
    try:
        with db.session_scope() as session:
            admins = session.scalar(select(func.count(User.id)).where(User.role == "admin"))
    finally:
        db.dispose()
    if admins:
        return []
    return ["There is no admin account. Create one: studyhall users create NAME --role admin"]
